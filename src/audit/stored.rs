//! The stored form of an `AuditRecord`: what goes in an entry's `body`. Pure: no I/O.
//!
//! Every record is kept as is, except `Finished`, whose `stdout` and `stderr` are replaced
//! by an `OutputDigest` (SHA-256, size and a short preview) so entries stay small; the
//! full output goes to the client in the `ExecResult`, and a later blob store can keep it.
//! Encoding is `rmp_serde::to_vec_named` of structs whose fields serialize in declared
//! order, with no maps of unordered keys, so it is deterministic.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::protocol::assessor::Assessment;
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{AuditRef, ErrorInfo, ExecResult, Status, Usage, Violation};
use crate::protocol::scheduler::Limits;

/// How many bytes of each output stream an entry keeps as a preview.
pub const PREVIEW_BYTES: usize = 1024;

/// Why a record could not be turned into its stored form.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    #[error("record `{kind}` could not be encoded as MessagePack: {source}")]
    Encode {
        kind: &'static str,
        #[source]
        source: rmp_serde::encode::Error,
    },
}

/// What an entry keeps of one output stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputDigest {
    /// Hex SHA-256 of the whole stream as the client received it.
    pub sha256: String,
    /// Its length in bytes.
    pub bytes: u64,
    /// Its first `PREVIEW_BYTES` bytes at most, cut on a character boundary.
    pub preview: String,
}

impl OutputDigest {
    pub fn of(text: &str) -> OutputDigest {
        OutputDigest {
            sha256: hex::encode(Sha256::digest(text.as_bytes())),
            bytes: text.len() as u64,
            preview: preview_of(text, PREVIEW_BYTES).to_owned(),
        }
    }
}

/// `ExecResult` with its output streams replaced by digests. Field for field the same
/// names and order as `ExecResult`, so a reader sees the same document shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredResult {
    pub request_id: String,
    pub status: Status,
    pub exit_code: Option<i64>,
    pub stdout: OutputDigest,
    pub stderr: OutputDigest,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub violation: Option<Violation>,
    pub assessment: Option<Assessment>,
    pub limits: Option<Limits>,
    pub usage: Option<Usage>,
    pub audit: Option<AuditRef>,
    pub error: Option<ErrorInfo>,
}

impl StoredResult {
    /// Destructures every field, so a new `ExecResult` field fails to compile here until
    /// someone decides how it is stored.
    pub fn of(result: &ExecResult) -> StoredResult {
        let ExecResult {
            request_id,
            status,
            exit_code,
            stdout,
            stderr,
            stdout_truncated,
            stderr_truncated,
            violation,
            assessment,
            limits,
            usage,
            audit,
            error,
        } = result;
        StoredResult {
            request_id: request_id.clone(),
            status: *status,
            exit_code: *exit_code,
            stdout: OutputDigest::of(stdout),
            stderr: OutputDigest::of(stderr),
            stdout_truncated: *stdout_truncated,
            stderr_truncated: *stderr_truncated,
            violation: violation.clone(),
            assessment: assessment.clone(),
            limits: limits.clone(),
            usage: usage.clone(),
            audit: audit.clone(),
            error: error.clone(),
        }
    }
}

/// The stored shape of `AuditRecord::Finished`: the same `{"type": "finished", "result"}`
/// map the record itself serializes to.
#[derive(Serialize)]
struct StoredFinished {
    #[serde(rename = "type")]
    kind: &'static str,
    result: StoredResult,
}

/// The MessagePack `body` of an entry for `record`.
pub fn stored_body(record: &AuditRecord) -> Result<Vec<u8>, StoredError> {
    let encoded = match record {
        AuditRecord::Finished { result } => rmp_serde::to_vec_named(&StoredFinished {
            kind: record.name(),
            result: StoredResult::of(result),
        }),
        other => rmp_serde::to_vec_named(other),
    };
    encoded.map_err(|source| StoredError::Encode {
        kind: record.name(),
        source,
    })
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn preview_of(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exec::ExecResult;

    fn finished(stdout: &str) -> AuditRecord {
        let mut result = ExecResult::without_run("req-1", Status::Completed);
        result.stdout = stdout.to_owned();
        result.exit_code = Some(0);
        AuditRecord::Finished {
            result: Box::new(result),
        }
    }

    #[test]
    fn finished_output_is_kept_as_a_digest_with_a_capped_preview() {
        let stdout = "x".repeat(5000);
        let body = stored_body(&finished(&stdout)).unwrap();
        let value: serde_json::Value = rmp_serde::from_slice(&body).unwrap();
        assert_eq!(value["type"], "finished");
        let digest = &value["result"]["stdout"];
        assert_eq!(digest["bytes"], 5000);
        assert_eq!(digest["preview"].as_str().unwrap().len(), PREVIEW_BYTES);
        assert_eq!(
            digest["sha256"],
            hex::encode(Sha256::digest(stdout.as_bytes()))
        );
        assert!(body.len() < 2 * PREVIEW_BYTES);
    }

    #[test]
    fn the_preview_never_splits_a_character() {
        let text = "é".repeat(600); // 2 bytes each: byte 1024 is a boundary, 1023 is not
        assert_eq!(preview_of(&text, 1023).len(), 1022);
        assert_eq!(preview_of("héllo", 2), "h");
        assert_eq!(preview_of("short", PREVIEW_BYTES), "short");
    }

    #[test]
    fn other_records_are_stored_as_they_serialize() {
        let record = AuditRecord::ContainerStarted {
            container_id: "c1".into(),
        };
        let body = stored_body(&record).unwrap();
        let back: AuditRecord = rmp_serde::from_slice(&body).unwrap();
        assert_eq!(back, record);
    }

    #[test]
    fn the_stored_form_is_deterministic() {
        let record = finished("hello");
        assert_eq!(
            stored_body(&record).unwrap(),
            stored_body(&record.clone()).unwrap()
        );
    }
}
