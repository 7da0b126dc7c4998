//! Tampering with a log on disk is caught by `verify` (and refused by `open`), naming the
//! entry; only a torn last write, the trace of a crash, is cut off by `open`.

mod audit_common;

use std::fs;
use std::path::Path;

use audit_common::{append_range, frame_ranges, log_with, named, only_segment, segments};
use cordon::audit::chain::LinkError;
use cordon::audit::frame::{FrameError, FRAME_OVERHEAD};
use cordon::audit::segment::segment_name;
use cordon::audit::{verify, AuditError, AuditLog, LogOptions, Problem};

const ENTRIES: u64 = 5;

/// A five-entry log, one segment.
fn small_log() -> tempfile::TempDir {
    log_with(ENTRIES, LogOptions::default())
}

/// Rewrites the only segment of the log in `dir` with `edit`.
fn tamper(dir: &Path, edit: impl FnOnce(&mut Vec<u8>, &[(usize, usize)])) {
    let segment = only_segment(dir);
    let ranges = frame_ranges(&segment);
    let mut bytes = fs::read(&segment).unwrap();
    edit(&mut bytes, &ranges);
    fs::write(&segment, bytes).unwrap();
}

/// `verify` names `index`, `open` refuses naming it too; returns verify's problem.
fn caught_at(dir: &Path, index: u64) -> Problem {
    let (named_index, problem) = named(verify(dir).unwrap_err());
    assert_eq!(
        named_index, index,
        "verify named the wrong entry: {problem}"
    );
    match AuditLog::open(dir) {
        Err(AuditError::Corrupt(e)) => assert_eq!(e.index(), Some(index), "{e}"),
        other => panic!("open should refuse a tampered log, got {other:?}"),
    }
    problem
}

#[test]
fn an_untouched_log_verifies() {
    let dir = small_log();
    let report = verify(dir.path()).unwrap();
    assert_eq!(report.entries, ENTRIES);
    let (log, _) = AuditLog::open(dir.path()).unwrap();
    assert_eq!(report.head_hash, log.head_hash());
}

#[test]
fn a_flipped_payload_bit_is_a_crc_mismatch_at_that_entry() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        bytes[ranges[2].0 + FRAME_OVERHEAD + 20] ^= 0x04
    });
    let problem = caught_at(dir.path(), 2);
    assert!(
        matches!(problem, Problem::Frame(FrameError::CrcMismatch { .. })),
        "{problem}"
    );
}

#[test]
fn a_flipped_crc_bit_is_a_crc_mismatch_at_that_entry() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| bytes[ranges[2].0 + 5] ^= 0x80);
    let problem = caught_at(dir.path(), 2);
    assert!(
        matches!(problem, Problem::Frame(FrameError::CrcMismatch { .. })),
        "{problem}"
    );
}

#[test]
fn a_flipped_low_length_bit_is_caught_at_that_entry() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| bytes[ranges[2].0] ^= 0x01);
    let problem = caught_at(dir.path(), 2);
    assert!(
        matches!(problem, Problem::Frame(FrameError::CrcMismatch { .. })),
        "{problem}"
    );
}

#[test]
fn a_flipped_high_length_bit_is_an_impossible_length_at_that_entry() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| bytes[ranges[1].0 + 3] ^= 0x40);
    let problem = caught_at(dir.path(), 1);
    assert!(
        matches!(problem, Problem::Frame(FrameError::TooLong { .. })),
        "{problem}"
    );
}

#[test]
fn a_length_grown_past_the_end_is_not_mistaken_for_a_torn_write() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        let (start, _) = ranges[3];
        bytes[start..start + 4].copy_from_slice(&4000u32.to_le_bytes());
    });
    let problem = caught_at(dir.path(), 3);
    assert!(matches!(problem, Problem::Truncated { .. }), "{problem}");
}

#[test]
fn a_deleted_entry_is_an_index_gap_where_it_was() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        bytes.drain(ranges[2].0..ranges[2].1);
    });
    let problem = caught_at(dir.path(), 2);
    let gap = LinkError::IndexGap {
        expected: 2,
        found: 3,
    };
    assert_eq!(problem, Problem::Link(gap));
}

#[test]
fn swapped_entries_are_an_index_gap_at_the_first_of_them() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        let one = bytes[ranges[1].0..ranges[1].1].to_vec();
        let two = bytes[ranges[2].0..ranges[2].1].to_vec();
        let swapped = [two, one].concat();
        bytes.splice(ranges[1].0..ranges[2].1, swapped);
    });
    let problem = caught_at(dir.path(), 1);
    let gap = LinkError::IndexGap {
        expected: 1,
        found: 2,
    };
    assert_eq!(problem, Problem::Link(gap));
}

#[test]
fn a_duplicated_entry_is_an_index_gap_right_after_the_original() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        let copy = bytes[ranges[2].0..ranges[2].1].to_vec();
        bytes.splice(ranges[2].1..ranges[2].1, copy);
    });
    let problem = caught_at(dir.path(), 3);
    let gap = LinkError::IndexGap {
        expected: 3,
        found: 2,
    };
    assert_eq!(problem, Problem::Link(gap));
}

#[test]
fn an_entry_rewritten_with_a_fresh_crc_breaks_the_chain_at_the_next_entry() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        let (start, end) = ranges[2];
        let payload = start + FRAME_OVERHEAD;
        // Change at_ms (bytes 41..49 of the entry), then recompute the frame's CRC.
        bytes[payload + 41] ^= 0x01;
        let crc = crc32c::crc32c(&bytes[payload..end]);
        bytes[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    });
    let problem = caught_at(dir.path(), 3);
    assert!(
        matches!(problem, Problem::Link(LinkError::BrokenChain { .. })),
        "{problem}"
    );
}

#[test]
fn a_deleted_segment_is_a_segment_gap() {
    let options = LogOptions {
        segment_bytes: 300,
        ..LogOptions::default()
    };
    let dir = log_with(12, options);
    let paths = segments(dir.path());
    assert!(
        paths.len() >= 3,
        "want several segments, got {}",
        paths.len()
    );
    let second_first_index = frame_ranges(&paths[0]).len() as u64;
    fs::remove_file(&paths[1]).unwrap();
    let problem = caught_at(dir.path(), second_first_index);
    assert!(matches!(problem, Problem::SegmentGap { .. }), "{problem}");
}

#[test]
fn a_torn_last_frame_is_named_by_verify_then_cut_off_by_open() {
    let dir = small_log();
    let (last_start, last_end) = frame_ranges(&only_segment(dir.path()))[4];
    tamper(dir.path(), |bytes, _| bytes.truncate(last_end - 7));

    let (index, problem) = named(verify(dir.path()).unwrap_err());
    assert_eq!(index, 4);
    assert!(matches!(problem, Problem::TornTail { .. }), "{problem}");

    let (mut log, recovery) = AuditLog::open(dir.path()).unwrap();
    let torn = recovery.torn_tail.expect("open reports the torn tail");
    assert_eq!((torn.index, torn.offset), (4, last_start as u64));
    assert_eq!(recovery.entries, 4);
    append_range(&mut log, 4, 6);
    drop(log);
    assert_eq!(verify(dir.path()).unwrap().entries, 6);
}

#[test]
fn a_torn_frame_header_is_cut_off_too() {
    let dir = small_log();
    tamper(dir.path(), |bytes, _| {
        bytes.extend_from_slice(&[0x33, 0x01, 0x00])
    });
    let (_, recovery) = AuditLog::open(dir.path()).unwrap();
    assert_eq!(recovery.torn_tail.map(|t| t.bytes), Some(3));
    assert_eq!(verify(dir.path()).unwrap().entries, ENTRIES);
}

#[test]
fn a_bad_crc_on_the_last_complete_frame_is_refused_not_cut_off() {
    let dir = small_log();
    tamper(dir.path(), |bytes, ranges| {
        bytes[ranges[4].0 + FRAME_OVERHEAD] ^= 0x01
    });
    let problem = caught_at(dir.path(), 4);
    assert!(
        matches!(problem, Problem::Frame(FrameError::CrcMismatch { .. })),
        "{problem}"
    );
}

#[test]
fn an_empty_segment_left_by_a_crash_mid_roll_gets_its_header_on_open() {
    let dir = small_log();
    let next = only_segment(dir.path()).with_file_name(segment_name(ENTRIES));
    fs::write(&next, b"CRDN").unwrap();
    let (mut log, recovery) = AuditLog::open(dir.path()).unwrap();
    assert_eq!(
        recovery.torn_tail.map(|t| (t.index, t.bytes)),
        Some((ENTRIES, 4))
    );
    append_range(&mut log, ENTRIES, ENTRIES + 2);
    drop(log);
    assert_eq!(verify(dir.path()).unwrap().entries, ENTRIES + 2);
    assert_eq!(frame_ranges(&next).len(), 2);
}

#[test]
fn a_stray_segment_named_past_the_end_is_a_segment_gap() {
    let dir = small_log();
    let stray = only_segment(dir.path()).with_file_name(segment_name(ENTRIES + 10));
    fs::write(&stray, b"").unwrap();
    let problem = caught_at(dir.path(), ENTRIES);
    assert!(matches!(problem, Problem::SegmentGap { .. }), "{problem}");
}

/// A five-entry log whose entry 2 is a finished result with its stdout kept as a blob;
/// returns the blob's path.
fn log_with_output_blob() -> (tempfile::TempDir, std::path::PathBuf) {
    use cordon::protocol::audit::{AuditEvent, AuditRecord};
    use cordon::protocol::exec::{ExecResult, Status};
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    append_range(&mut log, 0, 2);
    let mut result = ExecResult::without_run("req-0", Status::Completed);
    result.stdout = "the program's whole output\n".repeat(100);
    let event = AuditEvent {
        event_id: "req-0.finished".into(),
        actor: "supervisor".into(),
        host: "host-1".into(),
        at_ms: 1_700_000_000_002,
        record: AuditRecord::Finished {
            result: Box::new(result.clone()),
        },
    };
    assert_eq!(log.append("req-0", &event).unwrap().index, 2);
    audit_common::append_range_from(&mut log, 3, 5);
    drop(log);
    let name = cordon::audit::blobs::blob_name(result.stdout.as_bytes());
    let path = cordon::audit::blobs::BlobStore::new(dir.path())
        .path_of(&name)
        .unwrap();
    (dir, path)
}

#[test]
fn a_flipped_bit_in_a_blob_is_caught_at_the_entry_naming_it() {
    let (dir, blob) = log_with_output_blob();
    assert_eq!(verify(dir.path()).unwrap().entries, ENTRIES);
    let mut bytes = fs::read(&blob).unwrap();
    bytes[100] ^= 0x10;
    fs::write(&blob, bytes).unwrap();
    let error = verify(dir.path()).unwrap_err();
    assert_eq!(error.index(), Some(2), "{error}");
    assert!(
        matches!(
            error,
            cordon::audit::VerifyError::Blob {
                problem: cordon::audit::blobs::BlobProblem::Mismatch { .. },
                ..
            }
        ),
        "{error}"
    );
}
