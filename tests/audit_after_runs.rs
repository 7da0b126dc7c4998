//! The audit log a real node leaves after mixed runs checks out end to end, tells each
//! request's story in the order it happened, and is covered by signed checkpoints that
//! were published for witnesses, the last one signed on shutdown.

mod pipeline_support;

use cordon::audit::checkpoint::NoteVerifier;
use cordon::protocol::audit::{Alert, AlertKind, CheckpointPublished};
use cordon::protocol::exec::{ExecRequest, Status};
use cordon::protocol::{decode, Subject};
use futures::StreamExt;
use pipeline_support::*;

/// A run's entries up to its end; `runtime` is what it asked Python to do (every run that
/// started has one, even when killed).
const RAN: [&str; 8] = [
    "received",
    "assessed",
    "scheduled",
    "container_created",
    "container_started",
    "container_exited",
    "container_removed",
    "runtime",
];

/// Every run's creation names its image, the image id the engine ran and the runtime, and
/// every violation its container; every run's removal carries its `docker diff`; a
/// rejected request is kept as a blob;
/// code is a blob, and the second
/// submission of the same client (`tests`) keeps a diff against the first; the output
/// flood's full stdout is a blob; and `verify` (above) checked every blob.
fn assert_blobs_and_changes_were_kept(dir: &std::path::Path, runs: &[(String, Status, u64)]) {
    let body_of = |id: &str, kind: &str| audit_body(dir, id, kind);
    for (id, _, _) in runs.iter().filter(|(_, s, _)| *s != Status::Rejected) {
        let changes = &body_of(id, "container_removed")["changes"];
        assert!(changes.is_object(), "{id}: {changes}");
        assert!(changes.get("error").is_none(), "{id}: {changes}");
        let code = &body_of(id, "received")["blobs"][0];
        assert_eq!(code["what"], "code", "{id}");
    }
    for (id, _, _) in runs.iter().filter(|(_, s, _)| *s == Status::Rejected) {
        let payload = &body_of(id, "rejected")["blobs"][0];
        assert_eq!(payload["what"], "payload", "{id}: the bad request is kept");
    }
    for (id, status, _) in runs.iter().filter(|(_, s, _)| *s != Status::Rejected) {
        let created = body_of(id, "container_created");
        assert_eq!(created["image"], "cordon-python:3.11", "{id}: {created}");
        assert_eq!(created["runtime"], "runc", "{id}: {created}");
        let image_id = created["image_id"].as_str().unwrap_or_default();
        assert!(image_id.starts_with("sha256:"), "{id}: {created}");
        if *status == Status::Violation {
            let violation = body_of(id, "violation");
            assert_eq!(
                violation["container_id"], created["container_id"],
                "{id}: the violation names its sandbox: {violation}"
            );
        }
    }
    let diff = &body_of(&runs[1].0, "received")["code_diff"];
    assert_eq!(diff["previous_request_id"], runs[0].0.as_str(), "{diff}");
    let flood = body_of(&runs[3].0, "finished");
    let blobs = flood["blobs"].as_array().expect("the flood's output blobs");
    assert!(blobs.iter().any(|b| b["what"] == "stdout"), "{flood}");
}

/// After completed, violating and rejected runs and a SIGTERM, `audit::verify` accepts the
/// whole log and every request's entries appear in lifecycle order, ending with `finished`.
#[tokio::test]
async fn after_mixed_runs_and_a_clean_stop_the_log_verifies_and_reads_in_order() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "audit-after-runs", &test_config(""));
    let client = client(&nats).await;
    let watcher = async_nats::connect(&nats.url).await.unwrap();
    let mut checkpoints = watcher
        .subscribe(Subject::AuditCheckpoint.to_subject())
        .await
        .unwrap();
    let mut alerts = watcher
        .subscribe(Subject::EventsAlert.to_subject())
        .await
        .unwrap();
    let short = |code: &str| ExecRequest {
        timeout_ms: Some(500),
        ..request(code, "untrusted")
    };
    let runs = [
        (request("print('ok')", "untrusted"), Status::Completed),
        (
            request("import sys\nsys.exit(4)", "untrusted"),
            Status::Completed,
        ),
        (short("import time\ntime.sleep(30)"), Status::Violation),
        (
            request("while True:\n    print('x' * 1000)", "untrusted"),
            Status::Violation,
        ),
        (request("   \n", "untrusted"), Status::Rejected),
        (request("print(1)", "root"), Status::Rejected),
    ];
    let mut finished = Vec::new();
    for (request, status) in &runs {
        let result = run_request(&client, request).await;
        assert_eq!(result.status, *status, "{result:?}");
        let index = result.audit.as_ref().expect("audit ref").index;
        finished.push((result.request_id.clone(), *status, index));
    }

    assert!(node.stop().success(), "a clean stop on SIGTERM");
    let report = cordon::audit::verify(&node.audit_dir()).expect("the log verifies");
    let all = cordon::audit::read_entries(&node.audit_dir(), None).unwrap();
    assert!(report.entries > 0);
    assert_eq!(report.entries, all.len() as u64);
    assert_eq!(
        hex::encode(report.head_hash),
        all.last().unwrap().hash,
        "the head is the last entry"
    );

    assert_blobs_and_changes_were_kept(&node.audit_dir(), &finished);
    for (id, status, final_index) in finished {
        let entries = audit_entries(&node.audit_dir(), &id);
        let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
        let expected: Vec<&str> = match status {
            Status::Completed => RAN.iter().copied().chain(["finished"]).collect(),
            Status::Violation => RAN
                .iter()
                .copied()
                .chain(["violation", "finished"])
                .collect(),
            _ => vec!["rejected", "finished"],
        };
        assert_eq!(kinds, expected, "{id} ({status:?})");
        assert!(entries.windows(2).all(|w| w[0].index < w[1].index));
        assert_eq!(entries.last().unwrap().index, final_index);
    }
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(5));

    let latest = report.latest.expect("checkpoints were signed");
    assert_eq!(
        latest.size, report.entries,
        "the last one is signed on shutdown"
    );
    assert_eq!(latest.root, report.root);
    let key = std::fs::read_to_string(node.audit_dir().join("signing.key")).unwrap();
    let verifier = cordon::audit::checkpoint::NoteSigner::parse(&key)
        .unwrap()
        .verifier();
    let verifier = NoteVerifier::parse(&verifier.to_text()).unwrap();
    let within = std::time::Duration::from_secs(5);
    let message = tokio::time::timeout(within, checkpoints.next())
        .await
        .expect("a checkpoint is published")
        .unwrap();
    let published = decode::<CheckpointPublished>(&message.payload)
        .unwrap()
        .body;
    let opened = verifier.open(&published.note).unwrap();
    assert_eq!(opened.size, published.size);
    let message = tokio::time::timeout(within, alerts.next())
        .await
        .expect("the violations raised alerts")
        .unwrap();
    let alert = decode::<Alert>(&message.payload).unwrap().body;
    assert_eq!(alert.kind, AlertKind::Violation);
}
