//! The egress proxy: read-only internet for `network: allowlist` requests, enforced by
//! topology. Each such sandbox sits alone on its own internal Docker network (no route
//! out, no host address: `inhibit_ipv4`), whose only other member is cordon's proxy
//! container (the same binary, `cordon proxy-worker`), which is also on the upstream
//! network. The supervisor opens an `egress::Lease` per request and audits every
//! connection attempt the worker reports.
//!
//! - `address`, `request`, `sni`, `policy`: pure decisions, unit-tested here.
//! - `dns`: the name server every allowlist sandbox is given: answers NXDOMAIN, forwards nothing.
//! - `control`: the line protocol between the supervisor and the worker (stdin/stdout).
//! - `worker`: the proxy server inside the container.
//! - `network`: per-request internal networks (create, remove, reap).
//! - `egress`: the supervisor's side: the proxy container and leases.

pub(crate) mod address;
pub(crate) mod control;
pub(crate) mod dns;
pub(crate) mod egress;
pub(crate) mod network;
pub(crate) mod policy;
pub(crate) mod request;
pub(crate) mod sni;
pub(crate) mod worker;

use std::collections::BTreeMap;
use std::net::IpAddr;

use crate::config::NetworkSettings;
pub use egress::{Egress, EgressError, Lease};
pub use policy::EgressPolicy;

/// Most connection attempts per request a setting may allow (each is an audit entry).
pub const MAX_CONNECTIONS_CAP: u32 = 1000;

/// Checks the `[network]` settings; the error says what is wrong.
pub fn check_settings(settings: &NetworkSettings) -> Result<(), String> {
    resolve_map(&settings.resolve)?;
    network::parse_pool(&settings.subnet_pool)?;
    if !(1..=MAX_CONNECTIONS_CAP).contains(&settings.max_connections) {
        return Err(format!(
            "max_connections must be 1 to {MAX_CONNECTIONS_CAP}"
        ));
    }
    if settings.max_bytes == 0 || settings.proxy_port == 0 {
        return Err("max_bytes and proxy_port must not be 0".into());
    }
    if let Some(bad) = settings.allowlist.iter().find(|name| !is_plain_name(name)) {
        return Err(format!("allowlist entry {bad:?} is not a host name"));
    }
    Ok(())
}

/// The policy one request's grant carries.
pub fn policy_of(settings: &NetworkSettings) -> Result<EgressPolicy, String> {
    Ok(EgressPolicy {
        allowlist: settings
            .allowlist
            .iter()
            .map(|n| n.to_ascii_lowercase())
            .collect(),
        resolve: resolve_map(&settings.resolve)?,
        max_bytes: settings.max_bytes,
        max_connections: settings.max_connections,
    })
}

fn resolve_map(entries: &[String]) -> Result<BTreeMap<String, IpAddr>, String> {
    entries
        .iter()
        .map(|entry| {
            let (name, address) = entry
                .split_once('=')
                .ok_or_else(|| format!("resolve entry {entry:?} is not name=address"))?;
            let address = address
                .trim()
                .parse::<IpAddr>()
                .map_err(|_| format!("resolve entry {entry:?} has no valid address"))?;
            Ok((name.trim().to_ascii_lowercase(), address))
        })
        .collect()
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.parse::<IpAddr>().is_err()
        && name
            .split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    #[test]
    fn the_default_policy_names_the_package_index_only() {
        let settings = Settings::load(None).unwrap().network;
        let policy = policy_of(&settings).unwrap();
        assert_eq!(policy.allowlist, ["pypi.org", "files.pythonhosted.org"]);
        assert!(policy.resolve.is_empty());
    }

    #[test]
    fn bad_settings_are_refused_with_a_reason() {
        let good = Settings::load(None).unwrap().network;
        let mut bad_resolve = good.clone();
        bad_resolve.resolve = vec!["pypi.org".into()];
        let mut ip_in_allowlist = good.clone();
        ip_in_allowlist.allowlist = vec!["10.0.0.1".into()];
        let mut no_connections = good.clone();
        no_connections.max_connections = 0;
        let mut bad_pool = good.clone();
        bad_pool.subnet_pool = "10.0.0.0/30".into();
        for bad in [bad_resolve, ip_in_allowlist, no_connections, bad_pool] {
            assert!(check_settings(&bad).is_err(), "{bad:?}");
        }
        let mut pinned = good;
        pinned.resolve = vec!["Mirror.local = 10.1.2.3".into()];
        assert_eq!(
            policy_of(&pinned).unwrap().resolve["mirror.local"],
            "10.1.2.3".parse::<IpAddr>().unwrap()
        );
    }
}
