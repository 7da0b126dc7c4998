//! Messages the Scheduler produces: concrete `Limits` and the `Scheduled` hand-off to one
//! host's ContainerSupervisor (`cordon.v1.exec.scheduled.<host>`).

use serde::{Deserialize, Serialize};

use super::assessor::{Assessment, Job};

/// Network access asked for or granted to a sandbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Network {
    /// No interface but loopback.
    #[default]
    None,
    /// Its own internal network whose only peer is cordon's egress proxy.
    Allowlist,
}

impl Network {
    pub fn as_str(&self) -> &'static str {
        match self {
            Network::None => "none",
            Network::Allowlist => "allowlist",
        }
    }

    pub fn parse(text: &str) -> Option<Network> {
        [Network::None, Network::Allowlist]
            .into_iter()
            .find(|n| n.as_str() == text)
    }
}

/// The concrete limits one sandbox runs under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Limits {
    /// CPU quota in cores (may be fractional).
    pub cpus: f64,
    /// Memory, and memory+swap, in bytes.
    pub memory_bytes: u64,
    /// Most processes and threads at once.
    pub pids: u64,
    /// Wall-clock deadline in milliseconds.
    pub timeout_ms: u64,
    pub network: Network,
    /// CPU time budget in milliseconds, summed over all processes.
    pub cpu_time_ms: u64,
    /// Bytes kept of each output stream before the sandbox is killed.
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    /// Size of each tmpfs (/tmp and the working directory).
    pub tmpfs_bytes: u64,
}

/// Scheduler -> ContainerSupervisor of `host`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scheduled {
    pub job: Job,
    pub assessment: Assessment,
    pub limits: Limits,
    pub host: String,
}

/// Scheduler -> a client, answering `cordon.v1.session.list.<client>`: the sessions it
/// holds open on every live host.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionList {
    pub sessions: Vec<super::supervisor::OpenSession>,
}
