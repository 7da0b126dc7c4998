//! The filesystem changes of a sandbox (`docker diff`), read just before it is removed so
//! the audit log records what the program added, changed or deleted in its writable layer
//! (`/tmp` and the working directory are tmpfs mounts, which `docker diff` does not see).
//! Called by `sandbox::remove_after_run` on the cold and warm paths; the list is bounded.

use std::time::Duration;

use bollard::models::{ChangeType, FilesystemChange};
use bollard::Docker;

use crate::audit::stored::preview_of;
use crate::protocol::audit::FsChanges;

/// Longest the daemon gets to answer (fuse-overlayfs walks the whole upper layer); a
/// slow answer must not hold up the removal for long.
const DIFF_WAIT: Duration = Duration::from_secs(15);

/// The changes of `container_id`, bounded; when Docker cannot say, the lists are empty
/// and `error` says why (so the audit log records that they are unknown, not empty).
pub async fn read_changes(docker: &Docker, container_id: &str) -> FsChanges {
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
