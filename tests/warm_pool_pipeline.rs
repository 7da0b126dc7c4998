//! The warm pool through the whole pipeline over a real nats-server: a LOW-risk untrusted
//! job runs in the host's warm sandbox (audited under that container's id), which is then
//! destroyed and replaced by a new one; the deadline and the monitor's CPU-time budget
//! hold on warm sandboxes; a clean stop leaves no container.

mod pipeline_support;

use std::process::Command;
use std::time::{Duration, Instant};

use cordon::protocol::exec::{ExecRequest, Status};
use pipeline_support::*;

fn warm_config() -> String {
    let config = test_config("");
    assert!(config.contains("[pool]\nuntrusted = 0"));
    config.replace("[pool]\nuntrusted = 0", "[pool]\nuntrusted = 1")
}

/// Full ids of `host`'s warm sandboxes.
fn warm_of(host: &str) -> Vec<String> {
    let output = Command::new("docker")
        .args([
            "ps",
            "-aq",
            "--no-trunc",
            "--filter",
            "label=cordon.warm=true",
        ])
        .args(["--filter", &format!("label=cordon.host={host}")])
        .output()
        .expect("docker CLI");
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

fn one_warm_within(host: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let warm = warm_of(host);
        if warm.len() == 1 {
            // Running; the pool queues it once its start call has returned.
            std::thread::sleep(Duration::from_millis(1000));
            return warm[0].clone();
        }
        assert!(
            Instant::now() < deadline,
            "no single warm sandbox: {warm:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn created_container_of(node: &Node, request_id: &str) -> String {
    audit_entries(&node.audit_dir(), request_id)
        .into_iter()
        .find(|e| e.kind == "container_created")
        .and_then(|e| e.body["container_id"].as_str().map(str::to_string))
        .expect("a container_created entry with its id")
}

#[tokio::test]
async fn a_low_risk_job_runs_in_the_warm_sandbox_which_is_then_replaced() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "warm-pipeline", &warm_config());
    let client = client(&nats).await;
    // A job may come before the pool has queued its sandbox (then it rightly runs cold):
    // try a few times, each after a warm sandbox is seen running.
    let mut ran_warm = None;
    for _ in 0..5 {
        let warm = one_warm_within(&node.host, Duration::from_secs(60));
        let id = cordon::client::Client::new_request_id();
        let result = client
            .run(
                &id,
                &request("print(1)", "untrusted"),
                Duration::from_secs(60),
            )
            .await
            .expect("a result");
        assert_eq!(result.status, Status::Completed, "{result:?}");
        assert_eq!(result.stdout, "1\n");
        if created_container_of(&node, &id) == warm {
            ran_warm = Some(warm);
            break;
        }
    }
    let warm = ran_warm.expect("no job ran in a warm sandbox in five tries");
    let next = one_warm_within(&node.host, Duration::from_secs(60));
    assert_ne!(next, warm, "never reused: a new warm sandbox replaced it");

    let busy = "while True:\n    pass\n";
    let mut deadline = request(busy, "untrusted");
    deadline.timeout_ms = Some(1_000);
    let result = run_request(&client, &deadline).await;
    assert_eq!(result.status, Status::Violation, "{result:?}");
    assert_eq!(result.violation.unwrap().kind.as_str(), "timeout");

    one_warm_within(&node.host, Duration::from_secs(60));
    let cpu: ExecRequest = request(busy, "untrusted");
    let result = run_request(&client, &cpu).await;
    assert_eq!(result.status, Status::Violation, "{result:?}");
    let violation = result.violation.unwrap();
    let usage = result.usage.unwrap();
    // On a loaded machine the loop may not get 2 s of CPU within its 8 s deadline; then
    // the deadline rightly ends it, and the monitor must not have claimed a CPU overrun.
    match violation.kind.as_str() {
        "cpu" => assert!(usage.cpu_ms >= 2_000, "{usage:?}"),
        "timeout" => assert!(usage.cpu_ms <= 2_100, "CPU overrun not caught: {usage:?}"),
        other => panic!("unexpected violation {other}: {violation:?}"),
    }

    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(10));
}

/// A warm sandbox serves a session as it serves a one-off program: opening a session takes
/// it (the audit log names it), it keeps the session's state, and the pool makes another.
#[tokio::test]
async fn a_session_opens_in_a_warm_sandbox() {
    let config = warm_config();
    let nats = Nats::start();
    let mut node = Node::up(&nats, "warm-session", &config);
    let client = client(&nats).await;
    let warm = one_warm_within(&node.host, Duration::from_secs(30));

    let open = ExecRequest {
        session: Some("new".into()),
        ..request("x = 7", "untrusted")
    };
    let opened = run_request(&client, &open).await;
    assert_eq!(opened.status, Status::Completed, "{opened:?}");
    assert_eq!(created_container_of(&node, &opened.request_id), warm);
    let id = opened.session.expect("a session").id;
    let cell = ExecRequest {
        session: Some(id),
        ..request("print(x * 6)", "untrusted")
    };
    assert_eq!(run_request(&client, &cell).await.stdout, "42\n");
    // The session's sandbox keeps its `cordon.warm` label; the pool made another beside it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while warm_of(&node.host).iter().all(|w| *w == warm) {
        assert!(
            Instant::now() < deadline,
            "the pool made no other warm sandbox"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(10));
}
