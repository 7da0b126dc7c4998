//! Metrics: each cordon process can serve a Prometheus `/metrics` endpoint (`[metrics]
//! listen`) with jobs by status, violations by kind, request latency, audit appends,
//! sandboxes running per host and queue depths, observed from the bus.

pub mod http;
pub mod observer;
pub mod registry;

use std::sync::{Arc, Mutex};

use crate::bus::Bus;
use crate::shutdown::Shutdown;

/// Starts the observer and the endpoint on `listen`; returns the address it listens on.
pub async fn start(
    bus: &Bus,
    listen: &str,
    shutdown: &Shutdown,
) -> std::io::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let address = listener.local_addr()?;
    let registry = Arc::new(Mutex::new(registry::Registry::default()));
    let observed = observer::observe(bus.clone(), registry.clone(), shutdown.clone());
    tokio::spawn(async move {
        if let Err(error) = observed.await {
            tracing::warn!(%error, "metrics observer stopped");
        }
    });
    tokio::spawn(http::serve(
        listener,
        bus.clone(),
        registry,
        shutdown.clone(),
    ));
    Ok(address)
}
