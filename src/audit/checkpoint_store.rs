//! The store of signed checkpoints: `<dir>/checkpoints`, append-only frames
//! (`len u32 | crc32c u32 | note text`, as in segments, without a header), every signed
//! checkpoint kept forever. Written by `AuditLog::checkpoint` (append + fdatasync before
//! the checkpoint is published), read by `AuditLog::open`, `verify` and the CLI. A torn
//! last frame (a crash mid-write) is cut off on open; anything else is refused.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::frame::{encode_frame, is_torn_tail, read_frame, FrameRead};

/// The store's file name in the log directory.
pub const CHECKPOINTS_FILE: &str = "checkpoints";

/// Why the checkpoint store could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("checkpoint {number} in {path} at byte {offset}: {problem}")]
    Frame {
        number: usize,
        path: PathBuf,
        offset: u64,
        problem: String,
    },
    #[error("checkpoint {number} in {path} at byte {offset} is not UTF-8 text")]
    NotText {
        number: usize,
        path: PathBuf,
        offset: u64,
    },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |source| StoreError::Io {
        action,
        path,
        source,
    }
}

/// What the store holds: every note in order, and a torn tail if there was one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stored {
    pub notes: Vec<String>,
    /// Byte length of the good part of the file.
    pub good_bytes: u64,
    /// Bytes of an incomplete last frame.
    pub torn_bytes: u64,
}

/// Reads every note in the store in `dir` (none when the file does not exist).
pub fn read_all(dir: &Path) -> Result<Stored, StoreError> {
    let path = dir.join(CHECKPOINTS_FILE);
    let bytes = match fs::read(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Stored::default()),
        other => other.map_err(io_error("read", &path))?,
    };
    let mut stored = Stored::default();
    let mut at = 0;
    loop {
        let number = stored.notes.len();
        let problem = match read_frame(&bytes, at) {
            FrameRead::End => break,
            FrameRead::Frame { payload, next } => {
                let text = std::str::from_utf8(payload).map_err(|_| StoreError::NotText {
                    number,
                    path: path.clone(),
                    offset: at as u64,
                })?;
                stored.notes.push(text.to_owned());
                at = next;
                continue;
            }
            FrameRead::Incomplete { .. } => "an incomplete frame with more data after it".into(),
            FrameRead::Bad(e) => e.to_string(),
        };
        if !is_torn_tail(&bytes, at) {
            let offset = at as u64;
            return Err(StoreError::Frame {
                number,
                path,
                offset,
                problem,
            });
        }
        stored.torn_bytes = (bytes.len() - at) as u64;
        break;
    }
    stored.good_bytes = at as u64;
    Ok(stored)
}

/// The open store, appended to by the writer.
#[derive(Debug)]
pub struct CheckpointStore {
    path: PathBuf,
    file: File,
}

impl CheckpointStore {
    /// Opens the store in `dir` for appending, cutting it to `good_bytes` (a torn tail).
    pub fn open(dir: &Path, good_bytes: u64) -> Result<CheckpointStore, StoreError> {
        let path = dir.join(CHECKPOINTS_FILE);
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io_error("open", &path))?;
        let len = file.metadata().map_err(io_error("stat", &path))?.len();
        if len != good_bytes {
            file.set_len(good_bytes)
                .and_then(|()| file.sync_all())
                .map_err(io_error("truncate", &path))?;
        }
        Ok(CheckpointStore { path, file })
    }

    /// Appends one note and makes it durable.
    pub fn append(&mut self, note: &str) -> Result<(), StoreError> {
        let mut frame = Vec::with_capacity(note.len() + 8);
        encode_frame(note.as_bytes(), &mut frame);
        self.file
            .write_all(&frame)
            .and_then(|()| self.file.sync_data())
            .map_err(io_error("append to", &self.path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_back_in_order_and_a_torn_one_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CheckpointStore::open(dir.path(), 0).unwrap();
        store.append("one\n").unwrap();
        store.append("two\n").unwrap();
        let good = read_all(dir.path()).unwrap();
        assert_eq!(good.notes, ["one\n", "two\n"]);
        let path = dir.path().join(CHECKPOINTS_FILE);
        let mut bytes = fs::read(&path).unwrap();
        bytes.extend_from_slice(&[9, 0, 0]);
        fs::write(&path, &bytes).unwrap();
        let torn = read_all(dir.path()).unwrap();
        assert_eq!((torn.notes.len(), torn.torn_bytes), (2, 3));
        CheckpointStore::open(dir.path(), torn.good_bytes).unwrap();
        assert_eq!(read_all(dir.path()).unwrap(), good);
    }

    #[test]
    fn a_flipped_bit_in_an_earlier_note_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = CheckpointStore::open(dir.path(), 0).unwrap();
        store.append("one\n").unwrap();
        store.append("two\n").unwrap();
        let path = dir.path().join(CHECKPOINTS_FILE);
        let mut bytes = fs::read(&path).unwrap();
        bytes[9] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert!(matches!(
            read_all(dir.path()),
            Err(StoreError::Frame { number: 0, .. })
        ));
    }
}
