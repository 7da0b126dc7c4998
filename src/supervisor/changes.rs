//! The filesystem changes of a sandbox (`docker diff`), read just before it is removed so
//! the audit log records what the program added, changed or deleted in its writable layer
//! (`/tmp` and the working directory are tmpfs mounts, which `docker diff` does not see).
//! Called by `sandbox::remove_after_run` on the cold and warm paths; the list is bounded.
//!
//! Where the container's overlay upper directory is readable (the supervisor on the Docker
//! host, overlay2 or fuse-overlayfs), the changes are read from it directly, as Docker's
//! overlay2 driver does: milliseconds. Otherwise Docker's diff API answers, which with
//! fuse-overlayfs walks the whole image (seconds).

use std::path::{Path, PathBuf};
use std::time::Duration;

use bollard::models::{ChangeType, ContainerInspectResponse, FilesystemChange};
use bollard::query_parameters::InspectContainerOptions;
use bollard::Docker;

use crate::protocol::audit::FsChanges;
use crate::text::preview_of;

/// Longest the daemon gets to answer (fuse-overlayfs walks the whole upper layer); a
/// slow answer must not hold up the removal for long.
const DIFF_WAIT: Duration = Duration::from_secs(15);

/// The changes of `container_id`, bounded; when Docker cannot say, the lists are empty
/// and `error` says why (so the audit log records that they are unknown, not empty).
/// `layers`: what the caller's own inspection found, if it made one.
pub async fn read_changes(docker: &Docker, container_id: &str, layers: Layers) -> FsChanges {
    let layers = match layers {
        Layers::Inspected(layers) => layers,
        Layers::NotInspected => overlay_layers(docker, container_id).await,
    };
    if let Some(layers) = layers {
        let walked = tokio::task::spawn_blocking(move || layers.changes()).await;
        if let Ok(Some((changes, beyond))) = walked {
            let mut bounded = bound_changes(changes);
            bounded.omitted += beyond;
            return bounded;
        }
    }
    let why = match tokio::time::timeout(DIFF_WAIT, docker.container_changes(container_id)).await {
        Ok(Ok(changes)) => return bound_changes(changes.unwrap_or_default()),
        Ok(Err(error)) => format!("docker diff failed: {error}"),
        Err(_) => format!("docker diff did not answer within {DIFF_WAIT:?}"),
    };
    tracing::warn!(container = container_id, why, "filesystem changes unknown");
    FsChanges {
        error: Some(why),
        ..FsChanges::default()
    }
}

/// Sorts Docker's list into added / changed / deleted, keeping at most
/// `FsChanges::MAX_PATHS` paths (each cut to `FsChanges::MAX_PATH_BYTES`) and counting
/// the rest in `omitted`.
pub fn bound_changes(changes: Vec<FilesystemChange>) -> FsChanges {
    let mut out = FsChanges::default();
    for (kept, change) in changes.into_iter().enumerate() {
        if kept >= FsChanges::MAX_PATHS {
            out.omitted += 1;
            continue;
        }
        let path = preview_of(&change.path, FsChanges::MAX_PATH_BYTES).to_owned();
        match change.kind {
            ChangeType::_0 => out.changed.push(path),
            ChangeType::_1 => out.added.push(path),
            ChangeType::_2 => out.deleted.push(path),
        }
    }
    out
}

/// A container's overlay directories: the writable upper one and the image's lower ones.
pub struct OverlayLayers {
    upper: PathBuf,
    lowers: Vec<PathBuf>,
}

/// The overlay directories Docker reports for `container_id`, when this process can read
/// the upper one.
/// A container's overlay directories, as far as the caller has looked.
pub enum Layers {
    /// Not inspected: `read_changes` inspects the container itself.
    NotInspected,
    /// Inspected: the directories, or `None` when this process cannot read them (Docker's
    /// diff API is then the only way, and inspecting again would not change that).
    Inspected(Option<OverlayLayers>),
}

async fn overlay_layers(docker: &Docker, container_id: &str) -> Option<OverlayLayers> {
    let inspected = docker
        .inspect_container(container_id, None::<InspectContainerOptions>)
        .await
        .ok()?;
    OverlayLayers::of(&inspected)
}

impl OverlayLayers {
    /// The overlay directories an inspection names, when this process can read the upper
    /// one.
    pub fn of(inspected: &ContainerInspectResponse) -> Option<OverlayLayers> {
        let data = &inspected.graph_driver.as_ref()?.data;
        let upper = PathBuf::from(data.get("UpperDir")?);
        let lowers = data
            .get("LowerDir")
            .map(|dirs| dirs.split(':').map(PathBuf::from).collect())
            .unwrap_or_default();
        upper.is_dir().then_some(OverlayLayers { upper, lowers })
    }

    /// Every path in the upper directory as Docker names it: a whiteout is a deletion, a
    /// path the image also has is a change, anything else an addition. Keeps a little more
    /// than the audit entry does and counts the rest (second value). `None` when the
    /// directory cannot be read.
    fn changes(&self) -> Option<(Vec<FilesystemChange>, u64)> {
        let mut found = Vec::new();
        let mut beyond = 0u64;
        let mut pending = vec![PathBuf::from("/")];
        while let Some(dir) = pending.pop() {
            let entries = std::fs::read_dir(self.upper.join(dir.strip_prefix("/").ok()?)).ok()?;
            for entry in entries {
                let entry = entry.ok()?;
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = dir.join(&name);
                let file_type = entry.file_type().ok()?;
                if found.len() >= FsChanges::MAX_PATHS * 4 {
                    beyond += 1;
                } else if let Some(change) = self.change_of(&path, &name, &entry) {
                    found.push(change);
                }
                if file_type.is_dir() {
                    pending.push(path);
                }
            }
        }
        found.sort_by(|a, b| a.path.cmp(&b.path));
        Some((found, beyond))
    }

    fn change_of(
        &self,
        path: &Path,
        name: &str,
        entry: &std::fs::DirEntry,
    ) -> Option<FilesystemChange> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let at = |path: &Path, kind| {
            Some(FilesystemChange {
                path: path.to_string_lossy().into_owned(),
                kind,
            })
        };
        if name == ".wh..wh..opq" {
            return None;
        }
        if let Some(deleted) = name.strip_prefix(".wh.") {
            return at(&path.with_file_name(deleted), ChangeType::_2);
        }
        let metadata = entry.metadata().ok()?;
        if metadata.file_type().is_char_device() && metadata.rdev() == 0 {
            return at(path, ChangeType::_2);
        }
        let relative = path.strip_prefix("/").ok()?;
        let in_image = self
            .lowers
            .iter()
            .any(|lower| lower.join(relative).symlink_metadata().is_ok());
        at(
            path,
            if in_image {
                ChangeType::_0
            } else {
                ChangeType::_1
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, kind: ChangeType) -> FilesystemChange {
        FilesystemChange {
            path: path.into(),
            kind,
        }
    }

    #[test]
    fn changes_are_sorted_by_kind() {
        let changes = bound_changes(vec![
            change("/etc", ChangeType::_0),
            change("/etc/evil", ChangeType::_1),
            change("/usr/bin/python3", ChangeType::_2),
        ]);
        assert_eq!(changes.changed, ["/etc"]);
        assert_eq!(changes.added, ["/etc/evil"]);
        assert_eq!(changes.deleted, ["/usr/bin/python3"]);
        assert_eq!(changes.omitted, 0);
    }

    #[test]
    fn the_list_and_each_path_are_bounded() {
        let long = format!("/{}", "é".repeat(FsChanges::MAX_PATH_BYTES));
        let mut many: Vec<_> = (0..FsChanges::MAX_PATHS + 40)
            .map(|i| change(&format!("/f{i}"), ChangeType::_1))
            .collect();
        many.insert(0, change(&long, ChangeType::_1));
        let changes = bound_changes(many);
        assert_eq!(changes.added.len(), FsChanges::MAX_PATHS);
        assert_eq!(changes.omitted, 41);
        assert!(changes.added[0].len() <= FsChanges::MAX_PATH_BYTES);
        assert!(changes.added[0].starts_with('/'));
    }
}
