//! Retention: segments whose entries are past the cutoff become zstd archives, the blobs
//! only they name are deleted under a `retention` entry, and the log, old checkpoints and
//! proofs still verify; a blob still named by a kept entry stays, and tampering with an
//! archive or deleting a kept blob is caught. `cordon audit compact` does the same by hand,
//! and refuses while another process holds the log.

mod audit_common;

use std::fs;
use std::path::Path;
use std::process::Command;

use cordon::audit::archive::{list_archives, ARCHIVE_DIR};
use cordon::audit::blobs::{blob_name, BlobProblem, BlobStore, PRUNED_FILE};
use cordon::audit::merkle::verify_inclusion;
use cordon::audit::{proofs, read_entries, verify, verify_with, AuditLog, LogOptions};
use cordon::audit::{VerifyError, VerifyOptions};
use cordon::protocol::assessor::{Origin, TrustLevel};
use cordon::protocol::audit::{AuditEvent, AuditRecord};

const DAY_MS: u64 = 86_400_000;
/// "Now" for these tests; old entries are 40 days before it, recent ones 1 day.
const NOW: u64 = 1_800_000_000_000;
const OLD_AT: u64 = NOW - 40 * DAY_MS;
const RECENT_AT: u64 = NOW - DAY_MS;
const CUTOFF: u64 = NOW - 30 * DAY_MS;
const SHARED: &str = "print('submitted long ago and again lately')\n";

fn options() -> LogOptions {
    LogOptions {
        segment_bytes: 400,
        ..LogOptions::default()
    }
}

fn submission(i: u64, at_ms: u64, code: &str) -> AuditEvent {
    AuditEvent {
        event_id: format!("req-{i}.received"),
        actor: "assessor".into(),
        host: "host-1".into(),
        at_ms,
        record: AuditRecord::Received {
            code_sha256: blob_name(code.as_bytes()),
            code_bytes: code.len() as u64,
            trust: TrustLevel::Untrusted,
            origin: Origin::External,
            client: Some(format!("client-{i}")),
            submitter: "alice".into(),
            code: Some(code.into()),
            input: None,
        },
    }
}

fn old_code(i: u64) -> String {
    format!("print('old program {i}')\n")
}

/// Ten old submissions (the first with `SHARED`) over several segments, a saved
/// checkpoint, then three recent ones (one resubmitting `SHARED`).
fn aged_log() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open_with(dir.path(), options()).unwrap();
    for i in 0..10 {
        let code = if i == 0 { SHARED.into() } else { old_code(i) };
        log.append(&format!("req-{i}"), &submission(i, OLD_AT + i, &code))
            .unwrap();
        log.sync().unwrap();
    }
    let saved = log.checkpoint().unwrap().unwrap().note;
    for i in 10..13 {
        let code = if i == 10 { SHARED.into() } else { old_code(i) };
        log.append(&format!("req-{i}"), &submission(i, RECENT_AT, &code))
            .unwrap();
    }
    log.sync().unwrap();
    drop(log);
    (dir, saved)
}

fn compact(dir: &Path, cutoff: u64) -> cordon::audit::retention::Compacted {
    let (mut log, _) = AuditLog::open_with(dir, options()).unwrap();
    let done = log.compact(cutoff, NOW).unwrap();
    log.checkpoint().unwrap();
    done
}

#[test]
fn old_segments_are_archived_their_blobs_pruned_and_everything_still_verifies() {
    let (dir, saved) = aged_log();
    let store = BlobStore::new(dir.path());
    let before = verify(dir.path()).unwrap();
    let done = compact(dir.path(), CUTOFF);

    assert!(!done.archived.is_empty(), "{done:?}");
    let archives = list_archives(dir.path()).unwrap();
    assert_eq!(archives.len(), done.archived.len());
    let horizon = done.blobs_pruned_below.unwrap();
    assert!(horizon <= 10, "recent entries stay plain: {done:?}");
    assert!(done.blobs_deleted > 0);
    for i in 1..horizon {
        assert!(!store.contains(&blob_name(old_code(i).as_bytes())), "{i}");
    }
    assert!(store.contains(&blob_name(SHARED.as_bytes())), "still named");
    assert_eq!(
        fs::read_to_string(dir.path().join(PRUNED_FILE))
            .unwrap()
            .trim(),
        horizon.to_string()
    );

    let report = verify(dir.path()).unwrap();
    assert_eq!(
        report.entries,
        before.entries + 1,
        "plus the retention entry"
    );
    let options = VerifyOptions {
        saved: Some(saved),
        ..VerifyOptions::default()
    };
    verify_with(dir.path(), &options).expect("consistent with the old checkpoint");
    let entries = read_entries(dir.path(), None).unwrap();
    assert_eq!(
        entries[0].event_id, "req-0.received",
        "archived entries read"
    );
    let retention = entries.last().unwrap();
    assert_eq!(retention.kind, "retention");
    assert_eq!(retention.body["blobs_pruned_below"], horizon);

    let proof = proofs::prove(dir.path(), 1).unwrap();
    let leaf: [u8; 32] = hex::decode(&proof.leaf).unwrap().try_into().unwrap();
    let root: [u8; 32] = hex::decode(&proof.root).unwrap().try_into().unwrap();
    let path: Vec<[u8; 32]> = proof
        .proof
        .iter()
        .map(|h| hex::decode(h).unwrap().try_into().unwrap())
        .collect();
    verify_inclusion(&leaf, 1, proof.size, &path, &root).expect("an archived entry is proved");
}

#[test]
fn the_log_goes_on_after_compaction_and_a_second_run_is_a_no_op() {
    let (dir, _) = aged_log();
    compact(dir.path(), CUTOFF);
    assert_eq!(compact(dir.path(), CUTOFF).archived, Vec::<u64>::new());
    let (mut log, recovery) = AuditLog::open_with(dir.path(), options()).unwrap();
    let next = recovery.entries;
    log.append("req-new", &submission(99, NOW, &old_code(99)))
        .unwrap();
    log.sync().unwrap();
    drop(log);
    assert_eq!(verify(dir.path()).unwrap().entries, next + 1);
}

#[test]
fn a_quiet_log_is_closed_and_archived_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    for i in 0..3 {
        log.append(&format!("req-{i}"), &submission(i, OLD_AT, &old_code(i)))
            .unwrap();
    }
    let done = log.compact(CUTOFF, NOW).unwrap();
    drop(log);
    assert_eq!(done.archived, vec![0]);
    assert_eq!(done.blobs_pruned_below, Some(3));
    assert_eq!(done.blobs_deleted, 3);
    assert_eq!(verify(dir.path()).unwrap().entries, 4);
}

#[test]
fn nothing_younger_than_the_cutoff_is_touched() {
    let (dir, _) = aged_log();
    let done = compact(dir.path(), OLD_AT - DAY_MS);
    assert!(done.archived.is_empty() && done.entry.is_none(), "{done:?}");
    assert!(!dir.path().join(ARCHIVE_DIR).exists());
    assert!(!dir.path().join(PRUNED_FILE).exists());
}

#[test]
fn a_flipped_bit_in_an_archive_is_caught() {
    let (dir, _) = aged_log();
    compact(dir.path(), CUTOFF);
    let archive = &list_archives(dir.path()).unwrap()[0].path;
    let mut bytes = fs::read(archive).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x08;
    fs::write(archive, bytes).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        error.to_string().contains("archive") || error.index().is_some(),
        "{error}"
    );
}

#[test]
fn a_deleted_blob_a_kept_entry_names_is_still_caught() {
    let (dir, _) = aged_log();
    compact(dir.path(), CUTOFF);
    let store = BlobStore::new(dir.path());
    let recent = blob_name(old_code(11).as_bytes());
    fs::remove_file(store.path_of(&recent).unwrap()).unwrap();
    match verify(dir.path()) {
        Err(VerifyError::Blob {
            index: 11,
            problem: BlobProblem::Missing { .. },
        }) => {}
        other => panic!("expected blob of entry 11 missing, got {other:?}"),
    }
}

#[test]
fn a_raised_pruning_marker_is_caught() {
    let (dir, _) = aged_log();
    compact(dir.path(), CUTOFF);
    cordon::audit::blobs::write_pruned_below(dir.path(), 12).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(error, VerifyError::PrunedMarker { claimed: 12, .. }),
        "{error}"
    );
}

#[test]
fn cordon_audit_compact_archives_by_age_and_the_log_verifies() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().join("audit");
    let (mut log, _) = AuditLog::open_with(&dir, options()).unwrap();
    for i in 0..6 {
        log.append(&format!("req-{i}"), &submission(i, 1_000 + i, &old_code(i)))
            .unwrap();
    }
    log.sync().unwrap();
    drop(log);
    let cordon = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cordon"))
            .arg("--data-dir")
            .arg(data.path())
            .args(args)
            .output()
            .unwrap()
    };
    let bad = cordon(&["audit", "compact", "--older-than", "soon"]);
    assert_eq!(bad.status.code(), Some(1));
    let out = cordon(&["audit", "compact", "--older-than", "1d"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let done: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!done["archived"].as_array().unwrap().is_empty(), "{done}");
    assert_eq!(done["blobs_deleted"], 6);
    let verified = cordon(&["audit", "verify"]);
    let text = String::from_utf8_lossy(&verified.stdout);
    assert!(text.starts_with("ok: 7 entries"), "{text}");

    let (_held, _) = AuditLog::open_with(&dir, options()).unwrap();
    let locked = cordon(&["audit", "compact", "--older-than", "1d"]);
    assert_eq!(locked.status.code(), Some(1));
    let message = String::from_utf8_lossy(&locked.stderr);
    assert!(message.contains("another process holds"), "{message}");
}

#[test]
fn a_crash_between_archiving_and_deleting_a_segment_leaves_the_plain_one_in_charge() {
    let (dir, _) = aged_log();
    let first = audit_common::segments(dir.path())[0].clone();
    let archive_dir = dir.path().join(ARCHIVE_DIR);
    fs::create_dir_all(&archive_dir).unwrap();
    let archive = archive_dir.join(cordon::audit::archive::archive_name(0));
    // An archive that does not even decompress: the plain segment must win.
    fs::write(&archive, b"not zstd").unwrap();
    fs::write(archive_dir.join("stray.tmp"), b"left by a crash").unwrap();
    let entries = verify(dir.path()).unwrap().entries;

    let done = compact(dir.path(), CUTOFF);
    assert_eq!(done.archived[0], 0, "{done:?}");
    assert!(!first.exists(), "archived again, then deleted");
    assert_eq!(verify(dir.path()).unwrap().entries, entries + 1);
}
