//! The content-addressed blob store: `<dir>/blobs/<first 2 hex>/<sha256 hex>`. Written by
//! `AuditLog::append` (code, its diff, outputs, large bodies) before the entry that names
//! them, read by `verify` and `audit show`, pruned by retention.
//! Invariants: a blob's name is the SHA-256 of its bytes; `put` is idempotent and durable
//! when it returns (temp file, fsync, rename, fsync of the directory); no blob is larger
//! than `MAX_BLOB_BYTES`, and reading never allocates more than that.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::segment::sync_dir;

/// The directory under the log directory that holds the blobs.
pub const BLOBS_DIR: &str = "blobs";
/// The largest blob kept. Code (1 MiB) and outputs are capped well below it upstream.
pub const MAX_BLOB_BYTES: u64 = 32 * 1024 * 1024;
const TEMP_SUFFIX: &str = ".tmp";
/// The file (in the log directory) saying below which entry index blobs were pruned.
pub const PRUNED_FILE: &str = "pruned_below";

/// Why a blob could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    #[error("{action} blob {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("blob of {bytes} bytes is over the {MAX_BLOB_BYTES}-byte limit")]
    TooLarge { bytes: u64 },
    #[error("{0:?} is not a SHA-256 in hex")]
    BadName(String),
}

/// What is wrong with a blob an entry names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlobProblem {
    #[error("blob {sha256} ({what}) is missing")]
    Missing { sha256: String, what: String },
    #[error("blob {sha256} ({what}) holds {found} bytes, the entry says {expected}")]
    WrongSize {
        sha256: String,
        what: String,
        expected: u64,
        found: u64,
    },
    #[error("blob {sha256} ({what}) does not hash to its name (found {found}): it was altered")]
    Mismatch {
        sha256: String,
        what: String,
        found: String,
    },
    #[error("blob {sha256} ({what}) cannot be read: {message}")]
    Unreadable {
        sha256: String,
        what: String,
        message: String,
    },
}

/// Hex SHA-256 of `bytes`: a blob's name.
pub fn blob_name(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The blob store of one log directory.
#[derive(Debug, Clone)]
pub struct BlobStore {
    root: PathBuf,
}

impl BlobStore {
    /// The store under `log_dir` (created on the first `put`).
    pub fn new(log_dir: &Path) -> BlobStore {
        BlobStore {
            root: log_dir.join(BLOBS_DIR),
        }
    }

    /// Where the blob named `sha256` lives, if the name is a SHA-256 in hex.
    pub fn path_of(&self, sha256: &str) -> Result<PathBuf, BlobError> {
        let valid = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !valid {
            return Err(BlobError::BadName(sha256.to_owned()));
        }
        Ok(self.root.join(&sha256[..2]).join(sha256))
    }

    /// Stores `bytes` durably under their SHA-256 and returns it. A blob already present
    /// with the right size is left alone (content addressing makes the write idempotent).
    pub fn put(&self, bytes: &[u8]) -> Result<String, BlobError> {
        if bytes.len() as u64 > MAX_BLOB_BYTES {
            return Err(BlobError::TooLarge {
                bytes: bytes.len() as u64,
            });
        }
        let name = blob_name(bytes);
        let path = self.path_of(&name)?;
        if fs::metadata(&path).is_ok_and(|m| m.len() == bytes.len() as u64) {
            return Ok(name);
        }
        let dir = path.parent().unwrap_or(&self.root).to_path_buf();
        self.ensure_dir(&dir)?;
        let temp = dir.join(format!("{name}{TEMP_SUFFIX}"));
        write_synced(&temp, bytes)?;
        fs::rename(&temp, &path).map_err(io_error("rename", &path))?;
        sync_dir(&dir).map_err(|e| BlobError::Io {
            action: "fsync directory of",
            path: path.clone(),
            source: io::Error::other(e.to_string()),
        })?;
        Ok(name)
    }

    /// Reads the blob named `sha256`, refusing one larger than `MAX_BLOB_BYTES`.
    pub fn get(&self, sha256: &str) -> Result<Vec<u8>, BlobError> {
        let path = self.path_of(sha256)?;
        let file = File::open(&path).map_err(io_error("open", &path))?;
        let mut bytes = Vec::new();
        file.take(MAX_BLOB_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io_error("read", &path))?;
        if bytes.len() as u64 > MAX_BLOB_BYTES {
            return Err(BlobError::TooLarge {
                bytes: bytes.len() as u64,
            });
        }
        Ok(bytes)
    }

    /// Checks that the blob named `sha256` exists, holds `bytes` bytes and hashes to its name.
    pub fn check(&self, sha256: &str, bytes: u64, what: &str) -> Result<(), BlobProblem> {
        let unreadable = |message: String| BlobProblem::Unreadable {
            sha256: sha256.to_owned(),
            what: what.to_owned(),
            message,
        };
        let path = self
            .path_of(sha256)
            .map_err(|e| unreadable(e.to_string()))?;
        let found = match fs::metadata(&path) {
            Ok(meta) => meta.len(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(BlobProblem::Missing {
                    sha256: sha256.to_owned(),
                    what: what.to_owned(),
                })
            }
            Err(e) => return Err(unreadable(e.to_string())),
        };
        if found != bytes {
            return Err(BlobProblem::WrongSize {
                sha256: sha256.to_owned(),
                what: what.to_owned(),
                expected: bytes,
                found,
            });
        }
        let content = self.get(sha256).map_err(|e| unreadable(e.to_string()))?;
        let actual = blob_name(&content);
        if actual != sha256 {
            return Err(BlobProblem::Mismatch {
                sha256: sha256.to_owned(),
                what: what.to_owned(),
                found: actual,
            });
        }
        Ok(())
    }

    /// Whether the blob named `sha256` is present.
    pub fn contains(&self, sha256: &str) -> bool {
        self.path_of(sha256).is_ok_and(|p| p.is_file())
    }

    /// Deletes the blob named `sha256`; returns whether it was there.
    pub fn remove(&self, sha256: &str) -> Result<bool, BlobError> {
        let path = self.path_of(sha256)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_error("delete", &path)(e)),
        }
    }

    /// Creates `dir` (a fan-out directory) durably if it is not there yet.
    fn ensure_dir(&self, dir: &Path) -> Result<(), BlobError> {
        if dir.is_dir() {
            return Ok(());
        }
        let root_existed = self.root.is_dir();
        fs::create_dir_all(dir).map_err(io_error("create directory for", dir))?;
        let mut to_sync = vec![self.root.clone()];
        if !root_existed {
            to_sync.extend(self.root.parent().map(Path::to_path_buf));
        }
        for parent in to_sync {
            sync_dir(&parent).map_err(|e| BlobError::Io {
                action: "fsync directory",
                path: parent.clone(),
                source: io::Error::other(e.to_string()),
            })?;
        }
        Ok(())
    }
}

/// The index below which retention pruned blobs (`<log dir>/pruned_below`); 0 if none.
/// Only a hint for `verify`, which requires a `retention` entry in the log to back it.
pub fn read_pruned_below(log_dir: &Path) -> Result<u64, BlobError> {
    let path = log_dir.join(PRUNED_FILE);
    match fs::read_to_string(&path) {
        Ok(text) => text.trim().parse().map_err(|_| BlobError::Io {
            action: "parse",
            path,
            source: io::Error::other(format!("{:?} is not an entry index", text.trim())),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(io_error("read", &path)(e)),
    }
}

/// Durably records that blobs below entry `index` may be pruned.
pub fn write_pruned_below(log_dir: &Path, index: u64) -> Result<(), BlobError> {
    let path = log_dir.join(PRUNED_FILE);
    let temp = log_dir.join(format!("{PRUNED_FILE}{TEMP_SUFFIX}"));
    write_synced(&temp, format!("{index}\n").as_bytes())?;
    fs::rename(&temp, &path).map_err(io_error("rename", &path))?;
    sync_dir(log_dir).map_err(|e| BlobError::Io {
        action: "fsync directory of",
        path,
        source: io::Error::other(e.to_string()),
    })
}

/// Writes `bytes` to a fresh file at `path` and fsyncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), BlobError> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(path)
        .map_err(io_error("create", path))?;
    file.write_all(bytes).map_err(io_error("write", path))?;
    file.sync_all().map_err(io_error("fsync", path))
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> BlobError {
    let path = path.to_path_buf();
    move |source| BlobError::Io {
        action,
        path,
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_is_stored_under_its_hash_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::new(dir.path());
        let name = store.put(b"print(1)\n").unwrap();
        assert_eq!(name, blob_name(b"print(1)\n"));
        assert_eq!(store.get(&name).unwrap(), b"print(1)\n");
        assert_eq!(store.put(b"print(1)\n").unwrap(), name, "idempotent");
        assert!(store.check(&name, 9, "code").is_ok());
    }

    #[test]
    fn a_missing_altered_or_resized_blob_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::new(dir.path());
        let name = store.put(b"hello").unwrap();
        let path = store.path_of(&name).unwrap();
        fs::write(&path, b"hellO").unwrap();
        assert!(matches!(
            store.check(&name, 5, "x"),
            Err(BlobProblem::Mismatch { .. })
        ));
        fs::write(&path, b"hello!").unwrap();
        assert!(matches!(
            store.check(&name, 5, "x"),
            Err(BlobProblem::WrongSize { found: 6, .. })
        ));
        fs::remove_file(&path).unwrap();
        assert!(matches!(
            store.check(&name, 5, "x"),
            Err(BlobProblem::Missing { .. })
        ));
    }

    #[test]
    fn names_that_are_not_hashes_are_refused() {
        let store = BlobStore::new(Path::new("/nonexistent"));
        assert!(store.path_of("../../etc/passwd").is_err());
        assert!(store.path_of(&"A".repeat(64)).is_err());
        assert!(store.check("zz", 1, "x").is_err());
    }
}
