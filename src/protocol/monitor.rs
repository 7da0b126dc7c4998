//! Messages the ResourceMonitor produces: `UsageSample`s
//! (`cordon.v1.container.usage.<request_id>`) and `KillOrder`s for the supervisor of the
//! container's host (`cordon.v1.container.kill.<host>`).

use serde::{Deserialize, Serialize};

use super::exec::Violation;

/// Usage of one sandbox, with peaks since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageSample {
    pub container_id: String,
    pub cpu_ms: u64,
    pub memory_bytes: u64,
    pub peak_memory_bytes: u64,
    pub pids: u64,
    pub peak_pids: u64,
    /// Set on the last sample, sent when the container is gone.
    #[serde(default)]
    pub last: bool,
}

/// Kill this sandbox: it broke a limit the monitor saw first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KillOrder {
    pub container_id: String,
    pub violation: Violation,
}
