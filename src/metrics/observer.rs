//! Feeds the registry from the bus: final results (status, latency), violation events,
//! audit appends and host load reports. Passive: it subscribes, it never publishes, so any
//! process can run it without touching the actors.

use std::sync::{Arc, Mutex};

use futures::StreamExt;

use super::registry::Registry;
use crate::bus::{Bus, BusError};
use crate::protocol::exec::ExecResult;
use crate::protocol::subjects::wildcard;
use crate::protocol::supervisor::{HostLoad, ViolationEvent};
use crate::protocol::{decode, Subject};
use crate::shutdown::Shutdown;

/// Follows the bus until shutdown, counting into `registry`.
pub async fn observe(
    bus: Bus,
    registry: Arc<Mutex<Registry>>,
    mut shutdown: Shutdown,
) -> Result<(), BusError> {
    let mut results = bus.subscribe(wildcard::exec_result_all()).await?;
    let mut violations = bus.subscribe(wildcard::events_violation_all()).await?;
    let mut appends = bus.subscribe(Subject::AuditAppend.to_subject()).await?;
    let mut loads = bus.subscribe(wildcard::host_load_all()).await?;
    let count = |update: &dyn Fn(&mut Registry)| {
        let mut registry = registry
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        update(&mut registry);
    };
    loop {
        tokio::select! {
            Some(message) = results.next() => if let Ok(result) = decode::<ExecResult>(&message.payload) {
                let latency = latency_seconds(result.submitted_at_ms, result.sent_at_ms);
                let status = serde_json::to_value(result.body.status).ok();
                let status = status.as_ref().and_then(|s| s.as_str()).unwrap_or("unknown").to_string();
                count(&|r| r.record_result(&status, latency));
            },
            Some(message) = violations.next() => if let Ok(event) = decode::<ViolationEvent>(&message.payload) {
                count(&|r| r.record_violation(event.body.violation.kind.as_str()));
            },
            Some(_) = appends.next() => count(&|r| r.audit_appends += 1),
            Some(message) = loads.next() => if let Ok(load) = decode::<HostLoad>(&message.payload) {
                count(&|r| { r.containers_running.insert(load.body.host.clone(), load.body.running.len() as u64); });
            },
            _ = shutdown.wait() => return Ok(()),
            else => return Ok(()),
        }
    }
}

fn latency_seconds(submitted_at_ms: u64, sent_at_ms: u64) -> Option<f64> {
    (submitted_at_ms > 0 && sent_at_ms >= submitted_at_ms)
        .then(|| (sent_at_ms - submitted_at_ms) as f64 / 1000.0)
}
