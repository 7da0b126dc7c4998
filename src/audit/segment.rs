//! Segment files on disk: naming (`<dir>/segments/<first index, 20 digits>.seg`), listing,
//! creating, and the writer of the active segment. The only place that writes segment
//! bytes; it keeps them append-only and makes a new segment durable (header, file,
//! directory) before any entry goes into it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::frame::{encode_frame, SegmentHeader, FRAME_OVERHEAD, HEADER_LEN};

/// The directory under the log directory that holds the segments.
pub const SEGMENTS_DIR: &str = "segments";
const SEGMENT_EXTENSION: &str = ".seg";
/// Pending bytes above which the writer hands them to the kernel before `sync`.
const WRITE_THROUGH_BYTES: usize = 1024 * 1024;

/// Why a segment file could not be listed, created or written.
#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("unexpected file {path} among the segments (names are <20 digits>.seg)")]
    UnexpectedFile { path: PathBuf },
}

impl SegmentError {
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> SegmentError {
        let path = path.to_path_buf();
        move |source| SegmentError::Io {
            action,
            path,
            source,
        }
    }
}

/// One segment file and the index its name says it starts at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentFile {
    pub first_index: u64,
    pub path: PathBuf,
    /// A zstd archive (`archive::ARCHIVE_DIR`) rather than a plain segment.
    pub archived: bool,
}

/// The file name of the segment starting at `first_index`.
pub fn segment_name(first_index: u64) -> String {
    format!("{first_index:020}{SEGMENT_EXTENSION}")
}

/// The first index a segment file name says, if it is one.
pub fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(SEGMENT_EXTENSION)?;
    let all_digits = digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit());
    all_digits.then(|| digits.parse().ok()).flatten()
}

/// The segments in `segments_dir`, by first index. Any other file is an error: nothing
/// but cordon should write there.
pub fn list_segments(segments_dir: &Path) -> Result<Vec<SegmentFile>, SegmentError> {
    let read_dir = fs::read_dir(segments_dir).map_err(SegmentError::io("list", segments_dir))?;
    let mut segments = Vec::new();
    for item in read_dir {
        let path = item.map_err(SegmentError::io("list", segments_dir))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        match parse_segment_name(name) {
            Some(first_index) => segments.push(SegmentFile {
                first_index,
                path,
                archived: false,
            }),
            None => return Err(SegmentError::UnexpectedFile { path }),
        }
    }
    segments.sort_by_key(|s| s.first_index);
    Ok(segments)
}

/// Makes a directory's entries (new files) durable.
pub fn sync_dir(dir: &Path) -> Result<(), SegmentError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(SegmentError::io("fsync directory", dir))
}

/// The segment being appended to. Frames are gathered in memory and reach the disk on
/// `sync` (or earlier, without fsync, when many are pending).
#[derive(Debug)]
pub struct SegmentWriter {
    path: PathBuf,
    first_index: u64,
    file: File,
    /// Bytes in the file plus bytes pending.
    len: u64,
    pending: Vec<u8>,
}

impl SegmentWriter {
    /// Creates the segment for `first_index` and makes it durable: header, file, directory.
    pub fn create(segments_dir: &Path, first_index: u64) -> Result<SegmentWriter, SegmentError> {
        let path = segments_dir.join(segment_name(first_index));
        let file = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(SegmentError::io("create", &path))?;
        let mut writer = SegmentWriter::at_end(path, first_index, file, 0);
        writer.write_header(first_index)?;
        sync_dir(segments_dir)?;
        Ok(writer)
    }

    /// Reopens an existing segment, cutting it to its first `keep` bytes (a torn tail),
    /// and writing a fresh header when not even that survived.
    pub fn reopen(
        segment: &Path,
        first_index: u64,
        keep: u64,
    ) -> Result<SegmentWriter, SegmentError> {
        let file = OpenOptions::new()
            .append(true)
            .open(segment)
            .map_err(SegmentError::io("open", segment))?;
        let mut writer = SegmentWriter::at_end(segment.to_path_buf(), first_index, file, keep);
        if keep < HEADER_LEN as u64 {
            writer.cut_to(0)?;
            writer.write_header(first_index)?;
        } else if writer.file_len()? != keep {
            writer.cut_to(keep)?;
        }
        Ok(writer)
    }

    fn at_end(path: PathBuf, first_index: u64, file: File, len: u64) -> SegmentWriter {
        SegmentWriter {
            path,
            first_index,
            file,
            len,
            pending: Vec::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The index of the segment's first entry.
    pub fn first_index(&self) -> u64 {
        self.first_index
    }

    /// Bytes the segment holds, including those not yet written.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the segment holds no entry yet.
    pub fn is_empty(&self) -> bool {
        self.len <= HEADER_LEN as u64
    }

    /// How many bytes a frame carrying `payload_len` bytes adds.
    pub fn frame_len(payload_len: usize) -> u64 {
        (FRAME_OVERHEAD + payload_len) as u64
    }

    /// Queues one frame; it is durable after the next `sync`.
    pub fn push_frame(&mut self, payload: &[u8]) -> Result<(), SegmentError> {
        encode_frame(payload, &mut self.pending);
        self.len += Self::frame_len(payload.len());
        if self.pending.len() >= WRITE_THROUGH_BYTES {
            self.write_pending()?;
        }
        Ok(())
    }

    /// Writes what is pending and fdatasyncs the file.
    pub fn sync(&mut self) -> Result<(), SegmentError> {
        self.write_pending()?;
        self.file
            .sync_data()
            .map_err(SegmentError::io("fdatasync", &self.path))
    }

    /// Hands pending bytes to the kernel, without fsync.
    pub fn write_pending(&mut self) -> Result<(), SegmentError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let written = self.file.write_all(&self.pending);
        self.pending.clear();
        written.map_err(SegmentError::io("write", &self.path))
    }

    fn write_header(&mut self, first_index: u64) -> Result<(), SegmentError> {
        self.pending
            .extend_from_slice(&SegmentHeader { first_index }.encode());
        self.len += HEADER_LEN as u64;
        self.sync()
    }

    fn file_len(&self) -> Result<u64, SegmentError> {
        self.file
            .metadata()
            .map(|m| m.len())
            .map_err(SegmentError::io("stat", &self.path))
    }

    fn cut_to(&mut self, len: u64) -> Result<(), SegmentError> {
        self.file
            .set_len(len)
            .and_then(|()| self.file.sync_all())
            .map_err(SegmentError::io("truncate", &self.path))?;
        self.len = len;
        Ok(())
    }
}
