//! Runs a short program in a real, hardened sandbox of an image (the supervisor's own
//! `run_sandbox`, no network) and returns what it printed: the build's smoke test and
//! `cordon image inspect` both look into an image this way, so what they see is what a
//! job would see.

use bollard::Docker;

use crate::config::SandboxSettings;
use crate::docker::runtime::SandboxRuntime;
use crate::protocol::scheduler::{Limits, Network};
use crate::supervisor::{run_sandbox, SandboxError, SandboxSpec};

/// Why a probe told nothing.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error("exit {exit_code:?}{violation}, stderr: {stderr}")]
    Failed {
        exit_code: Option<i64>,
        violation: String,
        stderr: String,
    },
}

/// Limits roomy enough to import the data image's libraries (scipy, pandas, matplotlib
/// and scikit-learn together need about 150 MB).
fn probe_limits() -> Limits {
    Limits {
        cpus: 1.0,
        memory_bytes: 512 << 20,
        pids: 32,
        timeout_ms: 60_000,
        network: Network::None,
        cpu_time_ms: 60_000,
        stdout_bytes: 1 << 20,
        stderr_bytes: 64 << 10,
        tmpfs_bytes: 16 << 20,
    }
}

fn probe_spec(
    settings: &SandboxSettings,
    runtime: SandboxRuntime,
    image: &str,
    purpose: &str,
) -> SandboxSpec {
    let owner_dir = crate::owner::default_owner_dir();
    SandboxSpec {
        request_id: purpose.to_string(),
        host_id: purpose.to_string(),
        owner: crate::owner::OwnerTag::unlocked(purpose),
        uids: crate::supervisor::uids::range_of(settings, &owner_dir),
        image: image.to_string(),
        runtime,
        user: settings.user.clone(),
        workdir: settings.workdir.clone(),
        limits: probe_limits(),
        nofile: 64,
        fsize_bytes: 16 << 20,
        egress: None,
        record_fs_changes: false,
        packages_dir: false,
        live: None,
    }
}

/// Runs `code` in a sandbox of `image` labelled with `purpose` (a host id no supervisor
/// uses), on the default runtime; returns its stdout when it exits 0.
pub(crate) async fn run(
    docker: &Docker,
    settings: &SandboxSettings,
    image: &str,
    purpose_and_code: (&str, &str),
) -> Result<Vec<u8>, ProbeError> {
    run_on(docker, settings, settings.runtime, image, purpose_and_code).await
}

/// `run`, on `runtime`.
pub(crate) async fn run_on(
    docker: &Docker,
    settings: &SandboxSettings,
    runtime: SandboxRuntime,
    image: &str,
    (purpose, code): (&str, &str),
) -> Result<Vec<u8>, ProbeError> {
    let spec = probe_spec(settings, runtime, image, purpose);
    let (_orders, kills) = tokio::sync::mpsc::channel(1);
    let (lifecycle, _events) = tokio::sync::mpsc::channel(8);
    let outcome = run_sandbox(docker, &spec, code, kills, lifecycle).await?;
    if outcome.exit_code == Some(0) && outcome.violation.is_none() {
        return Ok(outcome.stdout);
    }
    Err(ProbeError::Failed {
        exit_code: outcome.exit_code,
        violation: outcome
            .violation
            .map(|v| format!(" ({}: {})", v.kind.as_str(), v.detail))
            .unwrap_or_default(),
        stderr: String::from_utf8_lossy(&outcome.stderr).into_owned(),
    })
}
