//! `cordon keygen --out FILE`: makes an Ed25519 key pair for signing override grants, and
//! the key-file format `cordon override` reads. Files are one line of base64 each: the
//! 32-byte secret seed in FILE (mode 0600; refused later if group or others can read it)
//! and the 32-byte public key in FILE.pub, which is also printed for
//! `overrides.operator_keys`.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use ed25519_dalek::SigningKey;

use super::EXIT_USAGE;
use crate::assessor::grant::{decode_fixed, public_key_text};
use crate::cli::KeygenArgs;

/// Why a key file could not be made or read.
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    #[error("{path} already exists; pass --force to replace it")]
    Exists { path: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot read key file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("key file {path} is readable by group or others (mode {mode:o}); chmod 600 it")]
    Exposed { path: String, mode: u32 },
    #[error("key file {path} does not hold a base64 Ed25519 secret key")]
    Malformed { path: String },
    #[error("no randomness from the operating system: {0}")]
    Random(String),
}

pub fn keygen(args: KeygenArgs) -> ExitCode {
    let written = generate().and_then(|key| {
        let public = write_key_pair(&args.out, &key, args.force)?;
        Ok((key, public))
    });
    match written {
        Ok((key, public)) => {
            eprintln!(
                "cordon: secret key in {} (keep it private), public key in {}",
                args.out.display(),
                public.display()
            );
            eprintln!("cordon: add the public key to [overrides] operator_keys:");
            super::out(&public_key_text(&key));
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("cordon: {error}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// A new key pair from the operating system's randomness.
pub fn generate() -> Result<SigningKey, KeyFileError> {
    let mut seed = [0u8; 32];
    getrandom::getrandom(&mut seed).map_err(|e| KeyFileError::Random(e.to_string()))?;
    Ok(SigningKey::from_bytes(&seed))
}

/// Writes the secret key to `path` (mode 0600) and the public key to `path.pub`.
/// Returns the public key's path.
pub fn write_key_pair(path: &Path, key: &SigningKey, force: bool) -> Result<PathBuf, KeyFileError> {
    let public = PathBuf::from(format!("{}.pub", path.display()));
    for existing in [path, public.as_path()] {
        if !force && existing.exists() {
            return Err(KeyFileError::Exists {
                path: existing.display().to_string(),
            });
        }
    }
    let secret = format!("{}\n", B64.encode(key.to_bytes()));
    write_file(path, &secret, 0o600)?;
    write_file(&public, &format!("{}\n", public_key_text(key)), 0o644)?;
    Ok(public)
}

fn write_file(path: &Path, text: &str, mode: u32) -> Result<(), KeyFileError> {
    let fail = |source| KeyFileError::Write {
        path: path.display().to_string(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(path)
        .map_err(fail)?;
    // An existing file keeps its mode through open(); set it before writing the secret.
    file.set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(fail)?;
    file.write_all(text.as_bytes()).map_err(fail)?;
    file.sync_all().map_err(fail)
}

/// Reads a secret key file, refusing one that group or others can read.
pub fn read_secret_key(path: &Path) -> Result<SigningKey, KeyFileError> {
    let shown = path.display().to_string();
    let read_error = |source| KeyFileError::Read {
        path: shown.clone(),
        source,
    };
    let mode = std::fs::metadata(path)
        .map_err(read_error)?
        .permissions()
        .mode()
        & 0o777;
    if mode & 0o077 != 0 {
        return Err(KeyFileError::Exposed { path: shown, mode });
    }
    let text = std::fs::read_to_string(path).map_err(read_error)?;
    let seed: [u8; 32] = decode_fixed(&text).ok_or(KeyFileError::Malformed { path: shown })?;
    Ok(SigningKey::from_bytes(&seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_round_trip_and_exposed_ones_are_refused() {
        // keygen's files read back to the same key; a world-readable secret is refused.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("op.key");
        let key = generate().unwrap();
        let public = write_key_pair(&path, &key, false).unwrap();
        assert_eq!(
            std::fs::read_to_string(public).unwrap().trim(),
            public_key_text(&key)
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read_secret_key(&path).unwrap().to_bytes(), key.to_bytes());
        assert!(matches!(
            write_key_pair(&path, &key, false),
            Err(KeyFileError::Exists { .. })
        ));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(
            read_secret_key(&path),
            Err(KeyFileError::Exposed { .. })
        ));
    }
}
