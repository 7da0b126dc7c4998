//! Per-request internal networks: `internal` (no route out) and `inhibit_ipv4` (the
//! bridge has no host address, so the host and its services are unreachable from it),
//! each a random /28 of `[network] subnet_pool` so requests never share one. The proxy
//! takes `.2`; `.1` is the gateway Docker reserves (and, inhibited, never answers).
//! Labelled like sandboxes (owner included), so `reap_networks` removes what a supervisor
//! that is provably gone left.

use std::collections::HashMap;
use std::net::Ipv4Addr;

use bollard::errors::Error as BollardError;
use bollard::models::{Ipam, IpamConfig, NetworkCreateRequest};
use bollard::query_parameters::ListNetworksOptions;
use bollard::Docker;

use crate::docker::labels;
use crate::owner::OwnerTag;

/// Addresses per request network (a /28).
const BLOCK: u32 = 16;
/// Tries to find a free /28 before giving up.
const ATTEMPTS: u32 = 8;
/// The bridge option that keeps the host off the network.
pub const INHIBIT_IPV4: &str = "com.docker.network.bridge.inhibit_ipv4";

/// One request's network: its name and the proxy's address on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestNetwork {
    pub name: String,
    pub proxy_ip: Ipv4Addr,
}

/// `a.b.c.d/len` with room for at least one /28.
pub fn parse_pool(pool: &str) -> Result<(Ipv4Addr, u32), String> {
    let bad = || format!("subnet_pool {pool:?} must be an IPv4 range a.b.c.d/len with len <= 28");
    let (base, len) = pool.split_once('/').ok_or_else(bad)?;
    let base: Ipv4Addr = base.parse().map_err(|_| bad())?;
    let len: u32 = len.parse().map_err(|_| bad())?;
    if !(8..=28).contains(&len) {
        return Err(bad());
    }
    let mask = u32::MAX << (32 - len);
    Ok((Ipv4Addr::from(u32::from(base) & mask), len))
}

/// The `index`th /28 of the pool: (subnet, gateway, proxy address).
pub fn block(pool: (Ipv4Addr, u32), index: u32) -> (String, Ipv4Addr, Ipv4Addr) {
    let blocks = 1u32 << (28 - pool.1);
    let start = u32::from(pool.0) + (index % blocks) * BLOCK;
    let subnet = format!("{}/28", Ipv4Addr::from(start));
    (subnet, Ipv4Addr::from(start + 1), Ipv4Addr::from(start + 2))
}

/// Creates the network for `request_id` on `host`, labelled with its `owner`.
pub async fn create(
    docker: &Docker,
    (host, owner): (&str, &OwnerTag),
    request_id: &str,
    pool: &str,
) -> Result<RequestNetwork, BollardError> {
    let pool = parse_pool(pool).unwrap_or((Ipv4Addr::new(10, 213, 0, 0), 16));
    let name = crate::docker::unique_name("cordon-net", request_id);
    let mut attempt = 1;
    loop {
        let (subnet, gateway, proxy_ip) = block(pool, ulid::Ulid::new().random() as u32);
        match docker
            .create_network(request(&name, (host, owner), request_id, subnet, gateway))
            .await
        {
            Ok(_) => return Ok(RequestNetwork { name, proxy_ip }),
            Err(error) if attempt >= ATTEMPTS => return Err(error),
            // An overlapping subnet (another request's, or anything else's): try another.
            Err(_) => attempt += 1,
        }
    }
}

fn request(
    name: &str,
    (host, owner): (&str, &OwnerTag),
    request_id: &str,
    subnet: String,
    gateway: Ipv4Addr,
) -> NetworkCreateRequest {
    NetworkCreateRequest {
        name: name.to_string(),
        driver: Some("bridge".into()),
        internal: Some(true),
        ipam: Some(Ipam {
            config: Some(vec![IpamConfig {
                subnet: Some(subnet),
                gateway: Some(gateway.to_string()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        options: Some(HashMap::from([
            (INHIBIT_IPV4.to_string(), "true".to_string()),
            (
                "com.docker.network.bridge.enable_ip_masquerade".to_string(),
                "false".to_string(),
            ),
        ])),
        labels: Some(owned_labels(host, owner, request_id)),
        ..Default::default()
    }
}

fn owned_labels(host: &str, owner: &OwnerTag, request_id: &str) -> HashMap<String, String> {
    let mut network_labels = HashMap::from([
        (labels::MANAGED.to_string(), "true".to_string()),
        (labels::HOST.to_string(), host.to_string()),
        (labels::REQUEST_ID.to_string(), request_id.to_string()),
    ]);
    owner.label(&mut network_labels);
    network_labels
}

/// Removes a network; one already gone is fine.
pub async fn remove(docker: &Docker, name: &str) -> Result<(), BollardError> {
    match docker.remove_network(name).await {
        Err(e) if crate::docker::is_not_found(&e) => Ok(()),
        other => other,
    }
}

/// Removes the request networks of `host` whose labels `pick` chooses (after their
/// containers are gone): those of owners provably gone, or this instance's own.
pub async fn reap_networks(
    docker: &Docker,
    host: &str,
    pick: impl Fn(&HashMap<String, String>) -> bool,
) -> Result<Vec<String>, BollardError> {
    let filters = HashMap::from([(
        "label".to_string(),
        vec![
            format!("{}=true", labels::MANAGED),
            format!("{}={host}", labels::HOST),
        ],
    )]);
    let options = ListNetworksOptions {
        filters: Some(filters),
    };
    let mut removed = Vec::new();
    for network in docker.list_networks(Some(options)).await? {
        if !pick(&network.labels.unwrap_or_default()) {
            continue;
        }
        if let Some(name) = network.name {
            remove(docker, &name).await?;
            removed.push(name);
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_stay_inside_the_pool() {
        let pool = parse_pool("10.213.0.0/16").unwrap();
        assert_eq!(
            block(pool, 0),
            (
                "10.213.0.0/28".into(),
                Ipv4Addr::new(10, 213, 0, 1),
                Ipv4Addr::new(10, 213, 0, 2)
            )
        );
        let (subnet, _, proxy) = block(pool, 4096 + 3);
        assert_eq!(subnet, "10.213.0.48/28");
        assert_eq!(proxy, Ipv4Addr::new(10, 213, 0, 50));
        let (last, _, _) = block(pool, 4095);
        assert_eq!(last, "10.213.255.240/28");
    }

    #[test]
    fn pools_must_hold_a_block() {
        assert!(parse_pool("10.0.0.0/29").is_err());
        assert!(parse_pool("10.0.0.0").is_err());
        assert!(parse_pool("nonsense/16").is_err());
        assert_eq!(
            parse_pool("10.213.7.9/16").unwrap().0,
            Ipv4Addr::new(10, 213, 0, 0)
        );
    }
}
