//! Audit log benchmarks (`cargo bench --bench audit`): durable appends of ~1 KiB entries
//! with group commit, an inclusion proof in a million-leaf tree, and (one timed pass, not
//! a criterion series) full verification of a one-million-entry log generated once in a
//! temp dir. Never run by `cargo test`.

use std::time::{Duration, Instant};

use cordon::audit::merkle::{leaf_hash, Tree};
use cordon::audit::{verify, AuditLog, LogOptions};
use cordon::protocol::audit::{AuditEvent, AuditRecord};
use criterion::{criterion_group, BatchSize, Criterion, Throughput};

const BATCH: u64 = 512;

/// An event whose entry is about `bytes` long.
fn event(i: u64, bytes: usize) -> AuditEvent {
    AuditEvent {
        event_id: format!("req-{i}.started"),
        actor: "supervisor".into(),
        host: "bench".into(),
        at_ms: 1_700_000_000_000 + i,
        record: AuditRecord::ContainerStarted {
            container_id: "c".repeat(bytes.saturating_sub(120)),
        },
    }
}

fn durable_appends(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let (mut log, _) = AuditLog::open(dir.path()).unwrap();
    let mut next = 0u64;
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Elements(BATCH));
    group.bench_function("durable appends of 1 KiB entries, batches of 512", |b| {
        b.iter(|| {
            for _ in 0..BATCH {
                log.append("req", &event(next, 1024)).unwrap();
                next += 1;
            }
            log.sync().unwrap();
        })
    });
    group.finish();
}

fn inclusion_proof(c: &mut Criterion) {
    let tree: Tree = (0..1_000_000u64)
        .map(|i| leaf_hash(&i.to_le_bytes()))
        .collect();
    let mut index = 0u64;
    c.bench_function("inclusion proof in a 1,000,000-leaf tree", |b| {
        b.iter_batched(
            || {
                index = (index + 7919) % 1_000_000;
                index
            },
            |i| tree.inclusion_proof(i, 1_000_000).unwrap(),
            BatchSize::SmallInput,
        )
    });
}

/// Writes a million ~`bytes`-byte entries, then times one full `verify`.
fn verify_million(bytes: usize) -> (Duration, u64) {
    let dir = tempfile::tempdir().unwrap();
    {
        let (mut log, _) = AuditLog::open_with(dir.path(), LogOptions::default()).unwrap();
        for i in 0..1_000_000u64 {
            log.append("req", &event(i, bytes)).unwrap();
            if i % 10_000 == 9_999 {
                log.sync().unwrap();
            }
        }
        log.checkpoint().unwrap();
    }
    let started = Instant::now();
    let report = verify(dir.path()).unwrap();
    (started.elapsed(), report.entries)
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(10));
    targets = durable_appends, inclusion_proof
}

fn main() {
    benches();
    // `cargo test --all-targets` runs benches once in test mode: skip the million entries.
    if !std::env::args().any(|arg| arg == "--bench") {
        return;
    }
    let bytes = std::env::var("CORDON_BENCH_VERIFY_ENTRY_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024);
    let (elapsed, entries) = verify_million(bytes);
    println!("audit/full verify of {entries} entries of ~{bytes} B: {elapsed:.2?}");
    criterion::Criterion::default().final_summary();
}
