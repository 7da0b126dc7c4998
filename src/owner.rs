//! Who owns a sandbox. Every supervisor process is an `Instance` with a fresh id, written
//! (with the machine's boot id) on the labels of everything it creates: sandboxes, warm
//! sandboxes, its egress proxy, request networks. It holds an exclusive `flock` on
//! `<owner_dir>/<id>.lock` for as long as it lives, and the kernel releases that lock when
//! the process ends, however it ends. So an owner is provably gone when its lock file can
//! be locked by someone else, or when the machine has rebooted since it labelled the
//! object; only then does a reaper touch what it made (`Instance::liveness_of`). An owner
//! whose lock file is missing (another owner directory, a wiped one) is left alone.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use crate::docker::labels;

/// Where boot ids are read; the same inside a container as on its host.
const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error("cannot create the owner directory {dir}: {source} (set node.owner_dir to a directory this user can write)")]
    Dir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot take the owner lock {path}: {source}")]
    Lock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The labels that name an owner: its instance id and the boot it ran in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerTag {
    pub instance: String,
    pub boot_id: String,
}

impl OwnerTag {
    /// A tag for objects made outside any supervisor (tests, `cordon image`): it has no
    /// lock file, so no reaper can prove it gone and none ever removes them.
    pub fn unlocked(instance: &str) -> OwnerTag {
        OwnerTag {
            instance: instance.to_string(),
            boot_id: boot_id(),
        }
    }

    /// Adds the owner labels to `into`.
    pub fn label(&self, into: &mut HashMap<String, String>) {
        into.insert(labels::OWNER.to_string(), self.instance.clone());
        into.insert(labels::BOOT.to_string(), self.boot_id.clone());
    }
}

/// Whether the owner of a labelled object still lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    /// This very instance.
    Mine,
    /// Another process holds its lock.
    Alive,
    /// Provably gone: the reason says how it is known.
    Gone(&'static str),
    /// Cannot be told (its lock file is not in this owner directory).
    Unknown,
}

/// This process as an owner: its tag and the lock that proves it alive.
#[derive(Debug)]
pub struct Instance {
    tag: OwnerTag,
    dir: PathBuf,
    /// Held (locked) for the life of the process; never unlocked by hand.
    _lock: File,
}

impl Instance {
    /// A fresh instance id, locked in `dir` (created if needed, mode 0700).
    pub fn claim(dir: &Path) -> Result<Instance, OwnerError> {
        create_dir(dir)?;
        let instance = ulid::Ulid::new().to_string().to_lowercase();
        let path = lock_path(dir, &instance);
        let lock_error = |source| OwnerError::Lock {
            path: path.clone(),
            source,
        };
        let mut file = OpenOptions::new()
            .create_new(true)
            .write(true)
            .open(&path)
            .map_err(lock_error)?;
        if !try_lock(&file).map_err(lock_error)? {
            return Err(lock_error(std::io::ErrorKind::WouldBlock.into()));
        }
        let _ = writeln!(file, "pid {}", std::process::id());
        let tag = OwnerTag {
            instance,
            boot_id: boot_id(),
        };
        Ok(Instance {
            tag,
            dir: dir.to_path_buf(),
            _lock: file,
        })
    }

    pub fn tag(&self) -> &OwnerTag {
        &self.tag
    }

    pub fn id(&self) -> &str {
        &self.tag.instance
    }

    /// Whether the owner named on `object_labels` lives. An object with no owner label was
    /// made by a cordon from before owners were recorded, and counts as gone.
    pub fn liveness_of(&self, object_labels: &HashMap<String, String>) -> Liveness {
        let Some(owner) = object_labels.get(labels::OWNER) else {
            return Liveness::Gone("it carries no owner (made by an older cordon)");
        };
        if *owner == self.tag.instance {
            return Liveness::Mine;
        }
        if object_labels.get(labels::BOOT) != Some(&self.tag.boot_id) {
            return Liveness::Gone("the machine has rebooted since its owner made it");
        }
        owner_lock_state(&self.dir, owner)
    }

    /// At a clean stop, once everything this instance made is removed: its lock file goes
    /// (the lock itself is held until the process ends).
    pub fn retire(&self) {
        let _ = std::fs::remove_file(lock_path(&self.dir, &self.tag.instance));
    }
}

/// Alive if someone holds `owner`'s lock, gone if it can be taken, unknown without a file.
fn owner_lock_state(dir: &Path, owner: &str) -> Liveness {
    if !is_instance_id(owner) {
        return Liveness::Unknown;
    }
    let Ok(file) = File::open(lock_path(dir, owner)) else {
        return Liveness::Unknown;
    };
    match try_lock(&file) {
        Ok(true) => Liveness::Gone("its owner's process has ended (its lock is free)"),
        Ok(false) => Liveness::Alive,
        Err(_) => Liveness::Unknown,
    }
}

/// A label value is used as a file name only when it is an id this module made.
fn is_instance_id(owner: &str) -> bool {
    owner.len() == 26 && owner.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn lock_path(dir: &Path, instance: &str) -> PathBuf {
    dir.join(format!("{instance}.lock"))
}

/// `flock(LOCK_EX | LOCK_NB)`: true when taken, false when another holds it.
fn try_lock(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor this function borrows; no memory is involved.
    let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if taken == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    match error.kind() {
        std::io::ErrorKind::WouldBlock => Ok(false),
        _ => Err(error),
    }
}

fn create_dir(dir: &Path) -> Result<(), OwnerError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|source| OwnerError::Dir {
            dir: dir.to_path_buf(),
            source,
        })
}

/// The machine's boot id (empty where the kernel does not say).
pub fn boot_id() -> String {
    std::fs::read_to_string(BOOT_ID)
        .map(|id| id.trim().to_string())
        .unwrap_or_default()
}

/// The owner directory when `node.owner_dir` is empty: `/run/cordon/owners` for root,
/// `$XDG_RUNTIME_DIR/cordon/owners` or `/tmp/cordon-<uid>/owners` for anyone else. Every
/// supervisor that shares a Docker engine must share it.
pub fn default_owner_dir() -> PathBuf {
    // SAFETY: geteuid has no failure mode.
    let uid = unsafe { libc::geteuid() };
    if uid == 0 {
        return PathBuf::from("/run/cordon/owners");
    }
    match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(runtime) => PathBuf::from(runtime).join("cordon/owners"),
        None => PathBuf::from(format!("/tmp/cordon-{uid}/owners")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labelled(tag: &OwnerTag) -> HashMap<String, String> {
        let mut labels = HashMap::new();
        tag.label(&mut labels);
        labels
    }

    #[test]
    fn a_live_owner_is_alive_and_its_own_objects_are_mine() {
        let dir = tempfile::tempdir().unwrap();
        let me = Instance::claim(dir.path()).unwrap();
        let other = Instance::claim(dir.path()).unwrap();
        assert_eq!(me.liveness_of(&labelled(me.tag())), Liveness::Mine);
        assert_eq!(me.liveness_of(&labelled(other.tag())), Liveness::Alive);
    }

    #[test]
    fn an_owner_whose_lock_is_released_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let me = Instance::claim(dir.path()).unwrap();
        let ended = Instance::claim(dir.path()).unwrap();
        let tag = ended.tag().clone();
        drop(ended); // as the kernel does when the process dies: the lock is released
        assert!(matches!(me.liveness_of(&labelled(&tag)), Liveness::Gone(_)));
        assert!(
            lock_path(dir.path(), &tag.instance).exists(),
            "its file stays"
        );
    }

    #[test]
    fn another_boot_is_gone_and_no_lock_file_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let me = Instance::claim(dir.path()).unwrap();
        let mut rebooted = OwnerTag::unlocked("01arz3ndektsv4rrffq69g5fav");
        assert_eq!(me.liveness_of(&labelled(&rebooted)), Liveness::Unknown);
        rebooted.boot_id = "an-earlier-boot".into();
        assert!(matches!(
            me.liveness_of(&labelled(&rebooted)),
            Liveness::Gone(_)
        ));
        let mut odd = labelled(&OwnerTag::unlocked("../../etc/passwd"));
        assert_eq!(me.liveness_of(&odd), Liveness::Unknown);
        odd.remove(labels::OWNER);
        assert!(matches!(me.liveness_of(&odd), Liveness::Gone(_)));
    }
}
