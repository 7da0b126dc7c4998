//! Reading entries for people (`cordon audit show`): every entry of the log, checked on
//! the way like `verify` does, with its body decoded into a printable JSON value.
//! Tolerates a torn tail, since the log may be read while the node is appending.

use std::path::Path;

use serde::Serialize;

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
    fn from_entry(entry: &Entry, hash: &EntryHash) -> Result<StoredEntry, AuditError> {
        let body = rmp_serde::from_slice(&entry.body).map_err(|e| AuditError::BadBody {
            index: entry.index,
            message: e.to_string(),
        })?;
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
    scan(dir, &[], |entry, hash| {
        if request_id.is_none_or(|wanted| wanted == entry.request_id) {
            entries.push(StoredEntry::from_entry(entry, hash)?);
        }
        Ok::<(), AuditError>(())
    })?;
    Ok(entries)
}
