//! The AuditChain process SIGKILLed during a stream of appends (over a real nats-server):
//! after a restart every acknowledged entry (one whose result it published) is in the
//! log where the result said, the log verifies, blobs included, and it is consistent
//! with every checkpoint the AuditChain published before the kill.

mod pipeline_support;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use cordon::audit::{verify, verify_with, VerifyOptions};
use cordon::bus::trace::TraceContext;
use cordon::bus::Bus;
use cordon::protocol::assessor::{Origin, TrustLevel};
use cordon::protocol::audit::{AuditEvent, AuditRecord, CheckpointPublished};
use cordon::protocol::exec::{ExecResult, Status};
use cordon::protocol::subjects::wildcard;
use cordon::protocol::{decode, now_ms, Envelope, Subject};
use futures::StreamExt;
use pipeline_support::*;

/// Results to see before the kill, and checkpoints at least.
const RESULTS_BEFORE_KILL: usize = 60;
const CHECKPOINTS_BEFORE_KILL: usize = 3;

fn event(request_id: &str, what: &str, record: AuditRecord) -> Envelope<AuditEvent> {
    let body = AuditEvent {
        event_id: format!("{request_id}.{what}"),
        actor: "assessor".into(),
        host: "crash-test".into(),
        at_ms: now_ms(),
        record,
    };
    let mut envelope = Envelope::new(request_id, now_ms(), body);
    envelope.client = "crash-stream".into();
    envelope
}

/// Publishes a submission (its code a blob) and a finished result (its output a blob) per
/// request, until `stop` is set; a publish that fails while the node is down is skipped.
async fn publish_stream(bus: Bus, stop: Arc<AtomicBool>) {
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let id = fresh_id();
        let code = format!("print({n})\n");
        let received = AuditRecord::Received {
            code_sha256: cordon::audit::blobs::blob_name(code.as_bytes()),
            code_bytes: code.len() as u64,
            trust: TrustLevel::Untrusted,
            origin: Origin::External,
            client: Some("crash-stream".into()),
            submitter: "crash-stream".into(),
            code: Some(code),
            input: None,
        };
        let mut result = ExecResult::without_run(id.clone(), Status::Completed);
        result.stdout = format!("{n}\n");
        let finished = AuditRecord::Finished {
            result: Box::new(result),
        };
        for (what, record) in [("received", received), ("finished", finished)] {
            let envelope = event(&id, what, record);
            let msg_id = envelope.body.event_id.clone();
            let trace = TraceContext::for_request(&id);
            let _ = bus
                .publish_durable(&Subject::AuditAppend, &msg_id, &trace, &envelope)
                .await;
        }
        n += 1;
    }
}

#[tokio::test]
async fn a_sigkilled_audit_chain_keeps_every_acknowledged_entry_and_published_checkpoint() {
    let nats = Nats::start();
    let config = test_config("[audit]\ncheckpoint_interval_ms = 100\n");
    let base = Node::prepare("audit-crash", &config);
    let mut audit = Node::serve_like(&base, &nats, &["audit"]);
    let watcher = raw_connection(&nats).await;
    let mut results = watcher
        .subscribe(wildcard::exec_result_all())
        .await
        .unwrap();
    let mut checkpoints = watcher
        .subscribe(Subject::AuditCheckpoint.to_subject())
        .await
        .unwrap();
    let bus = Bus::connect(&nats.url, "crash-test", &base.settings().nats)
        .await
        .unwrap();
    bus.ensure_streams().await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let publisher = tokio::spawn(publish_stream(bus, stop.clone()));

    let mut acknowledged = BTreeMap::new();
    let mut published = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    while acknowledged.len() < RESULTS_BEFORE_KILL || published.len() < CHECKPOINTS_BEFORE_KILL {
        assert!(tokio::time::Instant::now() < deadline, "the stream stalled");
        tokio::select! {
            Some(message) = results.next() => {
                let result = decode::<ExecResult>(&message.payload).unwrap().body;
                let index = result.audit.expect("results carry their audit index").index;
                acknowledged.insert(index, result.request_id);
            }
            Some(message) = checkpoints.next() => {
                published.push(decode::<CheckpointPublished>(&message.payload).unwrap().body.note);
            }
        }
    }
    audit.kill(); // SIGKILL mid-stream
    stop.store(true, Ordering::Relaxed);
    publisher.await.unwrap();

    audit.start();
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(audit.is_running(), "{}", audit.log_text());
    assert!(audit.stop().success(), "a clean stop after recovery");

    let dir = base.audit_dir();
    let report = verify(&dir).expect("the log verifies after the crash");
    let entries = cordon::audit::read_entries(&dir, None).unwrap();
    assert_eq!(report.entries, entries.len() as u64);
    for (index, request_id) in &acknowledged {
        let entry = &entries[*index as usize];
        assert_eq!(entry.event_id, format!("{request_id}.finished"));
        assert!(entry.body["blobs"].is_array(), "output kept as a blob");
    }
    for (n, note) in published.into_iter().enumerate() {
        let options = VerifyOptions {
            saved: Some(note),
            ..VerifyOptions::default()
        };
        if let Err(error) = verify_with(&dir, &options) {
            panic!("not consistent with checkpoint {n} published before the kill: {error}");
        }
    }
}
