//! Signed checkpoints catch what a hash chain alone cannot: a cut-off tail, a log rewritten
//! and re-chained, a whole log replaced and re-signed by another key (against a checkpoint
//! saved elsewhere), and an altered checkpoint; a torn last checkpoint is cut off on open.

mod audit_common;

use std::fs;
use std::path::Path;

use audit_common::{append_range, frame_ranges, log_with, only_segment};
use cordon::audit::checkpoint::{CheckpointError, NoteVerifier};
use cordon::audit::checkpoint_store::CHECKPOINTS_FILE;
use cordon::audit::keyfile::KEY_FILE;
use cordon::audit::{
    verify, verify_with, AuditError, AuditLog, CheckpointProblem, LogOptions, VerifyError,
    VerifyOptions,
};

/// A log of `n` entries with one checkpoint over them all; returns the note text.
fn checkpointed(n: u64) -> (tempfile::TempDir, String) {
    let dir = log_with(n, LogOptions::default());
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let signed = log
        .checkpoint()
        .unwrap()
        .expect("new entries get a checkpoint");
    assert_eq!(signed.checkpoint.size, n);
    (dir, signed.note)
}

fn saved(note: &str) -> VerifyOptions {
    VerifyOptions {
        saved: Some(note.to_owned()),
        ..VerifyOptions::default()
    }
}

fn open_refuses(dir: &Path) -> VerifyError {
    match AuditLog::open(dir) {
        Err(AuditError::Corrupt(e)) => e,
        other => panic!("open should refuse, got {other:?}"),
    }
}

/// Cuts the only segment after its first `keep` frames, on a frame boundary.
fn cut_after(dir: &Path, keep: usize) {
    let segment = only_segment(dir);
    let end = frame_ranges(&segment)[keep - 1].1;
    let mut bytes = fs::read(&segment).unwrap();
    bytes.truncate(end);
    fs::write(&segment, bytes).unwrap();
}

#[test]
fn checkpoints_are_kept_and_reported_and_a_quiet_log_signs_nothing_new() {
    let (dir, note) = checkpointed(5);
    let (mut log, recovery) = AuditLog::open(dir.path()).unwrap();
    assert_eq!(recovery.checkpoint.map(|c| c.size), Some(5));
    assert!(log.checkpoint().unwrap().is_none());
    append_range(&mut log, 5, 9);
    let second = log.checkpoint().unwrap().unwrap();
    drop(log);
    let report = verify_with(dir.path(), &saved(&note)).unwrap();
    assert_eq!((report.entries, report.checkpoints), (9, 2));
    assert_eq!(report.latest, Some(second.checkpoint.clone()));
    assert_eq!(report.root, second.checkpoint.root);
    let mode = fs::metadata(dir.path().join(KEY_FILE)).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o600
    );
}

#[test]
fn a_tail_cut_on_a_frame_boundary_is_caught_against_the_stored_checkpoint() {
    let (dir, _) = checkpointed(5);
    cut_after(dir.path(), 3);
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(
            error,
            VerifyError::Shorter {
                entries: 3,
                size: 5,
                ..
            }
        ),
        "{error}"
    );
    assert!(matches!(
        open_refuses(dir.path()),
        VerifyError::Shorter { .. }
    ));
}

#[test]
fn a_tail_cut_with_the_checkpoint_store_removed_is_caught_by_a_saved_checkpoint() {
    let (dir, note) = checkpointed(5);
    cut_after(dir.path(), 3);
    fs::remove_file(dir.path().join(CHECKPOINTS_FILE)).unwrap();
    assert_eq!(
        verify(dir.path()).unwrap().entries,
        3,
        "alone it looks fine"
    );
    let error = verify_with(dir.path(), &saved(&note)).unwrap_err();
    assert!(
        matches!(
            error,
            VerifyError::Shorter {
                entries: 3,
                size: 5,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn a_log_rewritten_and_rechained_with_the_same_key_fails_the_stored_root() {
    let (dir, _) = checkpointed(5);
    let key = fs::read(dir.path().join(KEY_FILE)).unwrap();
    let checkpoints = fs::read(dir.path().join(CHECKPOINTS_FILE)).unwrap();
    // Rebuild the log from scratch with one event changed, then put the old store back.
    let forged = tempfile::tempdir().unwrap();
    fs::write(forged.path().join(KEY_FILE), &key).unwrap();
    let perms = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    fs::set_permissions(forged.path().join(KEY_FILE), perms).unwrap();
    let (mut log, _) = AuditLog::open(forged.path()).unwrap();
    append_range(&mut log, 0, 2);
    let mut event = audit_common::event(2);
    event.host = "elsewhere".into();
    log.append(&audit_common::request_of(2), &event).unwrap();
    append_range(&mut log, 3, 5);
    drop(log);
    fs::write(forged.path().join(CHECKPOINTS_FILE), checkpoints).unwrap();
    let error = verify(forged.path()).unwrap_err();
    assert!(
        matches!(error, VerifyError::RootMismatch { size: 5, .. }),
        "{error}"
    );
    assert!(matches!(
        open_refuses(forged.path()),
        VerifyError::RootMismatch { .. }
    ));
}

#[test]
fn a_whole_log_replaced_and_resigned_by_another_key_fails_a_saved_checkpoint() {
    let (dir, note) = checkpointed(5);
    let original = NoteVerifier::parse(&verifier_text(dir.path())).unwrap();
    let forged = log_with(5, LogOptions::default());
    {
        let (mut log, _) = AuditLog::open(forged.path()).unwrap();
        log.checkpoint().unwrap().unwrap();
    }
    assert_eq!(
        verify(forged.path()).unwrap().entries,
        5,
        "alone it verifies"
    );
    let error = verify_with(forged.path(), &saved(&note)).unwrap_err();
    assert!(
        matches!(error, VerifyError::Saved(CheckpointError::NotSigned { .. })),
        "{error}"
    );
    let with_original_key = VerifyOptions {
        verifier: Some(original),
        saved: Some(note),
    };
    let error = verify_with(forged.path(), &with_original_key).unwrap_err();
    assert!(
        matches!(error, VerifyError::Checkpoint { number: 0, .. }),
        "{error}"
    );
}

#[test]
fn a_flipped_bit_in_a_checkpoint_signature_is_caught() {
    let (dir, _) = checkpointed(5);
    let path = dir.path().join(CHECKPOINTS_FILE);
    let mut bytes = fs::read(&path).unwrap();
    let text_start = 8;
    let signature_line = bytes.len() - 20; // inside the base64 of the last line
    assert!(signature_line > text_start);
    bytes[signature_line] = if bytes[signature_line] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let crc = crc32c::crc32c(&bytes[text_start..]);
    bytes[4..8].copy_from_slice(&crc.to_le_bytes());
    fs::write(&path, bytes).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(
            error,
            VerifyError::Checkpoint {
                number: 0,
                problem: CheckpointProblem::Signature(CheckpointError::BadSignature { .. })
            }
        ),
        "{error}"
    );
    assert!(matches!(
        open_refuses(dir.path()),
        VerifyError::Checkpoint { .. }
    ));
}

#[test]
fn a_torn_last_checkpoint_is_cut_off_on_open_and_named_by_verify() {
    let (dir, _) = checkpointed(5);
    let path = dir.path().join(CHECKPOINTS_FILE);
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(&[0x40, 0, 0, 0, 1]);
    fs::write(&path, bytes).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert!(
        matches!(error, VerifyError::Checkpoint { number: 1, .. }),
        "{error}"
    );
    let (_, recovery) = AuditLog::open(dir.path()).unwrap();
    assert_eq!(recovery.torn_checkpoint_bytes, 5);
    assert_eq!(verify(dir.path()).unwrap().checkpoints, 1);
}

#[test]
fn a_torn_entry_under_a_signed_checkpoint_is_not_cut_off() {
    let (dir, _) = checkpointed(5);
    let segment = only_segment(dir.path());
    let mut bytes = fs::read(&segment).unwrap();
    bytes.truncate(bytes.len() - 3);
    fs::write(&segment, bytes.clone()).unwrap();
    assert!(matches!(
        open_refuses(dir.path()),
        VerifyError::Shorter { .. }
    ));
    assert_eq!(fs::read(&segment).unwrap(), bytes, "nothing was repaired");
}

fn verifier_text(dir: &Path) -> String {
    let (log, _) = AuditLog::open(dir).unwrap();
    log.verifier().to_text()
}
