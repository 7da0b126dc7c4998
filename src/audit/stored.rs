//! The stored form of an `AuditRecord`: what goes in an entry's `body`, and the blobs it
//! names. Pure: no I/O (the caller stores the blobs, durably, before the entry).
//!
//! Every record is kept as is, except: `Finished`, whose `stdout` and `stderr` become an
//! `OutputDigest` (SHA-256, size and a short preview) with the full streams as blobs;
//! `Received`, whose code becomes a blob (and its unified diff against the client's
//! previous submission another); `Rejected`, whose payload's head becomes a blob; and any
//! body over `INLINE_BODY_BYTES`, which becomes a blob itself, so entries stay small.
//! Every blob an entry names is listed in the body's top-level `blobs` array (`BlobRef`),
//! which is what `verify` checks.
//! Encoding is `rmp_serde::to_vec_named` of structs whose fields serialize in declared
//! order, with no maps of unordered keys, so it is deterministic.

use crate::text::preview_of;
use serde::{Deserialize, Serialize};

use std::borrow::Cow;

use super::blobs::{blob_name, MAX_BLOB_BYTES};
use crate::protocol::assessor::{Assessment, Origin, TrustLevel};
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{AuditRef, ErrorInfo, ExecResult, Status, Usage, Violation};
use crate::protocol::interpreter::{
    CellInput, FileDigest, NetworkDenial, RuntimeSummary, SessionAction, SessionInfo, SkippedFile,
};
use crate::protocol::scheduler::Limits;

/// How many bytes of each output stream an entry keeps as a preview.
pub const PREVIEW_BYTES: usize = 1024;
/// A body larger than this is stored as a blob and the entry names it.
pub const INLINE_BODY_BYTES: usize = 16 * 1024;

/// One blob an entry names: its SHA-256 (hex, the blob's file name), size and role
/// (`code`, `code_diff`, `stdout`, `stderr`, `body`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobRef {
    pub sha256: String,
    pub bytes: u64,
    pub what: String,
}

/// A blob to store before the entry naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBlob<'a> {
    pub reference: BlobRef,
    pub bytes: Cow<'a, [u8]>,
}

impl<'a> NewBlob<'a> {
    /// A blob of `bytes` in the role `what`, unless it is empty or over the blob limit.
    pub fn of(what: &str, bytes: Cow<'a, [u8]>) -> Option<NewBlob<'a>> {
        let size = bytes.len() as u64;
        if size == 0 || size > MAX_BLOB_BYTES {
            return None;
        }
        let reference = BlobRef {
            sha256: blob_name(&bytes),
            bytes: size,
            what: what.to_owned(),
        };
        Some(NewBlob { reference, bytes })
    }
}

/// An entry body and the blobs it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredForm<'a> {
    pub body: Vec<u8>,
    pub blobs: Vec<NewBlob<'a>>,
}

/// How a submission differs from the same client's previous one (a unified diff, kept
/// as the `code_diff` blob when the code changed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeDiff {
    pub previous_request_id: String,
    pub previous_sha256: String,
    /// Hex SHA-256 of the unified diff (the blob's name); of "" when the code is the same.
    pub sha256: String,
    pub bytes: u64,
}

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
            sha256: blob_name(text.as_bytes()),
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionInfo>,
    /// The files returned: name, size, hash and type (each kept as a `file_out` blob).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<FileDigest>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_skipped: Vec<SkippedFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_denied: Vec<NetworkDenial>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeSummary>,
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
            session,
            files,
            files_skipped,
            network_denied,
            runtime,
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
            session: session.clone(),
            files: files
                .iter()
                .map(|f| FileDigest {
                    name: f.name.clone(),
                    bytes: f.bytes,
                    sha256: f.sha256.clone(),
                    media_type: f.media_type.clone(),
                })
                .collect(),
            files_skipped: files_skipped.clone(),
            network_denied: network_denied.clone(),
            runtime: runtime.clone(),
        }
    }
}

/// The stored shape of `AuditRecord::Finished`: the same `{"type": "finished", "result"}`
/// map the record itself serializes to, plus the output blobs.
#[derive(Serialize)]
struct StoredFinished {
    #[serde(rename = "type")]
    kind: &'static str,
    result: StoredResult,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    blobs: Vec<BlobRef>,
}

/// The stored shape of `AuditRecord::Received` with its code: the code as a blob.
#[derive(Serialize)]
struct StoredReceived<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    code_sha256: &'a str,
    code_bytes: u64,
    trust: TrustLevel,
    origin: Origin,
    client: &'a Option<String>,
    /// The client the bus authenticated (the `<client>` of the submit subject).
    #[serde(skip_serializing_if = "str::is_empty")]
    submitter: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_diff: Option<CodeDiff>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<StoredInput<'a>>,
    blobs: Vec<BlobRef>,
}

/// What an entry keeps of a request's interpreter input: the session action, and each
/// file and stdin as a digest (their content as `file_in` and `stdin` blobs).
#[derive(Serialize)]
struct StoredInput<'a> {
    session: &'a Option<SessionAction>,
    files: Vec<FileDigest>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stdin: Option<FileDigest>,
}

fn digest_of(name: &str, bytes: &[u8]) -> FileDigest {
    FileDigest {
        name: name.to_string(),
        bytes: bytes.len() as u64,
        sha256: blob_name(bytes),
        media_type: String::new(),
    }
}

/// The stored form of an interpreter input, and its blobs.
fn stored_input(input: &CellInput) -> (StoredInput<'_>, Vec<NewBlob<'_>>) {
    let files = input
        .files
        .iter()
        .map(|f| (f.path.as_str(), "file_in", f.content.as_slice()));
    let stdin = input
        .stdin
        .iter()
        .map(|s| ("<stdin>", "stdin", s.as_slice()));
    let all: Vec<(&str, &str, &[u8])> = files.chain(stdin).collect();
    let blobs = all
        .iter()
        .filter_map(|(_, what, bytes)| NewBlob::of(what, Cow::Borrowed(*bytes)))
        .collect();
    let stored = StoredInput {
        session: &input.session,
        files: input
            .files
            .iter()
            .map(|f| digest_of(&f.path, &f.content))
            .collect(),
        stdin: input.stdin.as_ref().map(|s| digest_of("<stdin>", s)),
    };
    (stored, blobs)
}

/// The stored shape of `AuditRecord::Rejected` with its payload's head: that as a blob.
#[derive(Serialize)]
struct StoredRejected<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    error: &'a ErrorInfo,
    payload_sha256: &'a str,
    payload_bytes: u64,
    blobs: Vec<BlobRef>,
}

/// The body of an entry whose own body was too large: it names the blob holding it.
#[derive(Serialize)]
struct StoredLarge<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    body_blob: String,
    blobs: Vec<BlobRef>,
}

/// The MessagePack `body` of an entry for `record` (without its blobs).
#[cfg(test)]
pub fn stored_body(record: &AuditRecord) -> Result<Vec<u8>, StoredError> {
    Ok(stored_form(record, None)?.body)
}

/// The body of an entry for `record` and the blobs it names; `diff` is the unified diff
/// of a `Received` record's code against the client's previous submission.
pub fn stored_form<'a>(
    record: &'a AuditRecord,
    diff: Option<(CodeDiff, String)>,
) -> Result<StoredForm<'a>, StoredError> {
    let encode_error = |source| StoredError::Encode {
        kind: record.name(),
        source,
    };
    let (body, blobs) = match record {
        AuditRecord::Finished { result } => finished_form(record, result),
        AuditRecord::Received {
            code: Some(code), ..
        } => received_form(record, code, diff),
        AuditRecord::Rejected {
            error,
            payload_sha256,
            payload_bytes,
            payload_head: Some(head),
        } => {
            let blobs: Vec<NewBlob> = NewBlob::of("payload", Cow::Borrowed(head.as_slice()))
                .into_iter()
                .collect();
            let body = rmp_serde::to_vec_named(&StoredRejected {
                kind: record.name(),
                error,
                payload_sha256,
                payload_bytes: *payload_bytes,
                blobs: references(&blobs),
            });
            (body, blobs)
        }
        other => (rmp_serde::to_vec_named(other), Vec::new()),
    };
    let form = StoredForm {
        body: body.map_err(encode_error)?,
        blobs,
    };
    spill_large(record.name(), form).map_err(encode_error)
}

type Encoded<'a> = (Result<Vec<u8>, rmp_serde::encode::Error>, Vec<NewBlob<'a>>);

fn finished_form<'a>(record: &AuditRecord, result: &'a ExecResult) -> Encoded<'a> {
    let streams = [("stdout", &result.stdout), ("stderr", &result.stderr)]
        .into_iter()
        .map(|(what, text)| (what, text.as_bytes()));
    let files = result
        .files
        .iter()
        .map(|f| ("file_out", f.content.as_slice()));
    let blobs: Vec<NewBlob> = streams
        .chain(files)
        .filter_map(|(what, bytes)| NewBlob::of(what, Cow::Borrowed(bytes)))
        .collect();
    let body = rmp_serde::to_vec_named(&StoredFinished {
        kind: record.name(),
        result: StoredResult::of(result),
        blobs: references(&blobs),
    });
    (body, blobs)
}

fn received_form<'a>(
    record: &'a AuditRecord,
    code: &'a str,
    diff: Option<(CodeDiff, String)>,
) -> Encoded<'a> {
    let AuditRecord::Received {
        code_sha256,
        code_bytes,
        trust,
        origin,
        client,
        submitter,
        input,
        ..
    } = record
    else {
        return (rmp_serde::to_vec_named(record), Vec::new());
    };
    let mut blobs: Vec<NewBlob> = NewBlob::of("code", Cow::Borrowed(code.as_bytes()))
        .into_iter()
        .collect();
    let code_diff = diff.map(|(code_diff, text)| {
        blobs.extend(NewBlob::of("code_diff", Cow::Owned(text.into_bytes())));
        code_diff
    });
    let input = input.as_ref().map(|input| {
        let (stored, input_blobs) = stored_input(input);
        blobs.extend(input_blobs);
        stored
    });
    let body = rmp_serde::to_vec_named(&StoredReceived {
        kind: record.name(),
        code_sha256,
        code_bytes: *code_bytes,
        trust: *trust,
        origin: *origin,
        client,
        submitter,
        code_diff,
        input,
        blobs: references(&blobs),
    });
    (body, blobs)
}

/// A body over `INLINE_BODY_BYTES` goes to a blob; the entry keeps a small body naming it
/// (and every blob the large body named).
fn spill_large<'a>(
    kind: &str,
    form: StoredForm<'a>,
) -> Result<StoredForm<'a>, rmp_serde::encode::Error> {
    if form.body.len() <= INLINE_BODY_BYTES {
        return Ok(form);
    }
    let StoredForm { body, mut blobs } = form;
    let Some(large) = NewBlob::of("body", Cow::Owned(body.clone())) else {
        return Ok(StoredForm { body, blobs });
    };
    let body_blob = large.reference.sha256.clone();
    blobs.push(large);
    let body = rmp_serde::to_vec_named(&StoredLarge {
        kind,
        body_blob,
        blobs: references(&blobs),
    })?;
    Ok(StoredForm { body, blobs })
}

fn references(blobs: &[NewBlob]) -> Vec<BlobRef> {
    blobs.iter().map(|b| b.reference.clone()).collect()
}

/// The kind of the entry retention appends after archiving segments and pruning blobs.
pub const RETENTION_KIND: &str = "retention";

/// The body of a `retention` entry, written by the log itself (actor `audit`): blobs
/// named by entries below `blobs_pruned_below` may have been deleted. `verify` accepts a
/// missing blob only under such an entry, which the chain and later checkpoints cover.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetentionMark {
    #[serde(rename = "type")]
    pub kind: String,
    /// Entries at or before this time (Unix ms) were past retention.
    pub cutoff_ms: u64,
    /// First index of each segment archived by this run.
    pub archived: Vec<u64>,
    pub blobs_pruned_below: u64,
    pub blobs_deleted: u64,
}

/// The blobs a stored body names (its top-level `blobs` array); none for a body that has
/// no such array or is not a map. Cheap for bodies that cannot hold one.
pub fn blob_refs(body: &[u8]) -> Vec<BlobRef> {
    #[derive(Deserialize)]
    struct Refs {
        #[serde(default)]
        blobs: Vec<BlobRef>,
    }
    if memchr::memmem::find(body, b"\xa5blobs").is_none() {
        return Vec::new();
    }
    rmp_serde::from_slice::<Refs>(body)
        .map(|r| r.blobs)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exec::ExecResult;
    use sha2::{Digest, Sha256};

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
    fn only_a_top_level_blobs_array_counts_as_blob_references() {
        let record = finished("the word blobs in a preview");
        let form = stored_form(&record, None).unwrap();
        let refs = blob_refs(&form.body);
        assert_eq!(refs.len(), 1, "stdout only: stderr is empty");
        assert_eq!(refs[0].what, "stdout");
        let nested = rmp_serde::to_vec_named(&serde_json::json!({"x": {"blobs": [1]}})).unwrap();
        assert!(blob_refs(&nested).is_empty());
        assert!(blob_refs(b"\xa5blobs not msgpack").is_empty());
    }

    #[test]
    fn a_body_over_the_inline_limit_becomes_a_blob_it_names() {
        let record = finished(&"y".repeat(10));
        let mut big = match &record {
            AuditRecord::Finished { result } => (**result).clone(),
            _ => unreachable!(),
        };
        big.error = Some(ErrorInfo::new(
            crate::protocol::exec::ErrorCode::Internal,
            "e".repeat(2 * INLINE_BODY_BYTES),
        ));
        let record = AuditRecord::Finished {
            result: Box::new(big),
        };
        let form = stored_form(&record, None).unwrap();
        assert!(form.body.len() < 1024);
        let whats: Vec<_> = blob_refs(&form.body).into_iter().map(|r| r.what).collect();
        assert_eq!(whats, ["stdout", "body"]);
        let large = form.blobs.last().unwrap();
        assert!(large.bytes.len() > 2 * INLINE_BODY_BYTES);
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
