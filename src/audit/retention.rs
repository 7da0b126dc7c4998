//! Retention: the parts of `AuditLog::compact` that read and rewrite files. A closed
//! segment whose newest entry is older than the cutoff is compressed into an archive
//! (oldest first, stopping at the first that is not); the blobs its entries name may then
//! be deleted, unless an entry still in a plain segment names them too.
//! What is never deleted: any entry (leaf hashes and the chain stay checkable), any
//! signed checkpoint, the key. The log appends a `retention` entry saying how far blobs
//! were pruned before any is deleted (see `blobcheck`).

use std::collections::BTreeSet;
use std::path::Path;

use super::archive::{archive_segment, read_segment};
use super::blobs::{BlobError, BlobStore};
use super::entry::Entry;
use super::frame::{read_frame, FrameRead, HEADER_LEN};
use super::segment::{list_segments, SegmentError, SegmentFile, SEGMENTS_DIR};
use super::stored::blob_refs;

/// Why retention could not run.
#[derive(Debug, thiserror::Error)]
pub enum RetentionError {
    #[error(transparent)]
    Segment(#[from] SegmentError),
    #[error("retention: {0}")]
    Blob(#[from] BlobError),
    #[error("retention: {} at byte {offset} does not read as entries: {why}", .path.display())]
    Unreadable {
        path: std::path::PathBuf,
        offset: usize,
        why: String,
    },
}

/// What one compaction did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Compacted {
    /// First index of each segment archived.
    pub archived: Vec<u64>,
    /// Blobs named only by entries below this index may have been deleted.
    pub blobs_pruned_below: Option<u64>,
    pub blobs_deleted: u64,
    /// The index of the `retention` entry written, if any.
    pub entry: Option<u64>,
}

/// A closed plain segment, read.
pub(crate) struct Closed {
    pub segment: SegmentFile,
    pub bytes: Vec<u8>,
    pub oldest_ms: Option<u64>,
    pub newest_ms: Option<u64>,
    /// The blobs its entries name.
    pub blobs: Vec<String>,
}

/// Reads every entry of a plain segment (already checked when the log was opened).
pub(crate) fn read_closed(segment: SegmentFile) -> Result<Closed, RetentionError> {
    let bytes = read_segment(&segment)?;
    let mut closed = Closed {
        segment,
        bytes: Vec::new(),
        oldest_ms: None,
        newest_ms: None,
        blobs: Vec::new(),
    };
    let path = closed.segment.path.clone();
    let unreadable = |offset: usize, why: String| RetentionError::Unreadable {
        path: path.clone(),
        offset,
        why,
    };
    let mut at = HEADER_LEN.min(bytes.len());
    let mut entries = Vec::new();
    loop {
        match read_frame(&bytes, at) {
            FrameRead::End => break,
            FrameRead::Frame { payload, next } => {
                let entry = Entry::decode(payload).map_err(|e| unreadable(at, e.to_string()))?;
                entries.push(entry);
                at = next;
            }
            FrameRead::Incomplete { .. } => return Err(unreadable(at, "incomplete frame".into())),
            FrameRead::Bad(e) => return Err(unreadable(at, e.to_string())),
        }
    }
    for entry in entries {
        closed.oldest_ms = Some(closed.oldest_ms.map_or(entry.at_ms, |t| t.min(entry.at_ms)));
        closed.newest_ms = Some(closed.newest_ms.map_or(entry.at_ms, |t| t.max(entry.at_ms)));
        closed
            .blobs
            .extend(blob_refs(&entry.body).into_iter().map(|r| r.sha256));
    }
    closed.bytes = bytes;
    Ok(closed)
}

/// Archives, oldest first, every closed plain segment (all but the one starting at
/// `active_first`) whose newest entry is older than `cutoff_ms`, stopping at the first
/// that is not. Returns what was archived, the blobs those segments name, and the first
/// index still in a plain segment.
pub(crate) fn archive_old(
    log_dir: &Path,
    active_first: u64,
    cutoff_ms: u64,
) -> Result<(Vec<u64>, BTreeSet<String>, u64), RetentionError> {
    let mut archived = Vec::new();
    let mut candidates = BTreeSet::new();
    let mut horizon = active_first;
    for segment in list_segments(&log_dir.join(SEGMENTS_DIR))? {
        if segment.first_index >= active_first {
            break;
        }
        let closed = read_closed(segment)?;
        if closed.newest_ms.is_some_and(|newest| newest >= cutoff_ms) {
            horizon = closed.segment.first_index;
            break;
        }
        archive_segment(log_dir, &closed.segment, &closed.bytes)?;
        archived.push(closed.segment.first_index);
        candidates.extend(closed.blobs);
    }
    Ok((archived, candidates, horizon))
}

/// The blobs of `candidates` that no entry in a plain segment names and that exist.
pub(crate) fn prunable(
    log_dir: &Path,
    store: &BlobStore,
    mut candidates: BTreeSet<String>,
) -> Result<Vec<String>, RetentionError> {
    for segment in list_segments(&log_dir.join(SEGMENTS_DIR))? {
        for blob in read_closed(segment)?.blobs {
            candidates.remove(&blob);
        }
    }
    Ok(candidates
        .into_iter()
        .filter(|sha| store.contains(sha))
        .collect())
}
