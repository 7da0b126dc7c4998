//! What a sandbox run takes and gives: the `SandboxSpec` the actor builds from a scheduled
//! job and the settings, the `Lifecycle` events emitted while it runs (the actor turns
//! them into audit records), and the `SandboxOutcome` it ends with.

use crate::protocol::exec::Violation;
use crate::protocol::scheduler::Limits;

/// Everything needed to start one sandbox.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxSpec {
    /// The request this sandbox runs; goes into the container's name and labels.
    pub request_id: String,
    /// This host's id; labels the container so the reaper on this host finds it.
    pub host_id: String,
    /// The supervisor instance that makes the container (see `owner`).
    pub owner: crate::owner::OwnerTag,
    pub image: String,
    /// The OCI runtime it runs on.
    pub runtime: crate::docker::runtime::SandboxRuntime,
    /// `uid:gid` the program runs as, or `auto` for one of its own from `uids`.
    pub user: String,
    /// Where `auto` uids come from; `None` when `user` is fixed.
    pub uids: Option<super::uids::UidRange>,
    /// The program's working directory and `HOME` (a tmpfs).
    pub workdir: String,
    pub limits: Limits,
    /// RLIMIT_NOFILE.
    pub nofile: u64,
    /// RLIMIT_FSIZE, bytes.
    pub fsize_bytes: u64,
    /// For `network: allowlist`: the request's own network and its proxy. `None`: no
    /// network at all.
    pub egress: Option<SandboxEgress>,
    /// Read `docker diff` before removal, for the audit log (`sandbox.record_fs_changes`).
    pub record_fs_changes: bool,
    /// Mount `PACKAGES_DIR`: a tmpfs owned by root (the program reads and imports from it,
    /// cannot write it) where a request's packages are installed before its code runs.
    pub packages_dir: bool,
    /// Where output goes as it arrives, for clients that follow a run live.
    pub live: Option<LiveOutput>,
}

/// A tap on a run's output: each chunk kept under the caps is also sent here as it
/// arrives (`true`: stderr). Best effort: a full tap drops the chunk (the result and the
/// audit log keep everything; chunks are numbered so a gap shows).
#[derive(Debug, Clone)]
pub struct LiveOutput(pub tokio::sync::mpsc::Sender<(bool, Vec<u8>)>);

impl LiveOutput {
    pub fn send(&self, stderr: bool, bytes: &[u8]) {
        if !bytes.is_empty() {
            let _ = self.0.try_send((stderr, bytes.to_vec()));
        }
    }
}

/// Specs compare by what they make; where their output also goes does not count.
impl PartialEq for LiveOutput {
    fn eq(&self, _: &LiveOutput) -> bool {
        true
    }
}

/// Where a request's packages are installed, in the sandbox.
pub const PACKAGES_DIR: &str = "/packages";

/// Where an allowlist sandbox is attached and which proxy its environment names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxEgress {
    /// The request's internal Docker network.
    pub network: String,
    /// `http://<proxy address>:<port>`.
    pub proxy_url: String,
    /// The sandbox's only upstream name server: the proxy's DNS responder, which answers
    /// every name NXDOMAIN and forwards nothing.
    pub dns_server: String,
}

/// A step in the container's life, sent as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lifecycle {
    Created {
        container_id: String,
        /// What it runs: the image as named, the image id the engine resolved it to (its
        /// sha256 digest), and the OCI runtime.
        image: String,
        image_id: String,
        runtime: String,
    },
    Started {
        container_id: String,
    },
    Exited {
        container_id: String,
        exit_code: Option<i64>,
        oom_killed: bool,
    },
    Removed {
        container_id: String,
        /// What `docker diff` said just before removal; `None` when it could not be read.
        changes: Option<crate::protocol::audit::FsChanges>,
    },
}

/// How one sandbox run ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxOutcome {
    pub container_id: String,
    /// The container's exit code (137 when it was killed).
    pub exit_code: Option<i64>,
    pub oom_killed: bool,
    /// At most `limits.stdout_bytes`, raw bytes (may be invalid UTF-8).
    pub stdout: Vec<u8>,
    /// At most `limits.stderr_bytes`, raw bytes.
    pub stderr: Vec<u8>,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    /// The first limit broken, if any.
    pub violation: Option<Violation>,
    /// From start to exit, milliseconds (for a warm sandbox: from when its code was fed).
    pub wall_ms: u64,
    /// Whether a warm sandbox of the pool ran it (false: created for this job).
    pub warm: bool,
    /// Set when the sandbox ended for a reason cordon did not cause (killed or removed
    /// from outside, the engine restarted): what was seen. Such a run is never reported
    /// `completed`.
    pub lost: Option<String>,
    /// Whether the whole program reached the sandbox before it ended. A sandbox lost before
    /// that never ran the program, and its job may run again.
    pub code_delivered: bool,
    /// What an interpreter run returned: files under `./outputs/` and figures (always
    /// empty for a plain program), and those left out over a cap.
    pub files: Vec<super::runner::RunnerFile>,
    pub files_skipped: Vec<crate::protocol::interpreter::SkippedFile>,
    /// The runtime record of an interpreter run (`None` for a plain program).
    pub runtime: Option<RecordedRun>,
    /// How the request's packages were installed, when it listed some.
    pub install: Option<PackageInstall>,
}

/// A request's package install, before its code ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageInstall {
    pub requirements: Vec<String>,
    pub index: String,
    /// pip's exit code (`None`: it could not be run or did not end in time).
    pub exit_code: Option<i64>,
    /// pip's output, its last `INSTALL_OUTPUT_BYTES` at most.
    pub output: String,
    pub took_ms: u64,
}

impl PackageInstall {
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// A run's runtime record: each distinct event, and how many were not kept.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordedRun {
    pub events: Vec<crate::protocol::interpreter::RuntimeEvent>,
    pub dropped: u64,
}
