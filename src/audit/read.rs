//! Reading entries for people (`cordon audit show`): every entry of the log, checked on
//! the way like `verify` does, with its body decoded into a printable JSON value.
//! Tolerates a torn tail, since the log may be read while the node is appending. A body
//! kept as a blob (too large to inline) is shown from its blob when it is still there.

use std::path::Path;

use serde::Serialize;

use super::blobs::BlobStore;
use super::entry::{Entry, EntryHash};
use super::log::AuditError;
use super::verify::scan;

/// One entry as people read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredEntry {
    pub index: u64,
    /// Hex SHA-256 of the entry's encoded bytes.
    pub hash: String,
    pub at_ms: u64,
    pub request_id: String,
    pub event_id: String,
    pub actor: String,
    pub host: String,
    pub kind: String,
    /// The stored form of the record (see `stored`), as JSON.
    pub body: serde_json::Value,
}

impl StoredEntry {
    fn from_entry(
        entry: &Entry,
        hash: &EntryHash,
        blobs: &BlobStore,
    ) -> Result<StoredEntry, AuditError> {
        let body = rmp_serde::from_slice(&entry.body).map_err(|e| AuditError::BadBody {
            index: entry.index,
            message: e.to_string(),
        })?;
        let body = resolve_large(body, blobs);
        Ok(StoredEntry {
            index: entry.index,
            hash: hex::encode(hash),
            at_ms: entry.at_ms,
            request_id: entry.request_id.clone(),
            event_id: entry.event_id.clone(),
            actor: entry.actor.clone(),
            host: entry.host.clone(),
            kind: entry.kind.clone(),
            body,
        })
    }
}

/// The entries of the log in `dir`, in order; only those of `request_id` when given.
pub fn read_entries(dir: &Path, request_id: Option<&str>) -> Result<Vec<StoredEntry>, AuditError> {
    let mut entries = Vec::new();
    let blobs = BlobStore::new(dir);
    scan(dir, &[], |entry, hash| {
        if request_id.is_none_or(|wanted| wanted == entry.request_id) {
            entries.push(StoredEntry::from_entry(entry, hash, &blobs)?);
        }
        Ok::<(), AuditError>(())
    })?;
    Ok(entries)
}

/// The body a `body_blob` names, when the blob is there and decodes; else `body` as is.
fn resolve_large(body: serde_json::Value, blobs: &BlobStore) -> serde_json::Value {
    let Some(sha256) = body.get("body_blob").and_then(|v| v.as_str()) else {
        return body;
    };
    blobs
        .get(sha256)
        .ok()
        .and_then(|bytes| rmp_serde::from_slice(&bytes).ok())
        .unwrap_or(body)
}
