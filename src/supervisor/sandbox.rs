//! `run_program`: one program in one sandbox, from create (or a warm sandbox of the pool)
//! to removal. Every program runs as the one cell of cordon's interpreter runner (see
//! `interpreter`), so every run has the same deadline handling, output caps and runtime
//! record. The container is removed on every path; a `RemovalGuard` covers cancellation
//! of the future. Also the Docker steps every sandbox shares: create under a guard,
//! attach, start, charge socket buffers, settle (how it ended), remove and report.

use std::time::{Duration, Instant};

use bollard::container::AttachContainerResults;
use bollard::errors::Error as BollardError;
use bollard::models::{ContainerCreateBody, ContainerInspectResponse};
use bollard::query_parameters::{
    CreateContainerOptions, InspectContainerOptions, StartContainerOptions,
};
use bollard::Docker;
use tokio::sync::mpsc::{Receiver, Sender};

use super::changes::{read_changes, Layers, OverlayLayers};
use super::ending::{kill, oom_violation, wait_stopped, Ended};
use super::guard::RemovalGuard;
use super::hardening::{container_config, container_name, validate_limits, with_own_uid};
use super::interpreter::{CellLimits, CellOutcome, InterpreterSandbox};
use super::pool::WarmContainer;
use super::runner::{cell_frame, OutputCaps};
use super::spec::{Lifecycle, PackageInstall, SandboxOutcome, SandboxSpec};
use super::SandboxError;
use crate::docker::force_remove;
use crate::docker::is_not_found;
use crate::protocol::exec::Violation;
use crate::protocol::interpreter::CellInput;

/// How long a container still running when its run ended may take to stop after a second kill.
const STOP_WAIT: Duration = Duration::from_secs(10);
/// Lifecycle events are for the audit log, but a receiver that stopped reading must not
/// stall a running sandbox: a send waits at most this long.
const EMIT_WAIT: Duration = Duration::from_secs(1);

/// One program to run: its cell frame (from `runner::cell_frame`), the limits of the cell
/// and, when it asks for some, the packages installed before it.
pub struct Program {
    pub frame: Vec<u8>,
    pub limits: CellLimits,
    pub packages: Option<Packages>,
}

/// What a request asks to install before its code runs.
#[derive(Debug, Clone)]
pub struct Packages {
    pub requirements: Vec<String>,
    pub index: String,
}

/// Runs `program` as the one cell of a runner sandbox, `warm` (one the pool made for this
/// spec's shape) or made for it now, then removes the sandbox. Kill orders arriving on
/// `kills` end the run with their violation; lifecycle events are sent as they happen.
pub async fn run_program(
    docker: &Docker,
    (warm, spec): (Option<WarmContainer>, &SandboxSpec),
    program: Program,
    mut kills: Receiver<Violation>,
    lifecycle: Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    validate_limits(spec)?;
    let was_warm = warm.is_some();
    let mut sandbox = InterpreterSandbox::open(docker, warm, spec, lifecycle).await?;
    let Program {
        frame,
        limits,
        packages,
    } = program;
    let install = match packages {
        Some(Packages {
            requirements,
            index,
        }) => Some(
            sandbox
                .install_packages(&requirements, &index, limits.timeout)
                .await,
        ),
        None => None,
    };
    // The code runs only once its packages are there.
    let cell = match install.as_ref().is_none_or(PackageInstall::succeeded) {
        true => {
            let live = spec.live.clone();
            sandbox.run_cell((frame, live), &limits, &mut kills).await
        }
        false => CellOutcome::default(),
    };
    let container_id = sandbox.container_id().to_string();
    let oom_killed = sandbox.close().await?;
    let mut outcome = sandbox_outcome(container_id, cell);
    // A process of the program the kernel OOM-killed while the runner lived on.
    if oom_killed && outcome.violation.is_none() {
        outcome.oom_killed = true;
        outcome.violation = Some(oom_violation(spec.limits.memory_bytes));
    }
    Ok(SandboxOutcome {
        install,
        warm: was_warm,
        ..outcome
    })
}

/// Runs `code` as a plain program (no files in or out, no stdin, no runtime rules) in a
/// fresh sandbox for `spec`, under its deadline and output caps: the image's smoke test
/// and the sandbox tests' way in.
pub async fn run_sandbox(
    docker: &Docker,
    spec: &SandboxSpec,
    code: &str,
    kills: Receiver<Violation>,
    lifecycle: Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    run_sandbox_warm(docker, None, spec, code, kills, lifecycle).await
}

/// `run_sandbox` in `warm` when there is one.
pub async fn run_sandbox_warm(
    docker: &Docker,
    warm: Option<WarmContainer>,
    spec: &SandboxSpec,
    code: &str,
    kills: Receiver<Violation>,
    lifecycle: Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    let limits = CellLimits::of_program(&spec.limits, Duration::ZERO, OutputCaps::NONE);
    let program = Program {
        frame: cell_frame(code, &CellInput::default(), OutputCaps::NONE),
        limits,
        packages: None,
    };
    run_program(docker, (warm, spec), program, kills, lifecycle).await
}

/// A cell's outcome in the shape every run's result is built from.
pub(crate) fn sandbox_outcome(container_id: String, cell: CellOutcome) -> SandboxOutcome {
    SandboxOutcome {
        container_id,
        exit_code: cell.exit_code,
        oom_killed: cell.oom_killed,
        stdout: cell.stdout,
        stderr: cell.stderr,
        stdout_truncated: cell.stdout_truncated,
        stderr_truncated: cell.stderr_truncated,
        violation: cell.violation,
        wall_ms: cell.usage.wall_ms,
        warm: false,
        lost: cell.lost,
        code_delivered: cell.delivered,
        files: cell.files,
        files_skipped: cell.skipped,
        runtime: cell.runtime,
        install: None,
    }
}

/// Checks the limits, takes the sandbox's uid and creates its container under a
/// `RemovalGuard` (reporting `Created`); returns the container id and the armed guard.
pub(super) async fn create_guarded(
    docker: &Docker,
    spec: &SandboxSpec,
    lifecycle: &Sender<Lifecycle>,
) -> Result<(String, RemovalGuard), SandboxError> {
    validate_limits(spec)?;
    let name = container_name(&spec.request_id);
    let (own, uid) = with_own_uid(spec)?;
    let mut guard = RemovalGuard::new(docker, &name, lifecycle);
    guard.hold(uid);
    let container_id = match create(docker, &spec.image, &name, container_config(&own)).await {
        Ok(id) => id,
        Err(e) => {
            if e.docker_answered() {
                guard.disarm();
            }
            return Err(e);
        }
    };
    guard.created(&container_id);
    let image_id = image_id_of(docker, &container_id).await;
    emit(lifecycle, created_event(spec, &container_id, image_id)).await;
    Ok((container_id, guard))
}

/// Reads the container's filesystem changes (when `record_changes`), removes it, disarms
/// its guard and reports `Removed`; a failed removal leaves the guard armed.
pub(super) async fn remove_reported(
    docker: &Docker,
    mut guard: RemovalGuard,
    (container_id, record_changes): (String, bool),
    layers: Layers,
    lifecycle: &Sender<Lifecycle>,
) -> Result<(), SandboxError> {
    let changes = match record_changes {
        true => Some(read_changes(docker, &container_id, layers).await),
        false => None,
    };
    match force_remove(docker, &container_id).await {
        Ok(()) => {
            guard.disarm();
            let removed = Lifecycle::Removed {
                container_id,
                changes,
            };
            emit(lifecycle, removed).await;
            Ok(())
        }
        Err(source) => Err(SandboxError::Remove {
            container: container_id,
            source,
        }),
    }
}

pub(super) async fn emit(lifecycle: &Sender<Lifecycle>, event: Lifecycle) {
    if let Err(tokio::sync::mpsc::error::SendTimeoutError::Timeout(event)) =
        lifecycle.send_timeout(event, EMIT_WAIT).await
    {
        tracing::warn!(?event, "lifecycle receiver is full; event dropped");
    }
}

pub(super) fn created_event(spec: &SandboxSpec, container_id: &str, image_id: String) -> Lifecycle {
    Lifecycle::Created {
        container_id: container_id.to_string(),
        image: spec.image.clone(),
        image_id,
        runtime: spec.runtime.name().to_string(),
    }
}

/// The id (sha256 digest) of the image a created container runs, for the audit log; a
/// sentence saying why when the engine cannot tell (the run goes on).
pub(super) async fn image_id_of(docker: &Docker, container_id: &str) -> String {
    match inspect(docker, container_id).await {
        Ok(inspected) => inspected
            .image
            .unwrap_or_else(|| "unknown: the engine did not say".into()),
        Err(error) => {
            tracing::warn!(container = container_id, %error, "cannot read a sandbox's image id");
            format!("unknown: {error}")
        }
    }
}

/// Creates a container from `body` under `name`; returns its id.
pub(super) async fn create(
    docker: &Docker,
    image: &str,
    name: &str,
    body: ContainerCreateBody,
) -> Result<String, SandboxError> {
    let options = CreateContainerOptions {
        name: Some(name.to_string()),
        ..Default::default()
    };
    match docker.create_container(Some(options), body).await {
        Ok(created) => Ok(created.id),
        Err(e) if is_not_found(&e) => Err(SandboxError::ImageMissing {
            image: image.to_string(),
        }),
        Err(source) => Err(SandboxError::Create {
            image: image.to_string(),
            source,
        }),
    }
}

pub(super) async fn start(docker: &Docker, container_id: &str) -> Result<(), SandboxError> {
    docker
        .start_container(container_id, None::<StartContainerOptions>)
        .await
        .map_err(|source| SandboxError::Start {
            container: container_id.to_string(),
            source,
        })
}

/// Before any of its code runs: the sandbox's TCP socket buffers count against its memory
/// limit (cgroup v1: capped at it; v2: charged by the kernel), or it does not run. A
/// sandbox that has already stopped has no cgroup left to charge: it runs no code, and the
/// run reports it lost.
pub(super) async fn charge_socket_buffers(
    docker: &Docker,
    container_id: &str,
    spec: &SandboxSpec,
) -> Result<(), SandboxError> {
    let root = std::path::Path::new(crate::cgroup::CGROUP_ROOT);
    let Err(why) = crate::cgroup::charge_tcp_memory(root, container_id, spec.limits.memory_bytes)
    else {
        return Ok(());
    };
    let running = inspect(docker, container_id)
        .await
        .ok()
        .and_then(|inspected| inspected.state?.running);
    match running {
        Some(false) => Ok(()),
        _ => Err(SandboxError::Uncharged {
            container: container_id.to_string(),
            why,
        }),
    }
}

pub(super) async fn attach(
    docker: &Docker,
    container_id: &str,
) -> Result<AttachContainerResults, SandboxError> {
    crate::docker::attach_stdio(docker, container_id)
        .await
        .map_err(|source| SandboxError::Attach {
            container: container_id.to_string(),
            source,
        })
}

/// Makes sure the container has stopped (killing it if its run gave up on it), then
/// reads its exit code, whether the kernel OOM-killed something in it, and (from the same
/// inspection) its overlay directories. Waits out an engine that is restarting.
pub(super) async fn settle(
    docker: &Docker,
    container_id: &str,
) -> Result<(Ended, Option<OverlayLayers>), SandboxError> {
    let Some(inspected) = inspect_patiently(docker, container_id).await? else {
        let lost = Some("the sandbox was removed by something other than cordon".into());
        return Ok((
            Ended {
                lost,
                ..Ended::default()
            },
            None,
        ));
    };
    let layers = OverlayLayers::of(&inspected);
    let mut state = inspected.state.unwrap_or_default();
    let mut lost = None;
    if state.running == Some(true) {
        tracing::warn!(
            container = container_id,
            "sandbox still running after its run ended; killing it"
        );
        lost = Some("cordon lost sight of the sandbox (its output or the engine's wait broke) and killed it".to_string());
        kill(docker, container_id).await;
        let _ = tokio::time::timeout(STOP_WAIT, wait_stopped(docker, container_id)).await;
        state = inspect_patiently(docker, container_id)
            .await?
            .and_then(|inspected| inspected.state)
            .unwrap_or_default();
    }
    let exit_code = match state.running {
        Some(true) => None,
        _ => state.exit_code,
    };
    let ended = Ended {
        exit_code,
        oom_killed: state.oom_killed.unwrap_or(false),
        finished_at: state.finished_at.as_deref().and_then(engine_time),
        lost,
    };
    Ok((ended, layers))
}

/// An RFC 3339 time from the engine; `None` for its zero time (never) or anything odd.
fn engine_time(text: &str) -> Option<std::time::SystemTime> {
    let parsed = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339);
    let parsed: std::time::SystemTime = parsed.ok()?.into();
    (parsed > std::time::UNIX_EPOCH).then_some(parsed)
}

/// How long `inspect_patiently` waits for an engine that does not answer (a restart).
const ENGINE_BACK_WAIT: Duration = Duration::from_secs(60);

/// Inspects `container_id`, retrying while the engine cannot be reached; `None` when the
/// container no longer exists.
async fn inspect_patiently(
    docker: &Docker,
    container_id: &str,
) -> Result<Option<ContainerInspectResponse>, SandboxError> {
    let give_up = Instant::now() + ENGINE_BACK_WAIT;
    let mut pause = Duration::from_millis(100);
    loop {
        match inspect(docker, container_id).await {
            Ok(inspected) => return Ok(Some(inspected)),
            Err(SandboxError::Inspect { source, .. }) if is_not_found(&source) => return Ok(None),
            Err(SandboxError::Inspect { source, .. })
                if !matches!(source, BollardError::DockerResponseServerError { .. })
                    && Instant::now() < give_up =>
            {
                tracing::warn!(
                    container = container_id,
                    "the engine does not answer ({source}); retrying"
                );
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(2));
            }
            Err(error) => return Err(error),
        }
    }
}

pub(super) async fn inspect(
    docker: &Docker,
    container_id: &str,
) -> Result<ContainerInspectResponse, SandboxError> {
    docker
        .inspect_container(container_id, None::<InspectContainerOptions>)
        .await
        .map_err(|source| SandboxError::Inspect {
            container: container_id.to_string(),
            source,
        })
}

impl SandboxError {
    /// Whether Docker itself answered the request (so nothing was half-done behind our back).
    pub(super) fn docker_answered(&self) -> bool {
        match self {
            SandboxError::ImageMissing { .. } | SandboxError::InvalidLimits { .. } => true,
            SandboxError::Create { source, .. } => {
                matches!(source, BollardError::DockerResponseServerError { .. })
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_times_are_read_and_its_zero_time_is_none() {
        let finished = engine_time("2026-11-24T02:10:00.123456789Z").unwrap();
        let since_epoch = finished.duration_since(std::time::UNIX_EPOCH).unwrap();
        assert_eq!(since_epoch.subsec_nanos(), 123_456_789);
        assert_eq!(engine_time("0001-01-01T00:00:00Z"), None);
        assert_eq!(engine_time("yesterday"), None);
    }

    /// Compiles only if the actor can `tokio::spawn` a run.
    #[allow(dead_code)]
    fn a_run_is_send(docker: &Docker, spec: &SandboxSpec, kills: Receiver<Violation>) {
        fn send<T: Send>(_: &T) {}
        let (lifecycle, _) = tokio::sync::mpsc::channel(4);
        send(&run_sandbox(docker, spec, "", kills, lifecycle));
    }
}
