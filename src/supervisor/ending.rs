//! How a sandbox is ended and what its end means: SIGKILL through its init's pidfd or the
//! Docker API, waiting for it to stop, and the violations and losses read from how it
//! ended (out of memory, a full scratch space, a kill cordon did not send). Shared by
//! every sandbox (see `interpreter`).

use std::time::{Instant, SystemTime};

use bollard::errors::Error as BollardError;
use bollard::query_parameters::{KillContainerOptions, WaitContainerOptions};
use bollard::Docker;
use futures::StreamExt;

use super::init_process::SandboxInit;
use super::output::died_of_full_disk;
use crate::docker::{is_conflict, is_not_found};
use crate::protocol::exec::{Violation, ViolationKind};

/// How a container ended, as the engine tells it.
#[derive(Debug, Default)]
pub struct Ended {
    pub exit_code: Option<i64>,
    pub oom_killed: bool,
    /// When the engine says it stopped (`None`: not known).
    pub finished_at: Option<SystemTime>,
    /// Set when the container was not there to ask, or had to be killed by cordon after
    /// cordon lost sight of it while it ran.
    pub lost: Option<String>,
}

/// The kernel's OOM killer ended a process of the sandbox at its memory limit.
pub(super) fn oom_violation(memory_bytes: u64) -> Violation {
    let detail =
        format!("ran out of memory at its limit of {memory_bytes} bytes and the kernel killed it");
    violation(ViolationKind::Memory, detail)
}

/// A program that exited non-zero saying it ran out of scratch space (see
/// `died_of_full_disk`).
pub(super) fn full_disk_violation(
    exit_code: Option<i64>,
    stderr: &[u8],
    tmpfs_bytes: u64,
) -> Option<Violation> {
    died_of_full_disk(exit_code, stderr).then(|| {
        let detail = format!(
            "ran out of scratch space (tmpfs of {tmpfs_bytes} bytes, or the file size limit), as its own error output says"
        );
        violation(ViolationKind::Disk, detail)
    })
}

/// SIGKILLs a sandbox, which takes every process in it down: through its init's pidfd
/// when there is one (one syscall), else through the Docker API, not awaited (Docker
/// answers only once the container has stopped, and it stops only once its output is
/// drained, which the caller must keep doing).
pub(super) fn kill_sandbox(init: Option<&SandboxInit>, docker: &Docker, container_id: &str) {
    if let Some(init) = init {
        match init.kill() {
            Ok(()) => return,
            Err(e) => tracing::debug!(container = container_id, "pidfd kill failed: {e}"),
        }
    }
    let (docker, container_id) = (docker.clone(), container_id.to_string());
    tokio::spawn(async move { kill(&docker, &container_id).await });
}

/// A sandbox cordon did not kill that died of SIGKILL or SIGTERM (its init's exit code is
/// 128 + the signal): an operator, the Docker engine or the kernel's OOM killer outside the
/// limit ended it. A program that exits with 137 or 143 of its own accord reads the same.
pub(super) fn killed_from_outside(exit_code: Option<i64>) -> Option<String> {
    let signal = match exit_code? {
        137 => "SIGKILL",
        143 => "SIGTERM",
        _ => return None,
    };
    Some(format!(
        "the sandbox was ended by {signal} (exit code {}), which cordon did not send: \
         killed from outside (an operator, the Docker engine, or the kernel's OOM killer \
         outside the sandbox's limit), or by the program signalling its own sandbox's \
         processes",
        exit_code.unwrap_or_default()
    ))
}

pub(super) fn violation(kind: ViolationKind, detail: String) -> Violation {
    Violation { kind, detail }
}

/// Resolves once Docker reports the container not running (a non-zero exit arrives as an
/// error, and counts). If the wait itself fails, it never resolves: the deadline and kill
/// orders still end the run, and the caller inspects the container afterwards.
pub async fn wait_stopped(docker: &Docker, container_id: &str) {
    let options = WaitContainerOptions {
        condition: "not-running".to_string(),
    };
    match docker
        .wait_container(container_id, Some(options))
        .next()
        .await
    {
        Some(Ok(_)) | Some(Err(BollardError::DockerContainerWaitError { .. })) => {}
        Some(Err(e)) => {
            tracing::warn!(container = container_id, "cannot wait for sandbox: {e}");
            std::future::pending().await
        }
        None => std::future::pending().await,
    }
}

/// Sends SIGKILL to the container's init, which takes every process in it down.
pub async fn kill(docker: &Docker, container_id: &str) {
    let options = KillContainerOptions {
        signal: "SIGKILL".to_string(),
    };
    match docker.kill_container(container_id, Some(options)).await {
        Ok(()) => {}
        // Not running any more, or already gone: nothing left to kill.
        Err(e) if is_conflict(&e) || is_not_found(&e) => {}
        Err(e) => tracing::warn!(container = container_id, "cannot kill sandbox: {e}"),
    }
}

pub(super) async fn sleep_until_or_never(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_deaths_by_sigkill_or_sigterm_read_as_killed_from_outside() {
        assert!(killed_from_outside(Some(137)).unwrap().contains("SIGKILL"));
        assert!(killed_from_outside(Some(143)).unwrap().contains("SIGTERM"));
        for ended_on_its_own in [Some(0), Some(1), Some(2), Some(139), None] {
            assert_eq!(killed_from_outside(ended_on_its_own), None);
        }
    }
}
