//! A uid (and gid) of its own for every sandbox, from `[sandbox] uid_first` / `uid_count`,
//! a range that maps to no host account. Per-user kernel quotas (inotify instances, pipe
//! buffer pages, POSIX message queues, the user's process count) are then never shared
//! between two sandboxes or with a host user. A uid is held by an `flock` on
//! `<owner_dir>/uids/<uid>` for as long as its container exists (the lease rides on the
//! container's removal guard), so supervisors sharing an engine never hand out the same
//! one, and a dead supervisor's uids come free with its process. Lock files are never
//! deleted: unlinking a locked file would let two holders lock two different inodes.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::path::PathBuf;

use super::SandboxError;

/// The `[sandbox] user` value that asks for a uid per sandbox.
pub const PER_SANDBOX: &str = "auto";
/// Random picks before giving up on a crowded range.
const ATTEMPTS: u32 = 64;

/// The range uids are drawn from and where their locks live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UidRange {
    pub first: u32,
    pub count: u32,
    pub dir: PathBuf,
}

/// One sandbox's uid, held until dropped.
#[derive(Debug)]
pub struct UidLease {
    pub uid: u32,
    _lock: File,
}

impl UidRange {
    /// A uid of the range no other sandbox of this engine holds.
    pub fn claim(&self) -> Result<UidLease, SandboxError> {
        let no_uid = |why: String| SandboxError::NoUid { why };
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| no_uid(format!("cannot create {}: {e}", self.dir.display())))?;
        for _ in 0..ATTEMPTS {
            let uid = self.first + (ulid::Ulid::new().random() as u32) % self.count.max(1);
            let path = self.dir.join(uid.to_string());
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(|e| no_uid(format!("cannot open {}: {e}", path.display())))?;
            // SAFETY: flock on a descriptor this function owns.
            let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
            if taken == 0 {
                return Ok(UidLease { uid, _lock: file });
            }
        }
        Err(no_uid(format!(
            "{ATTEMPTS} random uids of {}..{} were all taken",
            self.first,
            self.first as u64 + self.count as u64
        )))
    }
}

/// The range `settings` ask for, with its locks under `owner_dir`; `None` for a fixed user.
pub fn range_of(
    settings: &crate::config::SandboxSettings,
    owner_dir: &std::path::Path,
) -> Option<UidRange> {
    (settings.user == PER_SANDBOX).then(|| UidRange {
        first: settings.uid_first,
        count: settings.uid_count,
        dir: owner_dir.join("uids"),
    })
}

/// Checks a range from the settings: not root, not overflowing, not empty.
pub fn check_range(first: u32, count: u32) -> Result<(), String> {
    if first == 0 || count == 0 || first.checked_add(count - 1).is_none() {
        return Err(format!(
            "uid_first {first} and uid_count {count} must give a non-empty range above 0 that fits in 32 bits"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_uid_is_never_handed_out_twice_and_comes_free_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let range = UidRange {
            first: 70_000,
            count: 3,
            dir: dir.path().to_path_buf(),
        };
        let leases: Vec<UidLease> = (0..3).map(|_| range.claim().unwrap()).collect();
        let mut uids: Vec<u32> = leases.iter().map(|l| l.uid).collect();
        uids.sort();
        assert_eq!(uids, [70_000, 70_001, 70_002]);
        assert!(range.claim().is_err(), "the range is full");
        drop(leases);
        assert!((70_000..70_003).contains(&range.claim().unwrap().uid));
    }

    #[test]
    fn ranges_that_include_root_or_overflow_are_refused() {
        assert!(check_range(0, 10).is_err());
        assert!(check_range(u32::MAX - 1, 5).is_err());
        assert!(check_range(5, 0).is_err());
        assert!(check_range(1_879_048_192, 65_536).is_ok());
    }
}
