//! `WarmContainer`: one sandbox made ahead of its job, exactly as `run_sandbox` makes a
//! cold one (same create request but for its labels, attached before start so no output
//! is missed), already started with the interpreter blocked reading its program from
//! stdin. It is owned by the pool until one job takes it, then by that job's run, and is
//! never given to a second job. Its `RemovalGuard` removes it whenever it is dropped unused.

use std::time::Instant;

use bollard::container::AttachContainerResults;
use bollard::Docker;
use futures::{FutureExt, StreamExt};

use crate::supervisor::guard::RemovalGuard;
use crate::supervisor::hardening::{
    container_name, validate_limits, warm_container_config, with_own_uid, WARM_REQUEST_ID,
};
use crate::supervisor::sandbox::{attach, create, image_id_of, start};
use crate::supervisor::spec::SandboxSpec;
use crate::supervisor::SandboxError;

pub struct WarmContainer {
    id: String,
    /// The image id the engine resolved its image to (for the audit log).
    image_id: String,
    streams: AttachContainerResults,
    guard: RemovalGuard,
    ready_at: Instant,
}

impl std::fmt::Debug for WarmContainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmContainer")
            .field("id", &self.id)
            .field("ready_at", &self.ready_at)
            .finish_non_exhaustive()
    }
}

impl WarmContainer {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether it is still exactly as made: its interpreter silent and its output open. One
    /// that died or wrote anything before its job is not fresh and must not be used.
    /// Costs no call to Docker.
    pub fn is_fresh(&mut self) -> bool {
        self.streams.output.next().now_or_never().is_none()
    }

    /// Hands it to a job: its id, its image id, its attached streams and its removal guard.
    pub fn into_parts(self) -> (String, String, AttachContainerResults, RemovalGuard) {
        (self.id, self.image_id, self.streams, self.guard)
    }
}

/// Creates, attaches and starts one warm sandbox from `template` (the pool's spec for a
/// trust level). On any failure what was made is removed by the guard.
pub async fn prepare(
    docker: &Docker,
    template: &SandboxSpec,
) -> Result<WarmContainer, SandboxError> {
    validate_limits(template)?;
    let name = container_name(WARM_REQUEST_ID);
    let (own, uid) = with_own_uid(template)?;
    let mut guard = RemovalGuard::unreported(docker, &name);
    guard.hold(uid);
    let body = warm_container_config(&own);
    let id = match create(docker, &template.image, &name, body).await {
        Ok(id) => id,
        Err(e) => {
            if e.docker_answered() {
                guard.disarm();
            }
            return Err(e);
        }
    };
    guard.created(&id);
    let image_id = image_id_of(docker, &id).await;
    let streams = attach(docker, &id).await?;
    start(docker, &id).await?;
    Ok(WarmContainer {
        id,
        image_id,
        streams,
        guard,
        ready_at: Instant::now(),
    })
}
