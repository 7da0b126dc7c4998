//! No process destroys another's work, and every outcome is told truthfully: `cordon exec`
//! with its embedded pipeline beside a live `cordon up` on the same host id, two
//! supervisors of one host with one of them replaced in a rolling restart and SIGKILLed,
//! and sandboxes ended from outside cordon (SIGKILL from the host, `docker kill`,
//! `docker rm -f`), which end `failed` / `sandbox_lost`, never `completed`.

mod pipeline_support;

use std::collections::{HashMap, HashSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cordon::client::Client;
use cordon::protocol::exec::Status;
use pipeline_support::*;

/// Redelivery after a crash takes one ack wait; keep it short.
fn config() -> String {
    test_config("[nats]\nack_wait_secs = 3\n")
}

/// Runs `cordon exec FILE` with its own embedded pipeline on `host`; returns its stdout.
fn embedded_exec(host: &str, config: &std::path::Path, code: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hello.py");
    std::fs::write(&file, code).unwrap();
    let mut child = Command::new(cordon_bin())
        .arg("--config")
        .arg(config)
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .arg("exec")
        .arg(&file)
        .env("CORDON__NODE__HOST_ID", host)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cordon exec starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("cordon exec did not finish in two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "cordon exec: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).to_string()
}

/// Each request ended exactly once in the audit log: none lost, none duplicated.
fn assert_one_end_each(node: &Node, jobs: &HashMap<String, usize>) {
    let (lost, duplicated) = lost_and_duplicated(&node.audit_dir(), jobs);
    assert_eq!((lost, duplicated), (0, 0), "lost and duplicated jobs");
}

/// `cordon exec` (embedded pipeline, same host id) beside a running `cordon up` leaves
/// every sandbox of the daemon alone: its jobs end with their real output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedded_exec_beside_a_running_up_leaves_its_sandboxes_alone() {
    let nats = Nats::start();
    let mut up = Node::up(&nats, "beside", &config());
    let client = client(&nats).await;
    let jobs = submit_numbered_jobs(&client, 3, &[5.0]).await;
    let before = wait_for_running_sandboxes(&up.host).await;

    let printed = embedded_exec(&up.host, &up.config, "print('hello')\n");
    assert_eq!(printed, "hello\n");
    let after: HashSet<String> = containers_of(&up.host).into_iter().collect();
    assert!(
        before.is_subset(&after),
        "the daemon's sandboxes survive the exec: before {before:?}, after {after:?}"
    );
    expect_all_completed(&client, &jobs).await;
    assert!(up.stop().success());
    assert_no_containers_within(&up.host, Duration::from_secs(10));
    assert_one_end_each(&up, &jobs);
    cordon::audit::verify(&up.audit_dir()).expect("the audit log verifies");
}

/// Two supervisors serve one host id; a third replaces one of them (started first, then
/// the old one is SIGKILLed). No job of the survivors is touched, the dead one's jobs are
/// run again, every job ends exactly once with its own output, nothing is left over and
/// the audit log verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_supervisors_of_one_host_survive_a_rolling_restart_of_one() {
    let nats = Nats::start();
    let base = Node::prepare("two-supervisors", &config());
    let mut rest = Node::serve_like(&base, &nats, &["audit", "assessor", "scheduler", "monitor"]);
    let mut leaving = Node::serve_like(&base, &nats, &["supervisor"]);
    let mut staying = Node::serve_like(&base, &nats, &["supervisor"]);
    let client = client(&nats).await;
    let jobs = submit_numbered_jobs(&client, 24, &[1.5]).await;
    wait_for_running_sandboxes(&base.host).await;

    let mut replacement = Node::serve_like(&base, &nats, &["supervisor"]);
    tokio::time::sleep(Duration::from_secs(1)).await;
    leaving.kill();
    expect_all_completed(&client, &jobs).await;

    for node in [&mut staying, &mut replacement, &mut rest] {
        assert!(node.stop().success());
    }
    assert_no_containers_within(&base.host, Duration::from_secs(10));
    assert_one_end_each(&base, &jobs);
    cordon::audit::verify(&base.audit_dir()).expect("the audit log verifies");
}

/// The container of the request `id` once it runs (waits up to a minute).
async fn sandbox_of(id: &str) -> String {
    let label = format!("label=cordon.request_id={id}");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let found = docker_cli(&["ps", "-q", "--filter", &label, "--filter", "status=running"]);
        if !found.is_empty() {
            return found;
        }
        assert!(Instant::now() < deadline, "no running sandbox for {id}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// SIGKILL to the program's process from the host, as an operator's `kill -9` would.
fn kill_program_from_host(container: &str) {
    let init = docker_cli(&["inspect", "-f", "{{.State.Pid}}", container]);
    let children = std::fs::read_to_string(format!("/proc/{init}/task/{init}/children"))
        .expect("the sandbox init's children");
    for pid in children.split_whitespace() {
        let pid: i32 = pid.parse().unwrap();
        // SAFETY: a signal to a process of the sandbox this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

const LONG_RUNNER: &str =
    "import time\nprint('started', flush=True)\ntime.sleep(30)\nprint('never')\n";

/// A sandbox ended by something other than cordon ends `failed` with `sandbox_lost` and
/// what was seen (output so far), never `completed`, and the audit log records the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandboxes_ended_from_outside_are_reported_lost_not_completed() {
    let nats = Nats::start();
    let node = Node::up(&nats, "lost", &config());
    let client = client(&nats).await;
    type Action = fn(&str);
    let ways: [(&str, Action, bool); 3] = [
        ("SIGKILL from the host", kill_program_from_host, true),
        (
            "docker kill",
            |c| {
                docker_cli(&["kill", c]);
            },
            true,
        ),
        (
            "docker rm -f",
            |c| {
                docker_cli(&["rm", "-f", c]);
            },
            false,
        ),
    ];
    for (how, action, output_seen) in ways {
        let id = Client::new_request_id();
        client
            .submit(&id, &request(LONG_RUNNER, "untrusted"))
            .await
            .unwrap();
        let container = sandbox_of(&id).await;
        // The program has printed its first line once the sandbox has run a moment.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        action(&container);
        let result = wait_result(&client, &id).await;
        assert_eq!(result.status, Status::Failed, "{how}: {result:?}");
        let error = result.error.as_ref().expect("an error");
        assert_eq!(error.code, "sandbox_lost", "{how}: {result:?}");
        assert!(!result.stdout.contains("never"), "{how}: {result:?}");
        if output_seen {
            assert_eq!(result.stdout, "started\n", "{how}: what was seen is kept");
        }
        let kinds = audit_kinds(&node.audit_dir(), &id);
        assert!(kinds.contains(&"finished".to_string()), "{how}: {kinds:?}");
    }
    assert_no_containers_within(&node.host, Duration::from_secs(10));
}

/// A warm sandbox that dies after its job took it but before the program reached it never
/// ran the program: the job runs once more, in a fresh sandbox, completes with its output,
/// and the audit log shows both containers. (Fault injected with the fail point
/// `supervisor::lose_warm_sandbox`; the `failpoints` feature is on in `scripts/test`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_warm_sandbox_lost_before_its_program_arrived_is_replaced_once() {
    let nats = Nats::start();
    let env = [
        ("CORDON__POOL__UNTRUSTED", "1"),
        ("FAILPOINTS", "supervisor::lose_warm_sandbox=1*return"),
    ];
    let mut node = Node::up_with_env(&nats, "lost-warm", &config(), &env);
    let client = client(&nats).await;
    let warm = format!("label=cordon.host={}", node.host);
    let deadline = Instant::now() + Duration::from_secs(60);
    while docker_cli(&[
        "ps",
        "-q",
        "--filter",
        &warm,
        "--filter",
        "label=cordon.warm=true",
    ])
    .is_empty()
    {
        assert!(Instant::now() < deadline, "no warm sandbox within a minute");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let id = Client::new_request_id();
    let result = client
        .run(
            &id,
            &request("print('ran')", "untrusted"),
            Duration::from_secs(90),
        )
        .await
        .expect("a result");
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "ran\n");
    let created = audit_kinds(&node.audit_dir(), &id)
        .into_iter()
        .filter(|kind| kind == "container_created")
        .count();
    assert_eq!(created, 2, "the lost warm sandbox and its cold replacement");
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(10));
}
