//! Actors are separate processes that can die at any moment: killing one mid-request and
//! starting it again loses no request, and a supervisor killed with sandboxes running
//! leaves none behind once it is back.

mod pipeline_support;

use std::collections::HashSet;
use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::exec::Status;
use pipeline_support::*;

/// Redelivery after a crash takes one ack wait; keep it short for the tests.
fn config() -> String {
    test_config("[nats]\nack_wait_secs = 3\n")
}

#[tokio::test]
async fn a_supervisor_killed_mid_run_loses_no_job_and_leaves_no_sandbox() {
    let nats = Nats::start();
    let base = Node::prepare("kill-supervisor", &config());
    let _others = Node::serve_like(&base, &nats, &["audit", "assessor", "scheduler", "monitor"]);
    let mut supervisor = Node::serve_like(&base, &nats, &["supervisor"]);
    let client = client(&nats).await;
    let jobs = submit_numbered_jobs(&client, 6, &[1.5]).await;
    let orphans = wait_for_running_sandboxes(&base.host).await;
    supervisor.kill();
    assert!(
        !containers_of(&base.host).is_empty(),
        "a SIGKILLed supervisor cannot clean up by itself"
    );
    supervisor.start();
    expect_all_completed(&client, &jobs).await;
    let left: HashSet<String> = containers_of(&base.host).into_iter().collect();
    assert!(
        left.is_disjoint(&orphans),
        "orphans of the dead supervisor survived its restart: {left:?}"
    );
    assert_no_containers_within(&base.host, Duration::from_secs(10));
}

#[tokio::test]
async fn each_actor_killed_and_restarted_mid_stream_loses_no_request() {
    let nats = Nats::start();
    let base = Node::prepare("kill-each", &config());
    let roles = ["assessor", "scheduler", "monitor", "audit", "supervisor"];
    let mut processes: Vec<Node> = roles
        .iter()
        .map(|r| Node::serve_like(&base, &nats, &[*r]))
        .collect();
    let client = client(&nats).await;
    for (victim, role) in roles.iter().enumerate() {
        let jobs = submit_numbered_jobs(&client, 4, &[0.3]).await;
        tokio::time::sleep(Duration::from_millis(150)).await;
        processes[victim].kill();
        tokio::time::sleep(Duration::from_millis(500)).await;
        processes[victim].start();
        expect_all_completed(&client, &jobs).await;
        eprintln!(
            "killed and restarted the {role}: {} jobs completed",
            jobs.len()
        );
    }
    assert_no_containers_within(&base.host, Duration::from_secs(10));
    for process in &mut processes {
        process.stop();
    }
    let report =
        cordon::audit::verify(&base.audit_dir()).expect("the audit log verifies after the crashes");
    assert!(report.entries > 0);
}

#[tokio::test]
async fn a_monitor_restarted_mid_run_adopts_running_sandboxes_and_still_enforces_pids() {
    let nats = Nats::start();
    let base = Node::prepare("adopt", &config());
    let _others = Node::serve_like(
        &base,
        &nats,
        &["audit", "assessor", "scheduler", "supervisor"],
    );
    let client = client(&nats).await;
    let id = Client::new_request_id();
    // A fork bomb whose bound only the environment knows: the assessor cannot call it
    // one (an endless loop of forks it does block), so the runtime has to stop it.
    let fork_bomb = "import os, time\nfor _ in range(int(os.environ.get('FORKS', '100000'))):\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n";
    // Trust `unknown` has a 30 s deadline: long enough to tell a pids kill from a timeout.
    client
        .submit(&id, &request(fork_bomb, "unknown"))
        .await
        .unwrap();
    while running_containers_of(&base.host).is_empty() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The ContainerStarted notice went out while no monitor listened.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let started_monitor_at = std::time::Instant::now();
    let _monitor = Node::serve_like(&base, &nats, &["monitor"]);
    let result = wait_result(&client, &id).await;
    assert_eq!(result.status, Status::Violation, "{result:?}");
    assert_eq!(
        result.violation.unwrap().kind,
        cordon::protocol::exec::ViolationKind::Pids
    );
    assert!(
        started_monitor_at.elapsed() < Duration::from_secs(20),
        "killed long before its 30 s deadline"
    );
}
