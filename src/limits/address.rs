//! Which address a client connects from: the TCP peer's, unless that peer is a trusted
//! reverse proxy, in which case the first address the proxy names in `Forwarded` or
//! `X-Forwarded-For`. The headers of any other peer are ignored, since anyone can send
//! them.

use std::net::{IpAddr, SocketAddr};

use actix_web::HttpRequest;

/// The address a request counts against: see the module documentation. A request with
/// no peer address (not over TCP) counts as `0.0.0.0`.
pub fn client_address(req: &HttpRequest, trusted_proxies: &[IpAddr]) -> IpAddr {
    let peer = req
        .peer_addr()
        .map_or(IpAddr::from([0, 0, 0, 0]), |addr| addr.ip());
    if !trusted_proxies.contains(&peer) {
        return peer;
    }
    // actix reads `Forwarded: for=` first, then the first `X-Forwarded-For`, then the peer.
    req.connection_info()
        .realip_remote_addr()
        .and_then(parse_address)
        .unwrap_or(peer)
}

/// An address as proxies write it: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1`,
/// `[2001:db8::1]`, `[2001:db8::1]:5678`, possibly quoted.
fn parse_address(text: &str) -> Option<IpAddr> {
    let text = text.trim().trim_matches('"');
    if let Ok(address) = text.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(address) = text.parse::<SocketAddr>() {
        return Some(address.ip());
    }
    text.strip_prefix('[')?.strip_suffix(']')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use actix_web::test::TestRequest;

    use super::*;

    const PEER: &str = "10.1.1.1:40000";

    fn request(header: Option<(&str, &str)>) -> HttpRequest {
        let mut request = TestRequest::default().peer_addr(PEER.parse().unwrap());
        if let Some(header) = header {
            request = request.insert_header(header);
        }
        request.to_http_request()
    }

    #[test]
    fn proxies_write_addresses_in_several_forms() {
        for (text, expected) in [
            ("1.2.3.4", "1.2.3.4"),
            ("1.2.3.4:5678", "1.2.3.4"),
            ("2001:db8::1", "2001:db8::1"),
            ("[2001:db8::1]", "2001:db8::1"),
            ("\"[2001:db8::1]:5678\"", "2001:db8::1"),
        ] {
            assert_eq!(parse_address(text), expected.parse().ok(), "{text}");
        }
        assert_eq!(parse_address("unknown"), None);
        assert_eq!(parse_address("_hidden"), None);
    }

    #[test]
    fn headers_count_only_from_a_trusted_proxy() {
        let peer: IpAddr = "10.1.1.1".parse().unwrap();
        let forwarded = request(Some(("X-Forwarded-For", "203.0.113.7, 10.1.1.1")));
        assert_eq!(client_address(&forwarded, &[]), peer, "untrusted peer");
        assert_eq!(
            client_address(&forwarded, &[peer]),
            "203.0.113.7".parse::<IpAddr>().unwrap()
        );
        let standard = request(Some(("Forwarded", "for=\"[2001:db8::7]:99\";proto=https")));
        assert_eq!(
            client_address(&standard, &[peer]),
            "2001:db8::7".parse::<IpAddr>().unwrap()
        );
        assert_eq!(client_address(&request(None), &[peer]), peer, "no header");
        let garbage = request(Some(("X-Forwarded-For", "not an address")));
        assert_eq!(client_address(&garbage, &[peer]), peer);
    }
}
