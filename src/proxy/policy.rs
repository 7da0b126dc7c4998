//! What the egress proxy lets one request do: the `EgressPolicy` a grant carries (allowlist,
//! resolver overrides, caps) and the decisions over it. Pure; `worker` asks `check_head`
//! before resolving, `pinned_address` / `choose_address` to pick where to connect, and
//! `check_sni` before relaying a tunnel. A denial is a sentence for the audit log.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::address::forbidden_reason;
use super::request::{Method, RequestHead};

/// The only port CONNECT may reach.
pub const TLS_PORT: u16 = 443;
/// The only port plain HTTP may reach.
pub const HTTP_PORT: u16 = 80;

/// One request's egress policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EgressPolicy {
    /// Host names (lowercase, exact match; no wildcards) the request may reach.
    pub allowlist: Vec<String>,
    /// Names answered without DNS. An address given here is trusted as is: the only way a
    /// private address is reachable.
    pub resolve: BTreeMap<String, IpAddr>,
    /// Bytes relayed over all connections, both directions.
    pub max_bytes: u64,
    /// Connection attempts, allowed or not; later ones are refused.
    pub max_connections: u32,
}

/// Refuses what no address lookup can make right: a method/port pair outside the rules, a
/// body, a direct IP address, a host off the allowlist.
pub fn check_head(policy: &EgressPolicy, head: &RequestHead) -> Result<(), String> {
    let target = &head.target;
    match head.method {
        Method::Connect if target.port != TLS_PORT => {
            return Err(format!(
                "CONNECT is only allowed to port {TLS_PORT}, not {}",
                target.port
            ))
        }
        Method::Get | Method::Head if target.port != HTTP_PORT => {
            return Err(format!(
                "plain HTTP is only allowed to port {HTTP_PORT}, not {}",
                target.port
            ))
        }
        Method::Get | Method::Head if head.has_body() => {
            return Err("a request body is not allowed (read-only access)".to_string())
        }
        _ => {}
    }
    if target.is_ip {
        return Err(format!(
            "direct IP address {} is not allowed; use an allowlisted name",
            target.host
        ));
    }
    if !policy
        .allowlist
        .iter()
        .any(|allowed| allowed.eq_ignore_ascii_case(&target.host))
    {
        return Err(format!("host {} is not on the allowlist", target.host));
    }
    Ok(())
}

/// The address configured for `host`, if any (trusted without checks).
pub fn pinned_address(policy: &EgressPolicy, host: &str) -> Option<IpAddr> {
    policy.resolve.get(host).copied()
}

/// The address to connect to from what DNS answered: refused if ANY answer is internal,
/// so a name cannot be pointed at a private or metadata address, not even among others.
pub fn choose_address(host: &str, answers: &[IpAddr]) -> Result<IpAddr, String> {
    for address in answers {
        if let Some(reason) = forbidden_reason(*address) {
            return Err(format!("host {host} resolves to {address}, a {reason}"));
        }
    }
    answers
        .first()
        .copied()
        .ok_or_else(|| format!("host {host} has no address"))
}

/// The TLS server name must be the CONNECT host.
pub fn check_sni(connect_host: &str, sni: &str) -> Result<(), String> {
    if connect_host.eq_ignore_ascii_case(sni) {
        Ok(())
    } else {
        Err(format!(
            "TLS server name {sni} does not match CONNECT host {connect_host}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::request::parse_head;

    fn policy() -> EgressPolicy {
        EgressPolicy {
            allowlist: vec!["pypi.org".into(), "files.pythonhosted.org".into()],
            resolve: BTreeMap::from([("pypi.org".to_string(), "10.9.8.7".parse().unwrap())]),
            max_bytes: 1 << 20,
            max_connections: 4,
        }
    }

    fn check(head: &str) -> Result<(), String> {
        check_head(&policy(), &parse_head(head.as_bytes()).unwrap())
    }

    #[test]
    fn allowlisted_gets_and_tunnels_pass() {
        assert!(check("GET http://pypi.org/simple/ HTTP/1.1\r\n\r\n").is_ok());
        assert!(check("HEAD http://PYPI.org/ HTTP/1.1\r\n\r\n").is_ok());
        assert!(check("CONNECT files.pythonhosted.org:443 HTTP/1.1\r\n\r\n").is_ok());
    }

    #[test]
    fn everything_else_is_denied_with_a_reason() {
        let cases = [
            (
                "GET http://evil.example/ HTTP/1.1\r\n\r\n",
                "not on the allowlist",
            ),
            (
                "CONNECT evil.example:443 HTTP/1.1\r\n\r\n",
                "not on the allowlist",
            ),
            (
                "CONNECT pypi.org:22 HTTP/1.1\r\n\r\n",
                "only allowed to port 443",
            ),
            (
                "GET http://pypi.org:8080/ HTTP/1.1\r\n\r\n",
                "only allowed to port 80",
            ),
            (
                "GET http://93.184.216.34/ HTTP/1.1\r\n\r\n",
                "direct IP address",
            ),
            (
                "CONNECT [2606:2800::1]:443 HTTP/1.1\r\n\r\n",
                "direct IP address",
            ),
            (
                "GET http://pypi.org/ HTTP/1.1\r\nContent-Length: 3\r\n\r\n",
                "request body",
            ),
            (
                "GET http://sub.pypi.org/ HTTP/1.1\r\n\r\n",
                "not on the allowlist",
            ),
        ];
        for (head, why) in cases {
            let error = check(head).unwrap_err();
            assert!(error.contains(why), "{head:?}: {error}");
        }
    }

    #[test]
    fn only_overrides_may_name_private_addresses() {
        assert_eq!(
            pinned_address(&policy(), "pypi.org"),
            Some("10.9.8.7".parse().unwrap())
        );
        assert_eq!(pinned_address(&policy(), "files.pythonhosted.org"), None);
        let private = choose_address(
            "x",
            &[
                "151.101.0.223".parse().unwrap(),
                "10.0.0.1".parse().unwrap(),
            ],
        );
        assert!(private.unwrap_err().contains("private address"));
        let metadata = choose_address("x", &["169.254.169.254".parse().unwrap()]);
        assert!(metadata.unwrap_err().contains("metadata"));
        assert!(choose_address("x", &[]).is_err());
        assert_eq!(
            choose_address("x", &["151.101.0.223".parse().unwrap()]),
            Ok("151.101.0.223".parse().unwrap())
        );
    }

    #[test]
    fn the_server_name_must_match_the_tunnel() {
        assert!(check_sni("pypi.org", "pypi.org").is_ok());
        assert!(check_sni("pypi.org", "evil.example")
            .unwrap_err()
            .contains("does not match"));
    }
}
