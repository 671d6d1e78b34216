//! Which web pages may open a WebSocket here (`server.allowed_origins`). A browser
//! sends `Origin` with every upgrade, so checking it keeps a stranger's page from
//! playing in its visitors' names; clients that are not browsers send none.

use std::net::IpAddr;

use actix_web::http::Uri;

/// The origins allowed besides the server's own and loopback pages.
pub(crate) struct OriginPolicy {
    any: bool,
    allowed: Vec<Origin>,
}

/// An origin reduced to what identifies it: scheme, host and port, lowercase, the
/// port filled in from the scheme when left out.
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl Origin {
    fn parse(text: &str) -> Option<Origin> {
        let uri: Uri = text.trim().parse().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let host = uri.host()?.to_ascii_lowercase();
        let port = uri.port_u16().or(match scheme.as_str() {
            "http" | "ws" => Some(80),
            "https" | "wss" => Some(443),
            _ => None,
        })?;
        Some(Origin { scheme, host, port })
    }

    fn is_loopback(&self) -> bool {
        let host = self.host.trim_start_matches('[').trim_end_matches(']');
        host == "localhost" || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// Whether this origin names the host the request was sent to (its `Host` header).
    fn is_host(&self, host_header: &str) -> bool {
        let host_header = host_header.trim().to_ascii_lowercase();
        host_header == format!("{}:{}", self.host, self.port)
            || (host_header == self.host
                && matches!(
                    (self.scheme.as_str(), self.port),
                    ("http", 80) | ("https", 443)
                ))
    }
}

impl OriginPolicy {
    /// The policy for `allowed` (each `scheme://host[:port]`, or the single entry `*`);
    /// `Err` names an entry that is not an origin.
    pub(crate) fn new(allowed: &[String]) -> Result<OriginPolicy, String> {
        if allowed.iter().any(|entry| entry.trim() == "*") {
            return Ok(OriginPolicy {
                any: true,
                allowed: Vec::new(),
            });
        }
        let allowed = allowed
            .iter()
            .map(|entry| {
                Origin::parse(entry).ok_or_else(|| {
                    format!(
                        "server.allowed_origins: \"{entry}\" is not an origin; write scheme://host[:port], e.g. https://games.example.org, or \"*\""
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(OriginPolicy {
            any: false,
            allowed,
        })
    }

    /// `Ok` if a request with this `Origin` (if any) sent to this `Host` may open a
    /// WebSocket; else why not.
    pub(crate) fn check(&self, origin: Option<&str>, host: Option<&str>) -> Result<(), String> {
        let Some(text) = origin else {
            return Ok(());
        };
        if self.any && text.trim() != "null" {
            return Ok(());
        }
        let refused = || {
            format!(
                "pages from {text} may not open a connection to this server; its operator can add the origin to server.allowed_origins"
            )
        };
        let origin = Origin::parse(text).ok_or_else(refused)?;
        if origin.is_loopback()
            || host.is_some_and(|host| origin.is_host(host))
            || self.allowed.contains(&origin)
        {
            return Ok(());
        }
        Err(refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allowed: &[&str]) -> OriginPolicy {
        OriginPolicy::new(&allowed.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn non_browsers_the_servers_own_pages_and_loopback_pages_are_allowed() {
        let default = policy(&[]);
        let host = Some("games.example.org");
        assert!(default.check(None, host).is_ok());
        assert!(
            default
                .check(
                    Some("https://games.example.org"),
                    Some("games.example.org:443")
                )
                .is_ok()
        );
        assert!(
            default
                .check(Some("http://games.example.org"), host)
                .is_ok()
        );
        assert!(
            default
                .check(
                    Some("http://GAMES.example.org:8080"),
                    Some("games.example.org:8080")
                )
                .is_ok()
        );
        for loopback in [
            "http://localhost:3000",
            "http://127.0.0.1:8080",
            "http://127.9.9.9",
            "http://[::1]:8080",
        ] {
            assert!(default.check(Some(loopback), host).is_ok(), "{loopback}");
        }
    }

    #[test]
    fn other_pages_and_null_are_refused() {
        let default = policy(&[]);
        let host = Some("games.example.org:8080");
        for refused in [
            "http://evil.example",
            "null",
            "http://games.example.org:8081",
            "https://games.example.org:8080.evil.example",
            "not an origin",
        ] {
            let error = default.check(Some(refused), host).unwrap_err();
            assert!(error.contains("allowed_origins"), "{error}");
        }
    }

    #[test]
    fn listed_origins_and_a_star_open_the_door() {
        let listed = policy(&["https://play.example.com"]);
        assert!(
            listed
                .check(Some("https://play.example.com"), Some("internal:8080"))
                .is_ok()
        );
        assert!(
            listed
                .check(Some("https://play.example.com:443"), None)
                .is_ok()
        );
        assert!(listed.check(Some("http://play.example.com"), None).is_err());
        let any = policy(&["*"]);
        assert!(any.check(Some("http://evil.example"), None).is_ok());
        assert!(any.check(Some("null"), None).is_err());
    }

    #[test]
    fn a_listed_entry_that_is_not_an_origin_is_refused_at_start_up() {
        let error = OriginPolicy::new(&["games.example.org".to_owned()])
            .err()
            .unwrap();
        assert!(error.contains("games.example.org"), "{error}");
    }
}
