//! The writer's behaviour on real files: redelivered events are appended once, the chain
//! continues across reopen and segment rolls, one writer at a time, and entries read back
//! for people with outputs kept as digests.

mod audit_common;

use audit_common::{append_range, event, log_with, request_of, segments};
use cordon::audit::entry::GENESIS_PREV_HASH;
use cordon::audit::segment::parse_segment_name;
use cordon::audit::{read_entries, verify, AuditError, AuditLog, LogOptions};
use cordon::protocol::audit::{AuditEvent, AuditRecord};
use cordon::protocol::exec::{ExecResult, Status};

fn tiny_segments() -> LogOptions {
    LogOptions {
        segment_bytes: 400,
        ..LogOptions::default()
    }
}

#[test]
fn a_new_log_is_empty_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let (log, recovery) = AuditLog::open(dir.path()).unwrap();
    assert_eq!((log.len(), recovery.entries), (0, 0));
    assert_eq!(log.head_hash(), GENESIS_PREV_HASH);
    drop(log);
    assert_eq!(verify(dir.path()).unwrap().entries, 0);
}

#[test]
fn the_same_event_id_appended_twice_gives_one_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let first = log.append("req-0", &event(0)).unwrap();
    log.append("req-0", &event(1)).unwrap();
    let again = log.append("req-0", &event(0)).unwrap();
    assert!(!first.duplicate && again.duplicate);
    assert_eq!(again.index, first.index);
    assert_eq!(log.len(), 2);
}

#[test]
fn a_redelivered_event_is_recognised_after_reopen() {
    let dir = log_with(5, LogOptions::default());
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let again = log.append(&request_of(3), &event(3)).unwrap();
    assert_eq!((again.index, again.duplicate), (3, true));
    assert_eq!(log.len(), 5);
}

#[test]
fn reopening_continues_indices_and_the_chain_across_segment_rolls() {
    let dir = log_with(20, tiny_segments());
    let (mut log, recovery) = AuditLog::open_with(dir.path(), tiny_segments()).unwrap();
    assert_eq!(recovery.entries, 20);
    assert_eq!(recovery.head_hash, verify(dir.path()).unwrap().head_hash);
    append_range(&mut log, 20, 35);
    let head = log.head_hash();
    drop(log);

    let report = verify(dir.path()).unwrap();
    assert_eq!((report.entries, report.head_hash), (35, head));
    let paths = segments(dir.path());
    assert!(paths.len() > 5, "only {} segments", paths.len());
    let entries = read_entries(dir.path(), None).unwrap();
    let indices: Vec<u64> = entries.iter().map(|e| e.index).collect();
    assert_eq!(indices, (0..35).collect::<Vec<_>>());
    for path in paths {
        let name = path.file_name().unwrap().to_str().unwrap();
        let first = parse_segment_name(name).unwrap();
        assert_eq!(entries[first as usize].index, first, "{name}");
    }
}

#[test]
fn a_second_writer_is_refused_while_the_first_holds_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let (_log, _) = AuditLog::open(dir.path()).unwrap();
    assert!(matches!(
        AuditLog::open(dir.path()),
        Err(AuditError::Locked { .. })
    ));
}

#[test]
fn entries_read_back_filtered_by_request_with_outputs_as_digests() {
    let dir = log_with(6, LogOptions::default());
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let mut result = ExecResult::without_run("req-1", Status::Completed);
    result.stdout = "y".repeat(10_000);
    let finished = AuditEvent {
        event_id: "req-1.finished".into(),
        actor: "supervisor".into(),
        host: "host-1".into(),
        at_ms: 9,
        record: AuditRecord::Finished {
            result: Box::new(result),
        },
    };
    log.append("req-1", &finished).unwrap();
    log.sync().unwrap();

    let entries = read_entries(dir.path(), Some("req-1")).unwrap();
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["container_started"; 3]
            .iter()
            .copied()
            .chain(["finished"])
            .collect::<Vec<_>>()
    );
    let stdout = &entries[3].body["result"]["stdout"];
    assert_eq!(stdout["bytes"], 10_000);
    assert_eq!(stdout["preview"].as_str().unwrap().len(), 1024);
    assert_eq!(entries[0].body["container_id"], "container-3");
}

#[test]
#[ignore = "timing: run with --ignored --nocapture to measure group-commit throughput"]
fn group_commit_throughput_of_one_kib_entries() {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let padding = "p".repeat(900);
    let started = std::time::Instant::now();
    let (batches, batch) = (200u64, 100u64);
    for b in 0..batches {
        for i in b * batch..(b + 1) * batch {
            let mut e = event(i);
            e.record = AuditRecord::ContainerStarted {
                container_id: format!("{padding}{i}"),
            };
            log.append(&request_of(i), &e).unwrap();
        }
        log.sync().unwrap();
    }
    let per_sec = (batches * batch) as f64 / started.elapsed().as_secs_f64();
    println!("{per_sec:.0} durable appends/s in batches of {batch}");
}
