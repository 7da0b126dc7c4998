//! Container clean-up by owner: `reap_orphans`, which removes the containers of this host whose owner is provably gone
//! (see `owner`), and `remove_own`, which removes what this instance made. Called by
//! `run_sandbox`, its removal guard, and the supervisor actor at start and stop.

use std::collections::{BTreeSet, HashMap};

use bollard::models::ContainerSummary;
use bollard::Docker;

use super::SandboxError;
use crate::docker::{force_remove, labels};
use crate::owner::{Instance, Liveness};

/// What a reap found: the containers it removed, the owners it proved gone, and the
/// containers it left because their owner's liveness cannot be told.
#[derive(Debug, Default)]
pub struct Reaped {
    pub removed: Vec<String>,
    pub gone_owners: BTreeSet<String>,
    pub unknown: Vec<String>,
}

/// Removes every cordon container of `host_id` whose owner is provably gone (its lock is
/// free, or the machine rebooted since), running or not. Containers of live owners (other
/// processes on this host with the same host id, `cordon exec` beside `cordon up`) and of
/// owners that cannot be told are left alone.
pub async fn reap_orphans(
    docker: &Docker,
    host_id: &str,
    me: &Instance,
) -> Result<Reaped, SandboxError> {
    let mut reaped = Reaped::default();
    for container in list(docker, host_id).await? {
        let (Some(id), container_labels) = (container.id, container.labels.unwrap_or_default())
        else {
            continue;
        };
        match me.liveness_of(&container_labels) {
            Liveness::Gone(why) => {
                remove(docker, &id).await?;
                tracing::info!(container = %id, host = host_id, why, "reaped an orphaned sandbox");
                reaped.removed.push(id);
                reaped.gone_owners.extend(owner_of(&container_labels));
            }
            Liveness::Unknown => reaped.unknown.push(id),
            Liveness::Mine | Liveness::Alive => {}
        }
    }
    Ok(reaped)
}

/// Removes every container this instance made on `host_id` (at shutdown).
pub async fn remove_own(
    docker: &Docker,
    host_id: &str,
    me: &Instance,
) -> Result<Vec<String>, SandboxError> {
    let mut removed = Vec::new();
    for container in list(docker, host_id).await? {
        let mine = container.labels.as_ref().map(|l| me.liveness_of(l)) == Some(Liveness::Mine);
        if let (true, Some(id)) = (mine, container.id) {
            remove(docker, &id).await?;
            removed.push(id);
        }
    }
    Ok(removed)
}

fn owner_of(container_labels: &HashMap<String, String>) -> Option<String> {
    container_labels.get(labels::OWNER).cloned()
}

async fn remove(docker: &Docker, id: &str) -> Result<(), SandboxError> {
    force_remove(docker, id)
        .await
        .map_err(|source| SandboxError::Remove {
            container: id.to_string(),
            source,
        })
}

async fn list(docker: &Docker, host_id: &str) -> Result<Vec<ContainerSummary>, SandboxError> {
    crate::docker::list_sandboxes(docker, host_id, false)
        .await
        .map_err(|source| SandboxError::List {
            host: host_id.to_string(),
            source,
        })
}

/// Ids of every cordon container of `host_id`, in any state, whoever owns them.
pub async fn containers_of_host(
    docker: &Docker,
    host_id: &str,
) -> Result<Vec<String>, SandboxError> {
    let containers = list(docker, host_id).await?;
    Ok(containers.into_iter().filter_map(|c| c.id).collect())
}
