//! Messages the ContainerSupervisor produces: its host's `HostLoad`
//! (`cordon.v1.host.load.<host>`), `ContainerStarted` for the ResourceMonitor
//! (`cordon.v1.container.started.<host>`, `cordon.v1.container.exited.<host>`) and `ViolationEvent` (`cordon.v1.events.violation.<client>`).

use serde::{Deserialize, Serialize};

use super::exec::Violation;
use super::scheduler::Limits;

/// One job a host is running, with what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunningJob {
    pub request_id: String,
    pub cpus: f64,
    pub memory_bytes: u64,
    /// The client the job is for (the Scheduler shares a host's slots fairly by it).
    #[serde(default)]
    pub client: String,
}

/// What a host has and what it runs; sent on every change and every second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLoad {
    pub host: String,
    /// The supervisor process reporting (several may serve one host id): the Scheduler
    /// adds up the jobs of every live one.
    #[serde(default)]
    pub instance: String,
    pub cpus_total: f64,
    pub memory_total_bytes: u64,
    pub max_jobs: u32,
    pub running: Vec<RunningJob>,
    /// Sessions open on this instance (each holds its memory while open).
    #[serde(default)]
    pub sessions: Vec<OpenSession>,
}

/// A session a host holds open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OpenSession {
    pub session_id: String,
    pub client: String,
    pub memory_bytes: u64,
}

/// A sandbox began running; the ResourceMonitor starts following it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContainerStarted {
    pub container_id: String,
    pub limits: Limits,
}

/// A sandbox was killed for breaking a limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViolationEvent {
    pub host: String,
    pub container_id: String,
    pub violation: Violation,
}

/// A sandbox ended; the ResourceMonitor sends its last sample at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContainerExited {
    pub container_id: String,
}
