//! Sessions through the whole pipeline (a real nats-server, real Docker): cells share one
//! namespace and working directory, a cell past its deadline is interrupted and the session
//! goes on, one that will not stop is killed with its session, other clients are refused,
//! idle sessions expire, a client's sessions are capped, and a session whose sandbox was
//! removed from outside answers `session_lost`. No session's sandbox is left behind.
//! Needs Docker, nats-server and the default image.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::config::Settings;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status, ViolationKind};
use cordon::protocol::interpreter::InputFile;
use pipeline_support::*;

fn config() -> String {
    test_config(
        r#"
[limits.unknown]
session_idle_secs = 2
sessions_per_client = 2

[sessions]
interrupt_grace_ms = 1500
"#,
    )
}

fn cell(code: &str, session: &str) -> ExecRequest {
    ExecRequest {
        session: Some(session.to_string()),
        ..request(code, "untrusted")
    }
}

async fn open(client: &Client, trust: &str) -> (ExecResult, String) {
    let opened = run_request(client, &cell("", "new").with_trust(trust)).await;
    let id = opened
        .session
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_default();
    (opened, id)
}

trait WithTrust {
    fn with_trust(self, trust: &str) -> Self;
}

impl WithTrust for ExecRequest {
    fn with_trust(self, trust: &str) -> Self {
        ExecRequest {
            trust: Some(trust.to_string()),
            ..self
        }
    }
}

/// Another client of the same server, under another name.
async fn client_named(nats: &Nats, name: &str) -> Client {
    let mut settings = Settings::load(None).expect("defaults");
    settings.nats.client = name.to_string();
    Client::connect(&nats.url, &settings.nats)
        .await
        .expect("client connects")
}

#[tokio::test]
async fn cells_share_a_namespace_and_files_and_deadlines_interrupt_without_ending_it() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "sessions-state", &config());
    let client = client(&nats).await;

    let (opened, id) = open(&client, "untrusted").await;
    assert_eq!(opened.status, Status::Completed, "{opened:?}");
    assert!(id.ends_with(&format!("@{}", node.host)), "{id}");
    assert_eq!(managed_containers_of(&node.host).len(), 1);

    // Three dependent cells: a variable, an import, a file in the working directory, and a
    // file placed by the request.
    let first = ExecRequest {
        files: Some(vec![InputFile {
            path: "inputs/numbers.csv".into(),
            content: b"1\n2\n3\n".to_vec().into(),
        }]),
        ..cell(
            "x = 41\nimport json\nopen('notes.txt', 'w').write('kept')\n",
            &id,
        )
    };
    let first = run_request(&client, &first).await;
    assert_eq!(first.status, Status::Completed, "{first:?}");
    let second = run_request(
        &client,
        &cell(
            "total = sum(int(n) for n in open('inputs/numbers.csv'))\nprint(x + 1, total)",
            &id,
        ),
    )
    .await;
    assert_eq!(second.stdout, "42 6\n", "{second:?}");
    let third = run_request(
        &client,
        &cell(
            "print(json.dumps({'notes': open('notes.txt').read(), 'x': x}))",
            &id,
        ),
    )
    .await;
    assert_eq!(
        third.stdout, "{\"notes\": \"kept\", \"x\": 41}\n",
        "{third:?}"
    );
    let session = third.session.expect("session info");
    assert!(session.open);
    assert_eq!(session.cells, 3);

    // Past its deadline a cell is interrupted (KeyboardInterrupt), and the session lives on.
    let slow = ExecRequest {
        timeout_ms: Some(1000),
        ..cell("import time\ny = 1\ntime.sleep(30)\n", &id)
    };
    let slow = run_request(&client, &slow).await;
    assert_eq!(slow.status, Status::Violation, "{slow:?}");
    assert_eq!(
        slow.violation.as_ref().unwrap().kind,
        ViolationKind::Timeout
    );
    assert!(slow.stderr.contains("KeyboardInterrupt"), "{slow:?}");
    assert!(slow.session.as_ref().unwrap().open, "{slow:?}");
    let after = run_request(&client, &cell("print(x, y)", &id)).await;
    assert_eq!(after.stdout, "41 1\n", "{after:?}");

    // A cell that swallows the interrupt is killed after the grace, and its session ends.
    let stubborn = ExecRequest {
        timeout_ms: Some(1000),
        ..cell(
            "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(30)\n",
            &id,
        )
    };
    let stubborn = run_request(&client, &stubborn).await;
    assert_eq!(stubborn.status, Status::Violation, "{stubborn:?}");
    assert!(
        stubborn
            .violation
            .as_ref()
            .unwrap()
            .detail
            .contains("did not stop"),
        "{stubborn:?}"
    );
    assert!(!stubborn.session.as_ref().unwrap().open, "{stubborn:?}");
    let late = run_request(&client, &cell("print(x)", &id)).await;
    assert_eq!(late.status, Status::Failed, "{late:?}");
    assert_eq!(
        late.error.as_ref().unwrap().code,
        "session_closed",
        "{late:?}"
    );
    assert_no_containers_within(&node.host, Duration::from_secs(15));

    // The audit log has the file placed by the request, with its hash.
    let entries = audit_entries(&node.audit_dir(), &first.request_id);
    let received = entries
        .iter()
        .find(|e| e.kind == "received")
        .expect("received");
    let body = format!("{:?}", received.body);
    assert!(body.contains("inputs/numbers.csv"), "{body}");
    let csv_sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"1\n2\n3\n"));
    assert!(body.contains(&csv_sha), "{body}");
    node.stop();
}

#[tokio::test]
async fn sessions_are_their_clients_expire_when_idle_are_capped_and_report_being_lost() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "sessions-owner", &config());
    let alice = client(&nats).await;
    let mallory = client_named(&nats, "mallory").await;

    let (_, id) = open(&alice, "unknown").await;
    assert!(!id.is_empty());
    let stolen = run_request(&mallory, &cell("print('in')", &id).with_trust("unknown")).await;
    assert_eq!(stolen.status, Status::Rejected, "{stolen:?}");
    assert_eq!(stolen.error.as_ref().unwrap().code, "unknown_session");
    assert!(stolen.stdout.is_empty());

    // At most two sessions per client at `unknown` (the test's setting); another client
    // has its own allowance.
    let (_, second) = open(&alice, "unknown").await;
    assert!(!second.is_empty());
    tokio::time::sleep(Duration::from_millis(1500)).await; // the load reports list both
    let (third, none) = open(&alice, "unknown").await;
    assert_eq!(third.status, Status::Rejected, "{third:?}");
    assert_eq!(third.error.as_ref().unwrap().code, "session_limit");
    assert!(none.is_empty());

    // Idle for longer than `session_idle_secs` (2 s): both sessions end.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let expired = run_request(&alice, &cell("print(1)", &id).with_trust("unknown")).await;
    assert_eq!(expired.status, Status::Failed, "{expired:?}");
    let error = expired.error.as_ref().unwrap();
    assert_eq!(error.code, "session_closed", "{expired:?}");
    assert!(error.message.contains("idle"), "{expired:?}");
    assert_no_containers_within(&node.host, Duration::from_secs(15));

    // A session whose sandbox is removed from outside answers its next cell session_lost.
    let (_, id) = open(&alice, "untrusted").await;
    let set = run_request(&alice, &cell("x = 1", &id)).await;
    assert_eq!(set.status, Status::Completed, "{set:?}");
    for container in managed_containers_of(&node.host) {
        docker_cli(&["rm", "-f", &container]);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lost = run_request(&alice, &cell("print(x)", &id)).await;
    assert_eq!(lost.status, Status::Failed, "{lost:?}");
    assert_eq!(
        lost.error.as_ref().unwrap().code,
        "session_lost",
        "{lost:?}"
    );
    assert!(lost.stdout.is_empty());

    // Closing works, and closes for good.
    let (_, id) = open(&alice, "untrusted").await;
    let close = ExecRequest {
        close_session: Some(true),
        ..cell("", &id)
    };
    let closed = run_request(&alice, &close).await;
    assert_eq!(closed.status, Status::Completed, "{closed:?}");
    assert!(!closed.session.as_ref().unwrap().open);
    assert_no_containers_within(&node.host, Duration::from_secs(15));
    node.stop();
}

#[tokio::test]
async fn a_one_off_run_reads_stdin_and_files_and_returns_what_it_writes() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "interpreter-files", &config());
    let client = client(&nats).await;
    let program = "import sys\n\
name = input()\n\
rows = open('data.csv').read().split()\n\
with open('outputs/report.txt', 'w') as out:\n    out.write(f'{name}: {len(rows)} rows')\n\
open('scratch.txt', 'w').write('not returned')\n\
print(sys.stdin.read().strip())\n";
    let with_input = ExecRequest {
        stdin: Some(b"ada\nrest of input\n".to_vec().into()),
        files: Some(vec![InputFile {
            path: "data.csv".into(),
            content: b"a\nb\nc\n".to_vec().into(),
        }]),
        ..request(program, "untrusted")
    };
    let result = run_request(&client, &with_input).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "rest of input\n");
    assert_eq!(result.files.len(), 1, "{result:?}");
    let report = &result.files[0];
    assert_eq!(report.name, "outputs/report.txt");
    assert_eq!(report.content.as_slice(), b"ada: 3 rows");
    assert_eq!(report.media_type, "text/plain");
    let sha = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"ada: 3 rows"));
    assert_eq!(report.sha256, sha);
    // The finished entry names the file by hash; the blob holds its bytes.
    let entries = audit_entries(&node.audit_dir(), &result.request_id);
    let finished = entries.iter().find(|e| e.kind == "finished").unwrap();
    assert!(format!("{:?}", finished.body).contains(&sha));
    assert_eq!(
        std::fs::read(
            cordon::audit::blobs::BlobStore::new(&node.audit_dir())
                .path_of(&sha)
                .unwrap()
        )
        .ok(),
        Some(b"ada: 3 rows".to_vec()),
        "the output file is kept as a blob"
    );

    // A bad file path is rejected before anything runs.
    let bad = ExecRequest {
        files: Some(vec![InputFile {
            path: "../escape".into(),
            content: b"x".to_vec().into(),
        }]),
        ..request("print(1)", "untrusted")
    };
    let bad = run_request(&client, &bad).await;
    assert_eq!(bad.status, Status::Rejected, "{bad:?}");
    assert_eq!(bad.error.as_ref().unwrap().code, "invalid_file");
    assert_no_containers_within(&node.host, Duration::from_secs(15));
    node.stop();
}

/// A session whose host is gone (its supervisor SIGKILLed, so the host stops reporting its
/// load) answers its next cell `session_lost` from the Scheduler; the supervisor that
/// takes the host over removes the dead one's session sandbox.
#[tokio::test]
async fn a_session_whose_host_is_gone_answers_session_lost() {
    let nats = Nats::start();
    let config = test_config("host_stale_ms = 1500");
    let node = Node::prepare("session-host-lost", &config);
    let mut pipeline =
        Node::serve_like(&node, &nats, &["assessor", "scheduler", "audit", "monitor"]);
    let mut supervisor = Node::serve_like(&node, &nats, &["supervisor"]);
    let client = client(&nats).await;
    let (opened, id) = open(&client, "untrusted").await;
    assert_eq!(opened.status, Status::Completed, "{opened:?}");
    assert_eq!(managed_containers_of(&node.host).len(), 1);

    supervisor.kill();
    tokio::time::sleep(Duration::from_millis(2500)).await; // past host_stale_ms
    let lost = run_request(&client, &cell("print('still there?')", &id)).await;
    assert_eq!(lost.status, Status::Failed, "{lost:?}");
    let error = lost.error.as_ref().unwrap();
    assert_eq!(error.code, "session_lost", "{lost:?}");
    assert!(error.message.contains("no longer reports"), "{lost:?}");

    let mut successor = Node::serve_like(&node, &nats, &["supervisor"]);
    assert_no_containers_within(&node.host, Duration::from_secs(20));
    successor.stop();
    pipeline.stop();
}

/// `[sessions] max_per_host` caps the sessions one host holds, whoever asks.
#[tokio::test]
async fn a_host_holds_at_most_its_max_sessions() {
    let nats = Nats::start();
    let config = test_config("\n[sessions]\nmax_per_host = 1\n");
    let mut node = Node::up(&nats, "sessions-per-host", &config);
    let alice = client(&nats).await;
    let bob = client_named(&nats, "bob").await;
    let (first, id) = open(&alice, "untrusted").await;
    assert_eq!(first.status, Status::Completed, "{first:?}");
    let (second, none) = open(&bob, "untrusted").await;
    assert_eq!(second.status, Status::Rejected, "{second:?}");
    let error = second.error.as_ref().unwrap();
    assert_eq!(error.code, "session_limit");
    assert!(
        error.message.contains("holds its most sessions"),
        "{second:?}"
    );
    assert!(none.is_empty());
    let close = ExecRequest {
        close_session: Some(true),
        ..cell("", &id)
    };
    assert_eq!(run_request(&alice, &close).await.status, Status::Completed);
    let (third, _) = open(&bob, "untrusted").await;
    assert_eq!(
        third.status,
        Status::Completed,
        "room again once one closed: {third:?}"
    );
    node.stop();
}
