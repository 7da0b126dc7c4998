//! A request travels the whole pipeline over a real nats-server: Assessor, Scheduler,
//! ContainerSupervisor, ResourceMonitor and AuditChain, and comes back as one result.

mod pipeline_support;

use std::time::Duration;

use cordon::protocol::exec::Status;
use pipeline_support::*;

#[tokio::test]
async fn a_program_runs_through_nats_and_its_result_is_audited() {
    let nats = Nats::start();
    let node = Node::up(&nats, "through-nats", &test_config(""));
    let client = client(&nats).await;
    let id = cordon::client::Client::new_request_id();
    let request = request(
        "import sys\nprint('hi')\nprint('err', file=sys.stderr)\nsys.exit(3)\n",
        "untrusted",
    );
    let result = client
        .run(&id, &request, Duration::from_secs(60))
        .await
        .expect("result");
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.exit_code, Some(3));
    assert_eq!(result.stdout, "hi\n");
    assert_eq!(result.stderr, "err\n");
    assert_eq!(result.request_id, id);
    let limits = result.limits.expect("limits");
    assert_eq!(limits.memory_bytes, 134_217_728);
    let audit_index = result.audit.expect("audit ref").index;
    let kinds = audit_kinds(&node.audit_dir(), &id);
    for kind in [
        "received",
        "assessed",
        "scheduled",
        "container_created",
        "container_started",
        "container_exited",
        "container_removed",
        "finished",
    ] {
        assert!(
            kinds.contains(&kind.to_string()),
            "{kind} missing from {kinds:?}"
        );
    }
    let entries = cordon::audit::read_entries(&node.audit_dir(), Some(&id)).unwrap();
    assert_eq!(
        entries.last().unwrap().index,
        audit_index,
        "the result names its final entry"
    );
    // The result stays retrievable after the fact.
    let stored = client
        .stored_result(&id)
        .await
        .unwrap()
        .expect("stored result");
    assert_eq!(stored.exit_code, Some(3));
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}

#[tokio::test]
async fn a_resubmitted_request_id_runs_once() {
    let nats = Nats::start();
    let node = Node::up(&nats, "dedupe", &test_config(""));
    let client = client(&nats).await;
    let id = cordon::client::Client::new_request_id();
    let request = request("print('once')", "untrusted");
    client.submit(&id, &request).await.unwrap();
    client.submit(&id, &request).await.unwrap();
    let result = client
        .run(&id, &request, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(result.stdout, "once\n");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let kinds = audit_kinds(&node.audit_dir(), &id);
    let created = kinds.iter().filter(|k| *k == "container_created").count();
    assert_eq!(created, 1, "one container for one request id: {kinds:?}");
}

#[test]
fn the_cli_talks_to_a_running_cordon_and_prints_the_result_document() {
    let nats = Nats::start();
    let _node = Node::up(&nats, "cli-nats", &test_config(""));
    let program = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(program.path(), "print(6 * 7)\n").unwrap();
    let output = std::process::Command::new(cordon_bin())
        .args(["exec", "--json", "--nats", &nats.url])
        .arg(program.path())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["status"], "completed");
    assert_eq!(document["stdout"], "42\n");
    for field in [
        "request_id",
        "exit_code",
        "stderr",
        "stdout_truncated",
        "stderr_truncated",
        "violation",
        "assessment",
        "limits",
        "usage",
        "audit",
        "error",
    ] {
        assert!(
            document.get(field).is_some(),
            "{field} missing from {document}"
        );
    }
}

/// The consumers whose log lines carry `trace_id` (the node logs JSON).
fn consumers_of(node: &Node, trace_id: &str) -> std::collections::BTreeSet<String> {
    let mut consumers = std::collections::BTreeSet::new();
    for line in node.log_text().lines() {
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if entry["span"]["trace_id"] == trace_id {
            let consumer = entry["span"]["consumer"].as_str().unwrap_or_default();
            consumers.insert(consumer.to_string());
        }
    }
    consumers
}

#[tokio::test]
async fn one_trace_id_follows_a_request_through_every_stage() {
    let nats = Nats::start();
    let node = Node::up(&nats, "tracing", &test_config("[log]\nformat = \"json\"\n"));
    let client = client(&nats).await;
    let id = cordon::client::Client::new_request_id();
    let result = client
        .run(
            &id,
            &request("print(1)", "untrusted"),
            Duration::from_secs(60),
        )
        .await
        .unwrap();
    assert_eq!(result.status, Status::Completed);
    let trace_id = cordon::bus::trace::TraceContext::for_request(&id).trace_id_hex();
    // Each stage logs "handled" once it has settled its message, which may come a moment
    // after the result reached the client: wait a little for every stage's line.
    let stages = ["assessor", "scheduler", "supervisor"];
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut consumers = consumers_of(&node, &trace_id);
    while !stages.iter().all(|s| consumers.contains(*s)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        consumers = consumers_of(&node, &trace_id);
    }
    for stage in stages {
        assert!(
            consumers.contains(stage),
            "no {stage} log line carries trace {trace_id}: {consumers:?}"
        );
    }
}
