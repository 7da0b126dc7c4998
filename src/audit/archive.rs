//! Archived segments: `<dir>/archive/<first index:020>.seg.zst`, a closed segment file
//! compressed whole with zstd, byte for byte the same once decompressed. Written by
//! retention (`AuditLog::compact`), read by every walk of the log (`verify::scan`).
//! Invariants: an archive is durable (temp file, fsync, rename, fsync of the directory)
//! and checked to decompress to the segment's bytes before the segment is deleted; a
//! crash in between leaves both, and the plain segment wins; decompression is capped.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::segment::{
    parse_segment_name, segment_name, sync_dir, SegmentError, SegmentFile, SEGMENTS_DIR,
};

/// The directory under the log directory that holds the archives.
pub const ARCHIVE_DIR: &str = "archive";
const ARCHIVE_EXTENSION: &str = ".zst";
const TEMP_SUFFIX: &str = ".tmp";
/// zstd level: a good ratio on repetitive entries at a modest CPU cost.
const LEVEL: i32 = 9;
/// The most bytes one archive may decompress to (a segment is 64 MiB by default).
pub const MAX_SEGMENT_READ: u64 = 1 << 30;

/// The archive file name of the segment starting at `first_index`.
pub fn archive_name(first_index: u64) -> String {
    format!("{}{ARCHIVE_EXTENSION}", segment_name(first_index))
}

/// The archives in `<log dir>/archive`, by first index; leftover temp files are skipped,
/// anything else is an error (nothing but cordon writes there).
pub fn list_archives(log_dir: &Path) -> Result<Vec<SegmentFile>, SegmentError> {
    let dir = log_dir.join(ARCHIVE_DIR);
    let read_dir = match fs::read_dir(&dir) {
        Ok(read_dir) => read_dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SegmentError::io("list", &dir)(e)),
    };
    let mut archives = Vec::new();
    for item in read_dir {
        let path = item.map_err(SegmentError::io("list", &dir))?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name.ends_with(TEMP_SUFFIX) {
            continue;
        }
        let first = name
            .strip_suffix(ARCHIVE_EXTENSION)
            .and_then(parse_segment_name);
        match first {
            Some(first_index) => archives.push(SegmentFile {
                first_index,
                path,
                archived: true,
            }),
            None => return Err(SegmentError::UnexpectedFile { path }),
        }
    }
    archives.sort_by_key(|s| s.first_index);
    Ok(archives)
}

/// Every segment of the log, plain and archived, by first index; where a crash left a
/// segment in both forms, the plain one.
pub fn list_log(log_dir: &Path) -> Result<Vec<SegmentFile>, SegmentError> {
    let plain = super::segment::list_segments(&log_dir.join(SEGMENTS_DIR))?;
    let mut all: Vec<SegmentFile> = list_archives(log_dir)?
        .into_iter()
        .filter(|a| !plain.iter().any(|p| p.first_index == a.first_index))
        .collect();
    all.extend(plain);
    all.sort_by_key(|s| s.first_index);
    Ok(all)
}

/// The bytes of a segment, decompressing an archive (at most `MAX_SEGMENT_READ`).
pub fn read_segment(segment: &SegmentFile) -> Result<Vec<u8>, SegmentError> {
    if !segment.archived {
        return fs::read(&segment.path).map_err(SegmentError::io("read", &segment.path));
    }
    let file = File::open(&segment.path).map_err(SegmentError::io("open", &segment.path))?;
    let decoder =
        zstd::stream::Decoder::new(file).map_err(SegmentError::io("decompress", &segment.path))?;
    let mut bytes = Vec::new();
    decoder
        .take(MAX_SEGMENT_READ + 1)
        .read_to_end(&mut bytes)
        .map_err(SegmentError::io("decompress", &segment.path))?;
    if bytes.len() as u64 > MAX_SEGMENT_READ {
        let too_big = io::Error::other(format!("decompresses past {MAX_SEGMENT_READ} bytes"));
        return Err(SegmentError::io("decompress", &segment.path)(too_big));
    }
    Ok(bytes)
}

/// Compresses the closed plain segment `segment` (whose bytes are `bytes`) into its
/// archive, durably, checks the archive reads back as `bytes`, then deletes the segment.
pub fn archive_segment(
    log_dir: &Path,
    segment: &SegmentFile,
    bytes: &[u8],
) -> Result<PathBuf, SegmentError> {
    let dir = log_dir.join(ARCHIVE_DIR);
    if !dir.is_dir() {
        fs::create_dir_all(&dir).map_err(SegmentError::io("create", &dir))?;
        sync_dir(log_dir)?;
    }
    let path = dir.join(archive_name(segment.first_index));
    let temp = dir.join(format!(
        "{}{TEMP_SUFFIX}",
        archive_name(segment.first_index)
    ));
    let compressed =
        zstd::bulk::compress(bytes, LEVEL).map_err(SegmentError::io("compress", &segment.path))?;
    write_synced(&temp, &compressed)?;
    fs::rename(&temp, &path).map_err(SegmentError::io("rename", &path))?;
    sync_dir(&dir)?;
    let archived = SegmentFile {
        first_index: segment.first_index,
        path: path.clone(),
        archived: true,
    };
    if read_segment(&archived)? != bytes {
        let differs = io::Error::other("the archive does not read back as the segment");
        return Err(SegmentError::io("check", &path)(differs));
    }
    fs::remove_file(&segment.path).map_err(SegmentError::io("delete", &segment.path))?;
    sync_dir(&log_dir.join(SEGMENTS_DIR))?;
    Ok(path)
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), SegmentError> {
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(path)
        .map_err(SegmentError::io("create", path))?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(SegmentError::io("write", path))
}
