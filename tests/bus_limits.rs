//! Nothing runs twice, and nothing goes unanswered, because a message is large: output
//! that lossy decoding swells past the server's `max_payload` is cut to fit (the program
//! runs once, its result arrives once), and code too large to travel on with its findings
//! is rejected `code_too_large` at once, naming the bus's limit.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::exec::Status;
use pipeline_support::*;

/// A stock nats-server's largest message.
const STOCK_MAX_PAYLOAD: u64 = 1 << 20;

fn count(kinds: &[String], kind: &str) -> usize {
    kinds.iter().filter(|k| *k == kind).count()
}

/// 256 KiB of invalid UTF-8 on each stream becomes ~1.5 MiB of text; it is cut to what one
/// message holds and the job runs exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_swollen_past_the_bus_limit_is_cut_and_the_job_runs_once() {
    let nats = Nats::start_with_max_payload(STOCK_MAX_PAYLOAD);
    let caps = [
        ("CORDON__CAPS__STDOUT_BYTES", "307200"),
        ("CORDON__CAPS__STDERR_BYTES", "307200"),
    ];
    let node = Node::up_with_env(&nats, "bus-limit-output", &test_config(""), &caps);
    let client = client(&nats).await;
    let code = "import sys\nsys.stdout.buffer.write(b'\\xff' * 262144)\nsys.stderr.buffer.write(b'\\xfe' * 262144)\n";
    let id = Client::new_request_id();
    let result = client
        .run(&id, &request(code, "untrusted"), Duration::from_secs(90))
        .await
        .expect("a result");
    assert_eq!(result.status, Status::Completed, "{:?}", result.error);
    assert!(result.stdout_truncated && result.stderr_truncated);
    let room = STOCK_MAX_PAYLOAD as usize - cordon::bus::MESSAGE_MARGIN;
    assert!(result.stdout.len() + result.stderr.len() <= room);
    assert!(result.stdout.len() > 100_000, "as much as fits is kept");
    assert!(result.stdout.chars().all(|c| c == '\u{fffd}'));
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert_eq!(count(&kinds, "container_created"), 1, "ran once: {kinds:?}");
    assert_eq!(count(&kinds, "finished"), 1, "answered once: {kinds:?}");
}

/// Code that fits a submission but not the messages that carry it on is rejected once,
/// with the limit in the message, and never reaches a sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn code_too_large_for_the_bus_is_rejected_once_naming_the_limit() {
    let max_payload: u64 = 256 << 10;
    let nats = Nats::start_with_max_payload(max_payload);
    let node = Node::up(&nats, "bus-limit-code", &test_config(""));
    let client = client(&nats).await;
    let code = format!("# {}\nprint(1)\n", "x".repeat(200_000));
    let id = Client::new_request_id();
    let result = client
        .run(&id, &request(&code, "untrusted"), Duration::from_secs(90))
        .await
        .expect("a result");
    assert_eq!(result.status, Status::Rejected, "{result:?}");
    let error = result.error.expect("an error");
    assert_eq!(error.code, "code_too_large");
    let room = max_payload as usize - cordon::bus::MESSAGE_MARGIN;
    assert!(
        error.message.contains(&room.to_string()),
        "{}",
        error.message
    );
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert_eq!(count(&kinds, "rejected"), 1, "{kinds:?}");
    assert_eq!(count(&kinds, "container_created"), 0, "{kinds:?}");
}
