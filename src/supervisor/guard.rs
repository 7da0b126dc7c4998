//! `RemovalGuard`: removes a sandbox's container when `run_sandbox` is cancelled (its future
//! dropped) or leaves early, and a warm sandbox when the pool drops it unused. On drop,
//! while armed, it spawns the force-removal on the current tokio runtime and then reports
//! `Lifecycle::Removed` (once a job owns the container). Without a runtime it can only
//! log; `reap` at the next startup removes the container.

use std::time::Duration;

use bollard::Docker;
use tokio::sync::mpsc::Sender;

use super::spec::Lifecycle;
use super::uids::UidLease;
use crate::docker::force_remove;

/// Tries after a drop whose container creation may still be in flight: the create can
/// land after the first removal attempt found nothing.
const UNCONFIRMED_ATTEMPTS: u32 = 5;
const RETRY_DELAY: Duration = Duration::from_millis(400);

pub struct RemovalGuard {
    docker: Docker,
    /// The container's name until creation is confirmed, then its id.
    target: String,
    created: bool,
    armed: bool,
    /// Where `Removed` goes; `None` while a warm sandbox belongs to no job yet.
    lifecycle: Option<Sender<Lifecycle>>,
    /// The sandbox's own uid, held until the container is gone.
    uid: Option<UidLease>,
}

impl RemovalGuard {
    /// Armed for the container about to be created as `name`.
    pub fn new(docker: &Docker, name: &str, lifecycle: &Sender<Lifecycle>) -> Self {
        let mut guard = RemovalGuard::unreported(docker, name);
        guard.report_to(lifecycle);
        guard
    }

    /// Armed for a warm sandbox about to be created as `name`, reporting to no one yet.
    pub fn unreported(docker: &Docker, name: &str) -> Self {
        RemovalGuard {
            docker: docker.clone(),
            target: name.to_string(),
            created: false,
            armed: true,
            lifecycle: None,
            uid: None,
        }
    }

    /// From now on, a removal on drop is reported to `lifecycle`.
    pub fn report_to(&mut self, lifecycle: &Sender<Lifecycle>) {
        self.lifecycle = Some(lifecycle.clone());
    }

    /// Holds the sandbox's uid for as long as its container may exist.
    pub fn hold(&mut self, uid: Option<UidLease>) {
        self.uid = uid;
    }

    /// The container exists, with this id.
    pub fn created(&mut self, container_id: &str) {
        self.target = container_id.to_string();
        self.created = true;
    }

    /// The container is removed (or was never created): nothing to do on drop.
    pub fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for RemovalGuard {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::error!(container = %self.target, "no runtime to remove an abandoned sandbox; reap will");
            return;
        };
        let docker = self.docker.clone();
        let target = std::mem::take(&mut self.target);
        let created = self.created;
        let lifecycle = self.lifecycle.clone();
        let uid = self.uid.take();
        runtime.spawn(async move {
            remove_abandoned(docker, target, created, lifecycle).await;
            drop(uid);
        });
    }
}

/// Removes an abandoned container, retrying while its creation may still land.
async fn remove_abandoned(
    docker: Docker,
    target: String,
    created: bool,
    lifecycle: Option<Sender<Lifecycle>>,
) {
    let attempts = if created { 2 } else { UNCONFIRMED_ATTEMPTS };
    for attempt in 1..=attempts {
        match force_remove(&docker, &target).await {
            Ok(()) if created => {
                tracing::info!(container = %target, "removed an abandoned sandbox");
                if let Some(lifecycle) = lifecycle {
                    let _ = lifecycle.try_send(Lifecycle::Removed {
                        container_id: target,
                        changes: None,
                    });
                }
                return;
            }
            Ok(()) => {}
            Err(e) => {
                tracing::warn!(container = %target, attempt, "cannot remove an abandoned sandbox: {e}")
            }
        }
        tokio::time::sleep(RETRY_DELAY).await;
    }
}
