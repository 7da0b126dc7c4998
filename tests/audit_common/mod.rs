//! Helpers shared by the `audit_*` tests: events to append, logs written to temp dirs,
//! and the byte positions of frames in a segment so tests can tamper with them.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use cordon::audit::frame::{read_frame, FrameRead, HEADER_LEN};
use cordon::audit::segment::SEGMENTS_DIR;
use cordon::audit::{AuditLog, LogOptions, Problem, VerifyError};
use cordon::protocol::audit::{AuditEvent, AuditRecord};

/// The request id event `i` belongs to (three events per request).
pub fn request_of(i: u64) -> String {
    format!("req-{}", i / 3)
}

/// A small event, distinct for each `i`.
pub fn event(i: u64) -> AuditEvent {
    AuditEvent {
        event_id: format!("{}.event-{i}", request_of(i)),
        actor: "supervisor".into(),
        host: "host-1".into(),
        at_ms: 1_700_000_000_000 + i,
        record: AuditRecord::ContainerStarted {
            container_id: format!("container-{i}"),
        },
    }
}

/// Appends events `from..to` and syncs.
pub fn append_range(log: &mut AuditLog, from: u64, to: u64) {
    for i in from..to {
        let appended = log.append(&request_of(i), &event(i)).unwrap();
        assert!(!appended.duplicate);
        assert_eq!(appended.index, i);
    }
    log.sync().unwrap();
}

/// A fresh log in a temp dir holding `n` synced entries (closed again).
pub fn log_with(n: u64, options: LogOptions) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open_with(dir.path(), options).unwrap();
    append_range(&mut log, 0, n);
    dir
}

/// The segment files of the log in `dir`, in order.
pub fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir.join(SEGMENTS_DIR))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
}

/// The only segment of a small log.
pub fn only_segment(dir: &Path) -> PathBuf {
    let paths = segments(dir);
    assert_eq!(paths.len(), 1, "expected one segment");
    paths[0].clone()
}

/// Byte range `(start, end)` of every frame (header included) in a segment file.
pub fn frame_ranges(segment: &Path) -> Vec<(usize, usize)> {
    let bytes = fs::read(segment).unwrap();
    let mut ranges = Vec::new();
    let mut at = HEADER_LEN;
    while let FrameRead::Frame { next, .. } = read_frame(&bytes, at) {
        ranges.push((at, next));
        at = next;
    }
    ranges
}

/// The entry index and problem a verify error names, failing the test otherwise.
pub fn named(error: VerifyError) -> (u64, Problem) {
    match error {
        VerifyError::Entry { index, problem, .. } => (index, problem),
        other => panic!("expected an error naming an entry, got {other}"),
    }
}

/// Appends events `from..to` at indexes that may differ from `i` (the log holds others).
pub fn append_range_from(log: &mut AuditLog, from: u64, to: u64) {
    for i in from..to {
        assert!(!log.append(&request_of(i), &event(i)).unwrap().duplicate);
    }
    log.sync().unwrap();
}
