//! The runtime record through the whole pipeline (real nats-server, real Docker): what a
//! run asked Python to do is in its `runtime` audit entry and summarised in its result; a
//! plain program (no session, no files) that slips past the Assessor and opens a secret
//! path is killed with `policy`, and its finished entry says the Assessor missed it; a
//! flood of events is counted, not kept, and loses nothing else.
//! Needs Docker, nats-server and the default image.

mod pipeline_support;

use std::time::Duration;

use cordon::protocol::exec::{ExecRequest, Status, ViolationKind};
use cordon::protocol::interpreter::InputFile;
use pipeline_support::*;

/// An interpreter run (it returns its files) of `code` with `data.txt` placed beside it.
fn interpreted(code: &str) -> ExecRequest {
    ExecRequest {
        return_files: Some(true),
        files: Some(vec![InputFile {
            path: "data.txt".into(),
            content: b"some data\n".to_vec().into(),
        }]),
        ..request(code, "untrusted")
    }
}

/// The `runtime` entry's events of a request, as (event, detail, count).
fn recorded(node: &Node, request_id: &str) -> Vec<(String, String, u64)> {
    let runtime = audit_body(&node.audit_dir(), request_id, "runtime");
    runtime["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["event"].as_str().unwrap_or_default().to_string(),
                e["detail"].as_str().unwrap_or_default().to_string(),
                e["count"].as_u64().unwrap_or_default(),
            )
        })
        .collect()
}

const EVERYTHING: &str = "import socket, subprocess\n\
text = open('data.txt').read()\n\
open('outputs/copy.txt', 'w').write(text)\n\
s = socket.socket()\n\
try:\n    s.connect(('127.0.0.1', 9))\nexcept OSError:\n    pass\n\
subprocess.run(['true'])\n\
import colorsys\n\
print('done')\n";

#[tokio::test]
async fn files_sockets_processes_and_imports_are_recorded_with_their_arguments() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "runtime-record", &test_config(""));
    let client = client(&nats).await;
    let result = run_request(&client, &interpreted(EVERYTHING)).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "done\n");
    let events = recorded(&node, &result.request_id);
    let has = |event: &str, detail: &str| {
        events
            .iter()
            .any(|(e, d, n)| e == event && d.contains(detail) && *n >= 1)
    };
    assert!(has("open", "data.txt"), "{events:?}");
    assert!(has("open", "outputs/copy.txt"), "{events:?}");
    assert!(has("socket.connect", "127.0.0.1"), "{events:?}");
    assert!(has("subprocess.Popen", "true"), "{events:?}");
    assert!(has("import", "colorsys"), "{events:?}");
    let summary = result.runtime.expect("a runtime summary");
    assert!(
        summary.files_read.contains(&"/work/data.txt".to_string()),
        "{summary:?}"
    );
    assert!(
        summary
            .files_written
            .contains(&"/work/outputs/copy.txt".to_string()),
        "{summary:?}"
    );
    assert!(
        summary.connections.iter().any(|c| c.contains("127.0.0.1")),
        "{summary:?}"
    );
    assert!(
        summary.modules.contains(&"colorsys".to_string()),
        "{summary:?}"
    );
    assert!(!summary.assessor_missed);
    node.stop();
}

/// `open` reached through getattr on a computed name, on a path the Assessor cannot fold.
const EVADING: &str = "import builtins\n\
f = getattr(builtins, 'op' + 'en')\n\
p = bytes(b ^ 0x20 for b in b'\\x0fETC\\x0fSHADOW').decode()\n\
import time\n\
try:\n    f(p)\nexcept OSError:\n    pass\n\
time.sleep(5)\n\
print('still here')\n";

#[tokio::test]
async fn a_program_the_assessor_missed_is_stopped_by_policy_and_marked_as_a_miss() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "runtime-policy", &test_config(""));
    let client = client(&nats).await;
    // A plain request: no session, files, stdin or returned files.
    let result = run_request(&client, &request(EVADING, "untrusted")).await;
    let assessment = result.assessment.as_ref().expect("assessed");
    assert_eq!(
        assessment.level.as_str(),
        "LOW",
        "the Assessor is evaded: {assessment:?}"
    );
    assert_eq!(result.status, Status::Violation, "{result:?}");
    let violation = result.violation.as_ref().unwrap();
    assert_eq!(violation.kind, ViolationKind::Policy);
    assert!(violation.detail.contains("/etc/shadow"), "{violation:?}");
    assert!(
        !result.stdout.contains("still here"),
        "killed, not finished"
    );
    assert!(result.runtime.as_ref().unwrap().assessor_missed);
    let entries = audit_entries(&node.audit_dir(), &result.request_id);
    let finished = entries.iter().find(|e| e.kind == "finished").unwrap();
    assert_eq!(
        finished.body["result"]["runtime"]["assessor_missed"], true,
        "{:?}",
        finished.body
    );
    assert!(entries.iter().any(|e| e.kind == "violation"));
    assert_no_containers_within(&node.host, Duration::from_secs(15));
    node.stop();
}

const FLOOD: &str = "for _ in range(200000):\n    open('data.txt').close()\n\
for i in range(6000):\n    try:\n        open(f'missing-{i}')\n    except OSError:\n        pass\n\
print('done')\n";

#[tokio::test]
async fn a_flood_of_events_is_counted_not_kept_and_loses_nothing_else() {
    let nats = Nats::start();
    // 200,000 hooked opens take about 2 s of CPU on a loaded machine: a budget beyond that,
    // so the flood is what is tested, not the CPU limit.
    let room = [("CORDON__LIMITS__UNTRUSTED__CPU_TIME_MS", "7000")];
    let mut node = Node::up_with_env(&nats, "runtime-flood", &test_config(""), &room);
    let client = client(&nats).await;
    let result = run_request(&client, &interpreted(FLOOD)).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "done\n");
    let events = recorded(&node, &result.request_id);
    let repeated = events
        .iter()
        .find(|(e, d, _)| e == "open" && d == "data.txt")
        .expect("the repeated open");
    assert_eq!(repeated.2, 200_000, "each open counted");
    assert!(
        events.len() <= 4096,
        "distinct events capped: {}",
        events.len()
    );
    let summary = result.runtime.expect("a summary");
    assert!(summary.dropped > 1000, "past the cap, counted: {summary:?}");
    node.stop();
}
