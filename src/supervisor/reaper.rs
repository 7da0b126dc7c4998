//! Container removal: `force_remove` (one container, already-gone counts as removed) and
//! `reap`, which removes every container a dead predecessor on this host left behind.
//! Called by `run_sandbox`, its removal guard, and the supervisor actor at startup.

use bollard::errors::Error as BollardError;
use bollard::query_parameters::RemoveContainerOptions;
use bollard::Docker;

use super::SandboxError;
use crate::docker::{is_conflict, is_not_found};

/// Kills and removes `container` (name or id) with its anonymous volumes. A container
/// that is already gone, or already being removed, counts as removed.
pub async fn force_remove(docker: &Docker, container: &str) -> Result<(), BollardError> {
    let options = RemoveContainerOptions {
        force: true,
        v: true,
        link: false,
    };
    match docker.remove_container(container, Some(options)).await {
        Err(e) if is_not_found(&e) || is_conflict(&e) => Ok(()),
        other => other,
    }
}

/// Removes every container labelled `cordon.managed=true` and `cordon.host=<host_id>`,
/// running or not, and returns their ids. Meant for startup, before any sandbox of this
/// host runs: a predecessor that died may have left some behind.
pub async fn reap(docker: &Docker, host_id: &str) -> Result<Vec<String>, SandboxError> {
    let ids = containers_of_host(docker, host_id).await?;
    for id in &ids {
        force_remove(docker, id)
            .await
            .map_err(|source| SandboxError::Remove {
                container: id.clone(),
                source,
            })?;
        tracing::info!(container = %id, host = host_id, "reaped a leftover sandbox");
    }
    Ok(ids)
}

/// Ids of every cordon container of `host_id`, in any state.
pub async fn containers_of_host(
    docker: &Docker,
    host_id: &str,
) -> Result<Vec<String>, SandboxError> {
    let containers = crate::docker::list_sandboxes(docker, host_id, false)
        .await
        .map_err(|source| SandboxError::List {
            host: host_id.to_string(),
            source,
        })?;
    Ok(containers.into_iter().filter_map(|c| c.id).collect())
}
