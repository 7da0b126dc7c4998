//! What the log keeps as blobs: a submission's code by SHA-256 with a unified diff against
//! the same client's previous one (also across a reopen), the full stdout and stderr of a
//! result behind capped previews, a rejected payload's head, and a body too large to
//! inline; `verify` checks them all
//! and names an entry whose blob is missing or altered.

mod audit_common;

use std::fs;
use std::path::Path;

use cordon::audit::blobs::{blob_name, BlobProblem, BlobStore};
use cordon::audit::stored::{INLINE_BODY_BYTES, PREVIEW_BYTES};
use cordon::audit::{read_entries, verify, AuditLog, StoredEntry, VerifyError};
use cordon::protocol::assessor::{Origin, TrustLevel};
use cordon::protocol::audit::{AuditEvent, AuditRecord};
use cordon::protocol::exec::{ErrorCode, ErrorInfo, ExecResult, Status};

const OLD: &str = "x = 1\nprint(x)\n";
const NEW: &str = "x = 2\nprint(x)\n";

fn event(request_id: &str, what: &str, record: AuditRecord) -> AuditEvent {
    AuditEvent {
        event_id: format!("{request_id}.{what}"),
        actor: "assessor".into(),
        host: "host-1".into(),
        at_ms: 1_700_000_000_000,
        record,
    }
}

fn received(client: &str, code: &str) -> AuditRecord {
    AuditRecord::Received {
        code_sha256: blob_name(code.as_bytes()),
        code_bytes: code.len() as u64,
        trust: TrustLevel::Untrusted,
        origin: Origin::External,
        client: Some(client.into()),
        submitter: "alice".into(),
        code: Some(code.into()),
        input: None,
    }
}

fn submit(log: &mut AuditLog, request_id: &str, client: &str, code: &str) -> u64 {
    let appended = log
        .append(
            request_id,
            &event(request_id, "received", received(client, code)),
        )
        .unwrap();
    log.sync().unwrap();
    appended.index
}

fn entry(dir: &Path, index: u64) -> StoredEntry {
    read_entries(dir, None).unwrap().remove(index as usize)
}

fn blob_text(dir: &Path, sha256: &serde_json::Value) -> String {
    let bytes = BlobStore::new(dir).get(sha256.as_str().unwrap()).unwrap();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn code_is_a_blob_and_a_resubmission_keeps_a_unified_diff_against_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let first = submit(&mut log, "req-a", "session-1", OLD);
    submit(&mut log, "req-other", "session-2", "print('other')\n");
    let second = submit(&mut log, "req-b", "session-1", NEW);
    drop(log);

    let body = entry(dir.path(), first).body;
    assert!(body.get("code").is_none(), "code is not inline: {body}");
    assert!(
        body.get("code_diff").is_none(),
        "first submission has no diff"
    );
    let code = &body["blobs"][0];
    assert_eq!(code["what"], "code");
    assert_eq!(blob_text(dir.path(), &code["sha256"]), OLD);

    let body = entry(dir.path(), second).body;
    let diff = &body["code_diff"];
    assert_eq!(diff["previous_request_id"], "req-a");
    assert_eq!(diff["previous_sha256"], blob_name(OLD.as_bytes()));
    let text = blob_text(dir.path(), &diff["sha256"]);
    assert!(text.contains("-x = 1\n+x = 2\n"), "{text}");
    assert_eq!(verify(dir.path()).unwrap().entries, 3);
}

#[test]
fn the_previous_submission_is_remembered_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    submit(&mut log, "req-a", "session-1", OLD);
    drop(log);
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let index = submit(&mut log, "req-b", "session-1", NEW);
    drop(log);
    let body = entry(dir.path(), index).body;
    assert_eq!(body["code_diff"]["previous_request_id"], "req-a");
}

#[test]
fn full_outputs_are_blobs_behind_capped_previews() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let mut result = ExecResult::without_run("req-a", Status::Completed);
    result.stdout = "o".repeat(10 * PREVIEW_BYTES);
    result.stderr = "warning\n".into();
    let record = AuditRecord::Finished {
        result: Box::new(result),
    };
    let index = log
        .append("req-a", &event("req-a", "finished", record))
        .unwrap()
        .index;
    log.sync().unwrap();
    drop(log);

    let body = entry(dir.path(), index).body;
    let stdout = &body["result"]["stdout"];
    assert_eq!(stdout["preview"].as_str().unwrap().len(), PREVIEW_BYTES);
    let blobs = body["blobs"].as_array().unwrap();
    let whats: Vec<&str> = blobs.iter().map(|b| b["what"].as_str().unwrap()).collect();
    assert_eq!(whats, ["stdout", "stderr"]);
    assert_eq!(blobs[0]["sha256"], stdout["sha256"]);
    assert_eq!(
        blob_text(dir.path(), &blobs[0]["sha256"]).len(),
        10 * PREVIEW_BYTES
    );
    assert_eq!(blob_text(dir.path(), &blobs[1]["sha256"]), "warning\n");
    verify(dir.path()).unwrap();
}

#[test]
fn a_large_body_is_a_blob_and_shown_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let message = "m".repeat(4 * INLINE_BODY_BYTES);
    let record = AuditRecord::Rejected {
        error: ErrorInfo::new(ErrorCode::InvalidRequest, message.clone()),
        payload_sha256: "00".repeat(32),
        payload_bytes: 1,
        payload_head: None,
    };
    log.append("req-a", &event("req-a", "rejected", record))
        .unwrap();
    log.sync().unwrap();
    drop(log);

    let segment = audit_common::only_segment(dir.path());
    assert!(fs::metadata(segment).unwrap().len() < INLINE_BODY_BYTES as u64);
    let shown = entry(dir.path(), 0).body;
    assert_eq!(shown["error"]["message"], message.as_str());
    verify(dir.path()).unwrap();
}

/// A log whose entry 1 names a code blob; returns the blob's path.
fn log_with_code_blob() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    audit_common::append_range(&mut log, 0, 1);
    submit(&mut log, "req-a", "session-1", OLD);
    audit_common::append_range_from(&mut log, 2, 4);
    drop(log);
    let path = BlobStore::new(dir.path())
        .path_of(&blob_name(OLD.as_bytes()))
        .unwrap();
    (dir, path)
}

#[test]
fn a_flipped_bit_in_a_blob_is_named_at_the_entry_that_names_it() {
    let (dir, path) = log_with_code_blob();
    let mut bytes = fs::read(&path).unwrap();
    bytes[3] ^= 0x01;
    fs::write(&path, bytes).unwrap();
    match verify(dir.path()) {
        Err(VerifyError::Blob {
            index: 1,
            problem: BlobProblem::Mismatch { what, .. },
        }) => assert_eq!(what, "code"),
        other => panic!("expected a blob mismatch at entry 1, got {other:?}"),
    }
}

#[test]
fn a_deleted_blob_is_named_as_missing() {
    let (dir, path) = log_with_code_blob();
    fs::remove_file(&path).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(
            error,
            VerifyError::Blob {
                index: 1,
                problem: BlobProblem::Missing { .. }
            }
        ),
        "{error}"
    );
}

#[test]
fn a_pruning_marker_the_log_does_not_back_is_refused() {
    let (dir, path) = log_with_code_blob();
    fs::remove_file(&path).unwrap();
    cordon::audit::blobs::write_pruned_below(dir.path(), 4).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(error, VerifyError::PrunedMarker { claimed: 4, .. }),
        "{error}"
    );
}

#[test]
fn a_rejected_payload_is_kept_as_a_blob_capped_at_its_head() {
    use cordon::protocol::audit::MAX_REJECTED_PAYLOAD_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let payload = vec![0xc1u8; 3 * MAX_REJECTED_PAYLOAD_BYTES]; // never valid MessagePack
    let record = AuditRecord::rejected(
        ErrorInfo::new(ErrorCode::InvalidMsgpack, "not MessagePack"),
        &payload,
    );
    log.append("", &event("bad-1", "rejected", record)).unwrap();
    log.sync().unwrap();
    drop(log);
    let body = entry(dir.path(), 0).body;
    assert!(body.get("payload_head").is_none(), "not inline: {body}");
    assert_eq!(body["payload_bytes"], payload.len());
    let blob = &body["blobs"][0];
    assert_eq!(blob["what"], "payload");
    assert_eq!(blob["bytes"], MAX_REJECTED_PAYLOAD_BYTES);
    let kept = BlobStore::new(dir.path())
        .get(blob["sha256"].as_str().unwrap())
        .unwrap();
    assert_eq!(kept, payload[..MAX_REJECTED_PAYLOAD_BYTES]);
    verify(dir.path()).unwrap();
}
