//! The two in-process rows: the assessor's time per file and durable audit appends per
//! second, measured on the library directly (release build). The assessor and audit
//! benches (`benches/assessor.rs`, `benches/audit.rs`) go deeper; these are the figures
//! the table keeps beside the rest.

use std::time::Instant;

use cordon::audit::AuditLog;
use cordon::protocol::assessor::Origin;
use cordon::protocol::audit::{AuditEvent, AuditRecord};

use super::stats::{Row, Samples};

const ASSESS_ROUNDS: usize = 300;
const AUDIT_APPENDS: usize = 20_000;
/// Appends per fdatasync, as the AuditChain's group commit does under load.
const AUDIT_BATCH: usize = 100;

pub fn rows() -> Vec<Row> {
    vec![assessor_row(), audit_row()]
}

/// The dense ~200-line program the README's assessor figures were taken on (data file
/// shared by every benchmark of the assessor).
fn two_hundred_lines() -> String {
    include_str!("../programs/dense_200.py").to_string()
}

fn assessor_row() -> Row {
    let source = two_hundred_lines();
    let mut samples = Samples::default();
    for _ in 0..ASSESS_ROUNDS {
        let started = Instant::now();
        std::hint::black_box(cordon::assessor::assess(&source, Origin::External));
        samples.push(started.elapsed());
    }
    Row {
        what: format!(
            "assessor, one {}-line file, p50 / p99 µs",
            source.lines().count()
        ),
        cordon: format!(
            "{:.0} / {:.0}",
            samples.percentile(50.0) * 1000.0,
            samples.percentile(99.0) * 1000.0
        ),
        floor: "—".into(),
        note: "in-process, release".into(),
    }
}

fn audit_row() -> Row {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (mut log, _) = AuditLog::open(dir.path()).expect("a fresh audit log");
    let started = Instant::now();
    for i in 0..AUDIT_APPENDS {
        let event = AuditEvent {
            event_id: format!("bench-{i}.removed"),
            actor: "supervisor".into(),
            host: "bench".into(),
            at_ms: i as u64,
            record: AuditRecord::ContainerRemoved {
                container_id: format!("{i:064x}"),
                changes: None,
            },
        };
        log.append(&format!("bench-{i}"), &event).expect("append");
        if (i + 1) % AUDIT_BATCH == 0 {
            log.sync().expect("fdatasync");
        }
    }
    log.sync().expect("fdatasync");
    let per_second = AUDIT_APPENDS as f64 / started.elapsed().as_secs_f64();
    Row {
        what: format!("durable audit appends/s (small entries, fdatasync per {AUDIT_BATCH})"),
        cordon: format!("{per_second:.0}"),
        floor: "—".into(),
        note: "in-process, release, temp dir".into(),
    }
}
