//! Which IP addresses the egress proxy may connect to: public unicast only. Refuses
//! loopback, private, shared (CGNAT), link-local (cloud metadata lives there), multicast,
//! broadcast, unspecified, reserved and documentation ranges, and the IPv6 equivalents,
//! including IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64). Pure.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused, or `None` when the proxy may connect to it.
pub fn forbidden_reason(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(v4) => forbidden_v4(v4),
        IpAddr::V6(v6) => forbidden_v6(v6),
    }
}

fn forbidden_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    let reason = if ip.is_unspecified() || a == 0 {
        "unspecified address"
    } else if ip.is_loopback() {
        "loopback address"
    } else if ip == Ipv4Addr::new(169, 254, 169, 254) {
        "cloud metadata address"
    } else if ip.is_link_local() {
        "link-local address"
    } else if ip.is_private() {
        "private address"
    } else if a == 100 && (64..128).contains(&b) {
        "shared (carrier-grade NAT) address"
    } else if ip.is_multicast() {
        "multicast address"
    } else if ip.is_broadcast() || a >= 240 {
        "reserved address"
    } else if (a, b, c) == (192, 0, 0) || (a == 198 && (b == 18 || b == 19)) {
        "special-purpose address"
    } else if ip.is_documentation() {
        "documentation address"
    } else {
        return None;
    };
    Some(reason)
}

fn forbidden_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if let Some(embedded) = embedded_v4(ip) {
        return forbidden_v4(embedded);
    }
    let first = ip.segments()[0];
    let reason = if ip.is_unspecified() {
        "unspecified address"
    } else if ip.is_loopback() {
        "loopback address"
    } else if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        "cloud metadata address"
    } else if ip.is_multicast() {
        "multicast address"
    } else if first & 0xffc0 == 0xfe80 || first & 0xffc0 == 0xfec0 {
        "link-local address"
    } else if first & 0xfe00 == 0xfc00 {
        "private (unique local) address"
    } else if first == 0x2001 && ip.segments()[1] == 0x0db8 {
        "documentation address"
    } else if first & 0xe000 != 0x2000 {
        "reserved address (not global unicast)"
    } else {
        return None;
    };
    Some(reason)
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4 (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if s[..5] == [0; 5]
        && (s[5] == 0xffff || (s[5] == 0 && !ip.is_loopback() && !ip.is_unspecified()))
    {
        return Some(tail);
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(tail);
    }
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        forbidden_reason(text.parse().unwrap()).is_some()
    }

    #[test]
    fn public_unicast_addresses_are_allowed() {
        for ok in ["151.101.0.223", "8.8.8.8", "2a04:4e42::223", "1.1.1.1"] {
            assert!(!refused(ok), "{ok}");
        }
    }

    #[test]
    fn internal_and_special_addresses_are_refused() {
        for bad in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "0.0.0.0",
            "0.1.2.3",
            "240.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd00:ec2::254",
            "ff02::1",
            "2001:db8::1",
        ] {
            assert!(refused(bad), "{bad}");
        }
    }

    #[test]
    fn ipv4_hidden_in_ipv6_is_judged_as_ipv4() {
        for bad in [
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::",
        ] {
            assert!(refused(bad), "{bad}");
        }
        assert!(!refused("::ffff:151.101.0.223"));
    }

    #[test]
    fn the_metadata_addresses_are_named() {
        assert_eq!(
            forbidden_reason("169.254.169.254".parse().unwrap()),
            Some("cloud metadata address")
        );
        assert_eq!(
            forbidden_reason("fd00:ec2::254".parse().unwrap()),
            Some("cloud metadata address")
        );
    }
}
