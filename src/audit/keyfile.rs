//! The log's signing key on disk: `<dir>/signing.key`, in the note formats' private key
//! text, created on first open with mode 0600 and refused when others may read it. Called
//! by `AuditLog::open` (create or load) and `cordon audit pubkey` / `verify` (load).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::checkpoint::{CheckpointError, NoteSigner};

/// The key file's name in the log directory.
pub const KEY_FILE: &str = "signing.key";

/// Why the signing key could not be created or read.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path} may be read by others (mode {mode:o}); it must be 0600")]
    TooOpen { path: PathBuf, mode: u32 },
    #[error("{path}: {source}")]
    Bad {
        path: PathBuf,
        #[source]
        source: CheckpointError,
    },
    #[error("no random bytes for a new key: {0}")]
    Random(String),
    #[error("no signing key at {path}: the log has never been opened by a writer")]
    Missing { path: PathBuf },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> KeyError {
    let path = path.to_path_buf();
    move |source| KeyError::Io {
        action,
        path,
        source,
    }
}

/// Loads the key in `dir`, creating one named `name` if there is none. The name of an
/// existing key wins over `name` (checkpoints keep one origin for the log's life).
pub fn load_or_create(dir: &Path, name: &str) -> Result<NoteSigner, KeyError> {
    let path = dir.join(KEY_FILE);
    match load(dir) {
        Err(KeyError::Missing { .. }) => create(&path, name),
        other => other,
    }
}

/// Loads the key in `dir`.
pub fn load(dir: &Path) -> Result<NoteSigner, KeyError> {
    let path = dir.join(KEY_FILE);
    let metadata = match fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(KeyError::Missing { path }),
        other => other.map_err(io_error("stat", &path))?,
    };
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(KeyError::TooOpen { path, mode });
    }
    let text = fs::read_to_string(&path).map_err(io_error("read", &path))?;
    NoteSigner::parse(&text).map_err(|source| KeyError::Bad { path, source })
}

fn create(path: &Path, name: &str) -> Result<NoteSigner, KeyError> {
    let mut seed = [0u8; 32];
    getrandom::getrandom(&mut seed).map_err(|e| KeyError::Random(e.to_string()))?;
    let signer = NoteSigner::from_seed(name, seed).map_err(|source| KeyError::Bad {
        path: path.to_path_buf(),
        source,
    })?;
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(io_error("create", path))?;
    writeln!(file, "{}", signer.to_text())
        .and_then(|()| file.sync_all())
        .map_err(io_error("write", path))?;
    if let Some(dir) = path.parent() {
        fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(io_error("fsync directory", dir))?;
    }
    tracing::info!(key = %signer.verifier().to_text(), "audit log: created a signing key");
    Ok(signer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_created_once_with_mode_0600_and_loaded_after() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path(), "cordon.test/audit").unwrap();
        let mode = fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = load_or_create(dir.path(), "another-name").unwrap();
        assert_eq!(again.verifier(), first.verifier());
    }

    #[test]
    fn a_key_others_may_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        load_or_create(dir.path(), "n").unwrap();
        let path = dir.path().join(KEY_FILE);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(load(dir.path()), Err(KeyError::TooOpen { .. })));
    }
}
