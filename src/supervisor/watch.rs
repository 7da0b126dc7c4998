//! `Watch`: the running part of a sandbox. Feeds the code to stdin, reads both output
//! streams under their caps, enforces the wall-clock deadline and kill orders with SIGKILL
//! (first violation wins), and ends when Docker reports the container stopped and its
//! output is drained. Kills go straight to the sandbox's init through a pidfd when this
//! process can see it (see `init_process`), through the Docker API otherwise. Called by
//! `sandbox::supervise` between start and inspect.

use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use bollard::container::{AttachContainerResults, LogOutput};
use bollard::errors::Error as BollardError;
use bollard::query_parameters::{KillContainerOptions, WaitContainerOptions};
use bollard::Docker;
use futures::StreamExt;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc::Receiver;

use super::init_process::SandboxInit;
use super::output::{died_of_full_disk, CappedOutput};
use super::spec::{LiveOutput, SandboxOutcome, SandboxSpec};
use crate::docker::{is_conflict, is_not_found};
use crate::protocol::exec::{Violation, ViolationKind};

/// How long a killed container may take to stop before the watch gives up on it (the
/// caller then kills it again and force-removes it).
const KILL_GRACE: Duration = Duration::from_secs(5);
/// How long output may keep arriving after Docker reported the container stopped.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

pub struct Watch<'a> {
    docker: &'a Docker,
    container_id: &'a str,
    timeout: Duration,
    stdout: CappedOutput,
    stderr: CappedOutput,
    violation: Option<Violation>,
    killed_at: Option<Instant>,
    stopped_at: Option<Instant>,
    /// The sandbox's init, once found; `None` until then or where it cannot be seen.
    init: Option<Arc<SandboxInit>>,
    /// When the init exited: every process of the program is gone from then on.
    init_exited_at: Option<Instant>,
    tmpfs_bytes: u64,
    memory_bytes: u64,
    /// When the code had been written whole and stdin closed.
    fed_at: Option<SystemTime>,
    live: Option<LiveOutput>,
}

/// How a container ended, as the engine tells it after the watch.
#[derive(Debug, Default)]
pub struct Ended {
    pub exit_code: Option<i64>,
    pub oom_killed: bool,
    /// When the engine says it stopped (`None`: not known).
    pub finished_at: Option<SystemTime>,
    /// Set when the container was not there to ask, or had to be killed by cordon after
    /// the watch lost sight of it.
    pub lost: Option<String>,
}

impl<'a> Watch<'a> {
    pub fn new(docker: &'a Docker, container_id: &'a str, spec: &SandboxSpec) -> Self {
        let limits = &spec.limits;
        Watch {
            docker,
            container_id,
            timeout: Duration::from_millis(limits.timeout_ms),
            stdout: CappedOutput::new(limits.stdout_bytes),
            stderr: CappedOutput::new(limits.stderr_bytes),
            violation: None,
            killed_at: None,
            stopped_at: None,
            init: None,
            init_exited_at: None,
            tmpfs_bytes: limits.tmpfs_bytes,
            memory_bytes: limits.memory_bytes,
            fed_at: None,
            live: spec.live.clone(),
        }
    }

    /// Watches from `started` until the container has stopped and its output ended (or a
    /// grace period ran out). The deadline and kill orders hold all along, even after a
    /// program closed its own output.
    pub async fn run(
        &mut self,
        streams: AttachContainerResults,
        code: &str,
        kills: &mut Receiver<Violation>,
        started: Instant,
    ) {
        let AttachContainerResults { mut output, input } = streams;
        let feed = feed_stdin(input, code);
        let stopped = wait_stopped(self.docker, self.container_id);
        let deadline = tokio::time::sleep_until(deadline_after(started, self.timeout).into());
        let find_init = SandboxInit::find(self.docker, self.container_id);
        tokio::pin!(feed, stopped, deadline, find_init);
        let (mut feeding, mut output_open, mut orders_open) = (true, true, true);
        let mut finding_init = true;
        // Over when the output has ended and the container has stopped, as Docker says or,
        // sooner (or when Docker cannot be asked), as the exit of its init shows.
        while output_open || (self.stopped_at.is_none() && self.init_exited_at.is_none()) {
            tokio::select! {
                written = &mut feed, if feeding => {
                    feeding = false;
                    self.fed_at = written.then(SystemTime::now);
                }
                init = &mut find_init, if finding_init => {
                    finding_init = false;
                    self.on_init_found(init);
                }
                () = init_exited(self.init.clone()), if self.init_exited_at.is_none() => {
                    self.init_exited_at = Some(Instant::now());
                }
                frame = output.next(), if output_open => match frame {
                    Some(Ok(frame)) => self.on_output(frame),
                    Some(Err(e)) => {
                        tracing::warn!(container = self.container_id, "sandbox output broke: {e}");
                        output_open = false;
                    }
                    None => output_open = false,
                },
                () = &mut stopped, if self.stopped_at.is_none() => self.stopped_at = Some(Instant::now()),
                () = &mut deadline, if self.violation.is_none() => self.on_deadline(),
                order = kills.recv(), if orders_open => match order {
                    Some(violation) => self.kill_for(violation),
                    None => orders_open = false,
                },
                () = sleep_until_or_never(self.give_up_at()) => {
                    tracing::warn!(container = self.container_id, "sandbox did not finish within its grace period");
                    break;
                }
            }
        }
    }

    /// When to stop waiting: output still flowing after the stop, or a kill not landing.
    fn give_up_at(&self) -> Option<Instant> {
        let drained_by = self.stopped_at.map(|at| at + DRAIN_GRACE);
        let killed_by = self.killed_at.map(|at| at + KILL_GRACE);
        drained_by.or(killed_by)
    }

    /// Keeps the init for kills; a kill ordered before it was found is repeated on it.
    fn on_init_found(&mut self, init: Option<SandboxInit>) {
        self.init = init.map(Arc::new);
        if let (Some(init), Some(_)) = (&self.init, &self.violation) {
            let _ = init.kill();
        }
    }

    fn on_output(&mut self, frame: LogOutput) {
        let (buffer, name, message) = match frame {
            LogOutput::StdOut { message } => (&mut self.stdout, "stdout", message),
            LogOutput::StdErr { message } => (&mut self.stderr, "stderr", message),
            LogOutput::StdIn { .. } | LogOutput::Console { .. } => return,
        };
        if buffer.push_live(&message, self.live.as_ref(), name == "stderr") {
            let detail = format!("{name} passed its cap of {} bytes", buffer.len());
            self.kill_for(violation(ViolationKind::Output, detail));
        }
    }

    fn on_deadline(&mut self) {
        let detail = format!(
            "ran past its wall-clock deadline of {} ms",
            self.timeout.as_millis()
        );
        self.kill_for(violation(ViolationKind::Timeout, detail));
    }

    /// Kills the container for `violation`, unless an earlier violation already did.
    fn kill_for(&mut self, violation: Violation) {
        let ended = self.stopped_at.is_some() || self.init_exited_at.is_some();
        if self.violation.is_some() || ended {
            return;
        }
        tracing::info!(
            container = self.container_id,
            kind = violation.kind.as_str(),
            "killing sandbox: {}",
            violation.detail
        );
        self.violation = Some(violation);
        self.killed_at = Some(Instant::now());
        kill_sandbox(self.init.as_deref(), self.docker, self.container_id);
    }

    /// The outcome, once the container's exit code and OOM flag are known (and, from the
    /// inspection, whether it was lost). `started` is when the code began to go in (a cold
    /// container's start).
    pub fn into_outcome(mut self, started: Instant, ended: Ended) -> SandboxOutcome {
        let Ended {
            exit_code,
            oom_killed,
            finished_at,
            lost,
        } = ended;
        if self.violation.is_none() {
            self.violation = self.violation_seen_after_exit(exit_code, oom_killed);
        }
        let lost = match &self.violation {
            Some(_) => None,
            None => lost.or_else(|| killed_from_outside(exit_code)),
        };
        // The program ended when its last process did, which the init's exit shows before
        // Docker has finished its own bookkeeping.
        let ended = match (self.init_exited_at, self.stopped_at) {
            (Some(exited), Some(stopped)) => exited.min(stopped),
            (exited, stopped) => exited.or(stopped).unwrap_or_else(Instant::now),
        };
        SandboxOutcome {
            container_id: self.container_id.to_string(),
            exit_code,
            oom_killed,
            stdout_truncated: self.stdout.truncated(),
            stderr_truncated: self.stderr.truncated(),
            stdout: self.stdout.into_bytes(),
            stderr: self.stderr.into_bytes(),
            violation: self.violation,
            wall_ms: ended.duration_since(started).as_millis() as u64,
            warm: false,
            lost,
            code_delivered: delivered(self.fed_at, finished_at),
            files: Vec::new(),
            files_skipped: Vec::new(),
            runtime: None,
            install: None,
        }
    }

    /// Limits that only show once the program has ended: memory (Docker's OOMKilled) and
    /// disk (read from the program's own error message; see `died_of_full_disk`).
    fn violation_seen_after_exit(
        &self,
        exit_code: Option<i64>,
        oom_killed: bool,
    ) -> Option<Violation> {
        match oom_killed {
            true => Some(oom_violation(self.memory_bytes)),
            false => full_disk_violation(exit_code, self.stderr.as_bytes(), self.tmpfs_bytes),
        }
    }
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

/// Whether the program can have run: its code was written whole, and the container had
/// not stopped before that (a write into a dead container's stdin still succeeds; Python
/// sees the end of its input only after the write, so a container that stopped earlier
/// never ran the code).
fn delivered(fed_at: Option<SystemTime>, finished_at: Option<SystemTime>) -> bool {
    match (fed_at, finished_at) {
        (None, _) => false,
        (Some(fed), Some(finished)) => finished >= fed,
        (Some(_), None) => true,
    }
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
         outside the sandbox's limit)",
        exit_code.unwrap_or_default()
    ))
}

/// `started + timeout`, or a year away when that overflows (a timeout that large is
/// effectively none, but must not panic).
fn deadline_after(started: Instant, timeout: Duration) -> Instant {
    started
        .checked_add(timeout)
        .unwrap_or_else(|| started + Duration::from_secs(365 * 24 * 3600))
}

pub(super) fn violation(kind: ViolationKind, detail: String) -> Violation {
    Violation { kind, detail }
}

/// Writes the program to the container's stdin, then closes it so Python sees EOF; true
/// when both succeeded. A write error means the program is already gone; its end is
/// observed elsewhere.
async fn feed_stdin(mut input: Pin<Box<dyn AsyncWrite + Send>>, code: &str) -> bool {
    if let Err(e) = input.write_all(code.as_bytes()).await {
        tracing::debug!("sandbox stdin closed early: {e}");
        let _ = input.shutdown().await;
        return false;
    }
    input.shutdown().await.is_ok()
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

/// Resolves when `init` has exited; never when there is no init to watch.
async fn init_exited(init: Option<Arc<SandboxInit>>) {
    match init {
        Some(init) => init.exited().await,
        None => std::future::pending().await,
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
    fn code_counts_as_delivered_only_if_the_container_outlived_the_write() {
        let fed = SystemTime::now();
        let earlier = fed - Duration::from_millis(5);
        let later = fed + Duration::from_millis(5);
        assert!(!delivered(None, Some(later)), "never written whole");
        assert!(
            !delivered(Some(fed), Some(earlier)),
            "dead before the write ended"
        );
        assert!(delivered(Some(fed), Some(later)));
        assert!(
            delivered(Some(fed), None),
            "unknown end: assume it may have run"
        );
    }

    #[test]
    fn only_deaths_by_sigkill_or_sigterm_read_as_killed_from_outside() {
        assert!(killed_from_outside(Some(137)).unwrap().contains("SIGKILL"));
        assert!(killed_from_outside(Some(143)).unwrap().contains("SIGTERM"));
        for ended_on_its_own in [Some(0), Some(1), Some(2), Some(139), None] {
            assert_eq!(killed_from_outside(ended_on_its_own), None);
        }
    }
}
