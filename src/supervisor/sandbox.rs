//! `run_sandbox`: one program in one fresh container, from create to removal. Checks the
//! limits, creates, attaches before start (so no output is missed), starts, hands the
//! running container to `Watch`, inspects how it ended, and removes it. The container is
//! removed on every path; a `RemovalGuard` covers cancellation of the future.
//! `run_sandbox_warm` does the same from a warm sandbox the pool made earlier (created,
//! attached and started the same way): only the feeding, watching and removal remain, and
//! the deadline counts from when the code is fed.

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
use super::guard::RemovalGuard;
use super::hardening::{container_config, container_name, validate_limits, with_own_uid};
use super::pool::WarmContainer;
use super::spec::{Lifecycle, SandboxOutcome, SandboxSpec};
use super::watch::{kill, wait_stopped, Ended, Watch};
use super::SandboxError;
use crate::docker::force_remove;
use crate::docker::is_not_found;
use crate::protocol::exec::Violation;

/// How long a container that outlived its watch may take to stop after a second kill.
const STOP_WAIT: Duration = Duration::from_secs(10);
/// Lifecycle events are for the audit log, but a receiver that stopped reading must not
/// stall a running sandbox: a send waits at most this long.
const EMIT_WAIT: Duration = Duration::from_secs(1);

/// Runs `code` in one fresh container and removes the container on every path (including
/// cancellation of this future). Kill orders arriving on `kills` end the run with their
/// violation; lifecycle events are sent as they happen (send errors are ignored).
pub async fn run_sandbox(
    docker: &Docker,
    spec: &SandboxSpec,
    code: &str,
    mut kills: Receiver<Violation>,
    lifecycle: Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    let (container_id, guard) = create_guarded(docker, spec, &lifecycle).await?;
    let ran = supervise(docker, spec, &container_id, code, &mut kills, &lifecycle).await;
    let record = spec.record_fs_changes;
    remove_after_run(docker, guard, (container_id, record), ran, &lifecycle).await
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

/// Runs `code` in `warm` (a sandbox of the pool, made for this spec's shape), or in a
/// fresh cold one when there is none. Same guarantees as `run_sandbox`; the outcome says
/// which path ran.
pub async fn run_sandbox_warm(
    docker: &Docker,
    warm: Option<WarmContainer>,
    spec: &SandboxSpec,
    code: &str,
    mut kills: Receiver<Violation>,
    lifecycle: Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    let Some(warm) = warm else {
        return run_sandbox(docker, spec, code, kills, lifecycle).await;
    };
    // An invalid spec drops `warm` here, and its guard removes it.
    validate_limits(spec)?;
    let (container_id, image_id, streams, mut guard) = warm.into_parts();
    guard.report_to(&lifecycle);
    emit(&lifecycle, created_event(spec, &container_id, image_id)).await;
    let started = Instant::now();
    let ran = watch_to_end(
        docker,
        spec,
        &container_id,
        (streams, code),
        &mut kills,
        &lifecycle,
        started,
    )
    .await
    .map(|ran| Ran {
        outcome: SandboxOutcome {
            warm: true,
            ..ran.outcome
        },
        ..ran
    });
    let record = spec.record_fs_changes;
    remove_after_run(docker, guard, (container_id, record), ran, &lifecycle).await
}

/// Reads the container's filesystem changes (when `record_changes`), removes it and
/// reports both; a failed removal leaves the guard armed (it tries once more when dropped)
/// and turns the outcome into an error.
async fn remove_after_run(
    docker: &Docker,
    guard: RemovalGuard,
    (container_id, record_changes): (String, bool),
    ran: Result<Ran, SandboxError>,
    lifecycle: &Sender<Lifecycle>,
) -> Result<SandboxOutcome, SandboxError> {
    let (outcome, layers) = match ran {
        Ok(Ran { outcome, layers }) => (Ok(outcome), Layers::Inspected(layers)),
        Err(e) => (Err(e), Layers::NotInspected),
    };
    let removed = remove_reported(
        docker,
        guard,
        (container_id, record_changes),
        layers,
        lifecycle,
    );
    match removed.await {
        Ok(()) => outcome,
        Err(error) => outcome.and(Err(error)),
    }
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
        runtime: spec.runtime.clone(),
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

/// Attach, start, watch, and read how it ended.
async fn supervise(
    docker: &Docker,
    spec: &SandboxSpec,
    container_id: &str,
    code: &str,
    kills: &mut Receiver<Violation>,
    lifecycle: &Sender<Lifecycle>,
) -> Result<Ran, SandboxError> {
    let streams = attach(docker, container_id).await?;
    start(docker, container_id).await?;
    let started = Instant::now();
    let input = (streams, code);
    watch_to_end(docker, spec, container_id, input, kills, lifecycle, started).await
}

/// How a run ended, and the container's overlay directories read by the same inspection
/// (for its filesystem changes, read before removal).
struct Ran {
    outcome: SandboxOutcome,
    layers: Option<OverlayLayers>,
}

/// From `started` (when the code begins to go in): reports `Started`, feeds and watches
/// the running container, reads how it ended and reports `Exited`.
async fn watch_to_end(
    docker: &Docker,
    spec: &SandboxSpec,
    container_id: &str,
    (streams, code): (AttachContainerResults, &str),
    kills: &mut Receiver<Violation>,
    lifecycle: &Sender<Lifecycle>,
    started: Instant,
) -> Result<Ran, SandboxError> {
    let container = container_id.to_string();
    emit(
        lifecycle,
        Lifecycle::Started {
            container_id: container.clone(),
        },
    )
    .await;
    charge_socket_buffers(docker, container_id, spec).await?;
    let mut watch = Watch::new(docker, container_id, spec);
    watch.run(streams, code, kills, started).await;
    let (ended, layers) = settle(docker, container_id).await?;
    let exited = Lifecycle::Exited {
        container_id: container,
        exit_code: ended.exit_code,
        oom_killed: ended.oom_killed,
    };
    emit(lifecycle, exited).await;
    let outcome = watch.into_outcome(started, ended);
    Ok(Ran { outcome, layers })
}

/// Before any of its code runs: the sandbox's TCP socket buffers count against its memory
/// limit (cgroup v1: capped at it; v2: charged by the kernel), or it does not run. A
/// sandbox that has already stopped has no cgroup left to charge: it runs no code, and the
/// watch reports it lost.
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

/// Makes sure the container has stopped (killing it if the watch gave up on it), then
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
            "sandbox still running after the watch; killing it"
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
