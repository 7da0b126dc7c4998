//! `Payloads`: what `AuditLog` needs to turn an event into an entry body with blobs: the
//! blob store and the last code each client submitted (for the unified diff of the next
//! submission). The memory of clients is bounded (`MAX_CLIENTS`, oldest forgotten first)
//! and rebuilt from the log's `received` entries on open.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use serde::Deserialize;

use super::blobs::{BlobError, BlobStore};
use super::codediff::unified_diff;
use super::stored::{blob_refs, stored_form, BlobRef, CodeDiff, StoredError, StoredForm};
use crate::protocol::audit::AuditRecord;

/// Most clients whose last submission is remembered.
pub const MAX_CLIENTS: usize = 10_000;

/// The blob store and the clients' last submissions.
#[derive(Debug)]
pub struct Payloads {
    store: BlobStore,
    last_code: LastCode,
}

impl Payloads {
    pub fn new(log_dir: &Path) -> Payloads {
        Payloads {
            store: BlobStore::new(log_dir),
            last_code: LastCode::default(),
        }
    }

    pub fn store(&self) -> &BlobStore {
        &self.store
    }

    /// The stored form of `record` for request `request_id`: for a submission, its code
    /// diffed against the same client's previous one (when that code is still kept).
    pub fn prepare<'a>(
        &self,
        request_id: &str,
        record: &'a AuditRecord,
    ) -> Result<StoredForm<'a>, StoredError> {
        let diff = match record {
            AuditRecord::Received {
                client: Some(client),
                submitter,
                code: Some(code),
                ..
            } => self.diff_with_previous(&session_key(submitter, client), request_id, code),
            _ => None,
        };
        stored_form(record, diff)
    }

    /// Writes every blob of `form` durably; the entry may be appended only after this.
    pub fn store_blobs(&self, form: &StoredForm) -> Result<(), BlobError> {
        for blob in &form.blobs {
            self.store.put(&blob.bytes)?;
        }
        Ok(())
    }

    /// Remembers a `received` entry's client and code, on append and on open.
    pub fn observe(&mut self, kind: &str, request_id: &str, body: &[u8]) {
        if kind != "received" {
            return;
        }
        #[derive(Deserialize)]
        struct Client {
            #[serde(default)]
            client: Option<String>,
            #[serde(default)]
            submitter: String,
        }
        let Ok(Client {
            client: Some(client),
            submitter,
        }) = rmp_serde::from_slice::<Client>(body)
        else {
            return;
        };
        let code = blob_refs(body).into_iter().find(|r| r.what == "code");
        if let Some(code) = code {
            let key = session_key(&submitter, &client);
            self.last_code.insert(key, request_id.to_owned(), code);
        }
    }

    fn diff_with_previous(
        &self,
        client: &str,
        request_id: &str,
        code: &str,
    ) -> Option<(CodeDiff, String)> {
        let (previous_id, previous) = self.last_code.get(client)?;
        let old = self.store.get(&previous.sha256).ok()?;
        let old = String::from_utf8(old).ok()?;
        let text = unified_diff(previous_id, &old, request_id, code);
        let diff = CodeDiff {
            previous_request_id: previous_id.to_owned(),
            previous_sha256: previous.sha256.clone(),
            sha256: super::blobs::blob_name(text.as_bytes()),
            bytes: text.len() as u64,
        };
        Some((diff, text))
    }
}

/// Client -> (request id, code blob) of its last submission, for at most `MAX_CLIENTS`.
#[derive(Debug, Default)]
struct LastCode {
    by_client: HashMap<String, (u64, String, BlobRef)>,
    /// (client, stamp) in insertion order; stale stamps are skipped when evicting.
    order: VecDeque<(String, u64)>,
    stamp: u64,
}

impl LastCode {
    fn get(&self, client: &str) -> Option<(&str, &BlobRef)> {
        self.by_client
            .get(client)
            .map(|(_, request_id, code)| (request_id.as_str(), code))
    }

    fn insert(&mut self, client: String, request_id: String, code: BlobRef) {
        self.stamp += 1;
        self.order.push_back((client.clone(), self.stamp));
        self.by_client
            .insert(client, (self.stamp, request_id, code));
        while self.by_client.len() > MAX_CLIENTS || self.order.len() > 2 * MAX_CLIENTS {
            let Some((oldest, stamp)) = self.order.pop_front() else {
                break;
            };
            if self
                .by_client
                .get(&oldest)
                .is_some_and(|(s, ..)| *s == stamp)
            {
                self.by_client.remove(&oldest);
            }
        }
    }
}

/// Whose previous submission a new one is diffed against: the session key (the body's
/// `client`) within the client the bus authenticated, so one client's session never
/// diffs against another's.
fn session_key(submitter: &str, session: &str) -> String {
    format!("{submitter}/{session}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(n: u64) -> BlobRef {
        BlobRef {
            sha256: format!("{n:064x}"),
            bytes: 1,
            what: "code".into(),
        }
    }

    #[test]
    fn the_memory_of_clients_is_bounded_and_keeps_the_latest() {
        let mut last = LastCode::default();
        for n in 0..(MAX_CLIENTS as u64 + 10) {
            last.insert(format!("c{n}"), format!("r{n}"), code(n));
            last.insert("steady".into(), format!("s{n}"), code(n));
        }
        assert!(last.by_client.len() <= MAX_CLIENTS);
        assert!(last.order.len() <= 2 * MAX_CLIENTS);
        assert_eq!(
            last.get("steady").map(|(r, _)| r.to_owned()),
            Some(format!("s{}", MAX_CLIENTS + 9))
        );
        assert!(last.get("c0").is_none());
    }
}
