//! Which address a client's quotas count against: the TCP peer's, unless that peer is a
//! trusted reverse proxy, in which case the address that proxy saw, read from the right
//! of `X-Forwarded-For`. Every proxy appends the address it was reached from, so the
//! entries a client wrote itself are on the left: walking from the right past the
//! trusted proxies, the first other entry is the client. The headers of any other peer,
//! and `Forwarded` (which common proxies pass through from the client unchanged), are
//! ignored.
//!
//! An IPv6 address counts by its /64 prefix: one host usually holds a whole /64, and
//! could otherwise take a new address for every connection.

use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use actix_web::HttpRequest;
use actix_web::http::header::HeaderName;

/// The header reverse proxies append the client's address to.
const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The address a request counts against: see the module documentation. A request with
/// no peer address (not over TCP) counts as `0.0.0.0`.
pub(crate) fn client_address(req: &HttpRequest, trusted_proxies: &[IpAddr]) -> IpAddr {
    let peer = req
        .peer_addr()
        .map_or(IpAddr::from([0, 0, 0, 0]), |addr| addr.ip());
    let mut client = peer;
    if trusted_proxies.contains(&peer) {
        // Several headers count as one list, in order.
        let hops: Vec<&str> = req
            .headers()
            .get_all(X_FORWARDED_FOR)
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .collect();
        for hop in hops.into_iter().rev() {
            match parse_address(hop) {
                Some(address) if trusted_proxies.contains(&address) => continue,
                Some(address) => client = address,
                // Not an address: who is behind it cannot be known, so the last trusted
                // hop answers for it.
                None => {}
            }
            break;
        }
    }
    quota_key(client)
}

/// The address quotas are kept under: IPv4 as it is (also when written as IPv6), IPv6
/// by its /64 prefix.
fn quota_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(v6.to_bits() & !u128::from(u64::MAX))),
        },
    }
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

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn headers_count_only_from_a_trusted_proxy() {
        let peer = ip("10.1.1.1");
        let forwarded = request(Some(("X-Forwarded-For", "203.0.113.7, 10.1.1.1")));
        assert_eq!(client_address(&forwarded, &[]), peer, "untrusted peer");
        assert_eq!(client_address(&forwarded, &[peer]), ip("203.0.113.7"));
        assert_eq!(client_address(&request(None), &[peer]), peer, "no header");
        let garbage = request(Some(("X-Forwarded-For", "not an address")));
        assert_eq!(client_address(&garbage, &[peer]), peer);
    }

    #[test]
    fn a_client_cannot_choose_the_address_it_counts_under() {
        let peer = ip("10.1.1.1");
        // The proxy appended the address it saw (198.51.100.9) to what the client sent.
        let spoofed = request(Some(("X-Forwarded-For", "203.0.113.7, 198.51.100.9")));
        assert_eq!(client_address(&spoofed, &[peer]), ip("198.51.100.9"));
        // Behind two trusted proxies, the client is the first untrusted hop from the right.
        let inner = ip("10.1.1.2");
        let chained = request(Some(("X-Forwarded-For", "1.1.1.1, 198.51.100.9, 10.1.1.2")));
        assert_eq!(client_address(&chained, &[peer, inner]), ip("198.51.100.9"));
        // `Forwarded` comes through common proxies as the client wrote it: ignored.
        let standard = request(Some(("Forwarded", "for=203.0.113.7")));
        assert_eq!(client_address(&standard, &[peer]), peer);
    }

    #[test]
    fn an_ipv6_host_counts_by_its_64_prefix() {
        assert_eq!(quota_key(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            quota_key(ip("2001:db8:1:2:bbbb::99")),
            quota_key(ip("2001:db8:1:2:aaaa::1"))
        );
        assert_ne!(
            quota_key(ip("2001:db8:1:3::1")),
            quota_key(ip("2001:db8:1:2::1"))
        );
        assert_eq!(quota_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
        assert_eq!(quota_key(ip("192.0.2.1")), ip("192.0.2.1"));
    }
}
