//! `read_changes` reports what a program added, changed and deleted in a container's
//! writable layer, as `docker diff` sees it. A cordon sandbox has a read-only root, so this
//! runs a plain (unhardened, root) container of the same image whose program does write,
//! and removes it afterwards.

mod sandbox_support;

use bollard::models::ContainerCreateBody;
use bollard::query_parameters::{
    CreateContainerOptions, StartContainerOptions, WaitContainerOptions,
};
use cordon::supervisor::changes::{bound_changes, Layers};
use futures::StreamExt;
use sandbox_support::{docker, image};

const PROGRAM: &str =
    "import os\nopen('/added-by-the-program', 'w').write('x')\nos.remove('/etc/debian_version')\n";

#[tokio::test]
async fn added_and_deleted_paths_are_reported_before_removal() {
    let docker = docker().await;
    let body = ContainerCreateBody {
        image: Some(image()),
        cmd: Some(vec!["python3".into(), "-c".into(), PROGRAM.into()]),
        user: Some("0:0".into()),
        network_disabled: Some(true),
        labels: Some([("cordon.test".to_string(), "changes".to_string())].into()),
        ..Default::default()
    };
    let name = format!("cordon-test-changes-{}", std::process::id());
    let options = CreateContainerOptions {
        name: Some(name.clone()),
        ..Default::default()
    };
    let id = docker
        .create_container(Some(options), body)
        .await
        .unwrap()
        .id;
    let outcome = run_and_read(&docker, &id).await;
    let from_docker = docker.container_changes(&id).await;
    cordon::docker::force_remove(&docker, &id).await.unwrap();
    let changes = outcome.unwrap();
    // Read from the overlay's upper directory or from Docker's diff API, the answer is
    // the same as Docker's own.
    let mut from_docker = bound_changes(from_docker.unwrap().unwrap_or_default());
    for list in [
        &mut from_docker.added,
        &mut from_docker.changed,
        &mut from_docker.deleted,
    ] {
        list.sort();
    }
    assert_eq!(changes, from_docker);
    assert_eq!(changes.error, None);
    assert!(
        changes.added.iter().any(|p| p == "/added-by-the-program"),
        "{changes:?}"
    );
    assert!(
        changes.deleted.iter().any(|p| p == "/etc/debian_version"),
        "{changes:?}"
    );
    assert!(changes.changed.iter().any(|p| p == "/etc"), "{changes:?}");
}

/// Starts the container, waits for it to exit 0, and reads its changes.
async fn run_and_read(
    docker: &bollard::Docker,
    id: &str,
) -> Result<cordon::protocol::audit::FsChanges, String> {
    docker
        .start_container(id, None::<StartContainerOptions>)
        .await
        .map_err(|e| e.to_string())?;
    let mut wait = docker.wait_container(id, None::<WaitContainerOptions>);
    match wait.next().await {
        Some(Ok(status)) if status.status_code == 0 => {}
        other => return Err(format!("the program did not exit 0: {other:?}")),
    }
    Ok(cordon::supervisor::changes::read_changes(docker, id, Layers::NotInspected).await)
}
