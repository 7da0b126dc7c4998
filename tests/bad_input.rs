//! Bad input on the submit subject is answered, not fatal: each kind of bad payload gets a
//! `rejected` result with its own error code on `cordon.v1.exec.result.<client>.<id>`, is
//! audited, and good requests interleaved with it still complete on a node that keeps
//! running; a submit subject whose client name is unusable is refused and audited. The
//! CLI refuses what it cannot send and reports what cordon rejected, with exit status 2.

mod pipeline_support;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use async_nats::jetstream;
use cordon::bus::{CONTENT_TYPE, MSGPACK, MSG_ID};
use cordon::protocol::exec::{ExecResult, Status};
use cordon::protocol::{decode, encode, now_ms, Envelope, Subject};
use futures::StreamExt;
use pipeline_support::*;

/// Largest message the test's nats-server accepts: room for code just over the 1 MiB cap.
const MAX_PAYLOAD: u64 = 4 * MIB;
/// The default cap on code size.
const MAX_CODE_BYTES: usize = 1 << 20;

/// One submission and what must come of it.
struct Case {
    name: &'static str,
    payload: Vec<u8>,
    /// The error code of a rejection; `None` for a good request.
    rejected_with: Option<&'static str>,
    /// A word the rejection's message must contain.
    message_names: Option<&'static str>,
}

fn envelope_bytes<T: serde::Serialize>(id: &str, body: T) -> Vec<u8> {
    encode(&Envelope::new(id, now_ms(), body)).expect("encode")
}

fn good(id: &str, n: usize) -> Case {
    Case {
        name: "good",
        payload: envelope_bytes(id, request(&format!("print({n})"), "untrusted")),
        rejected_with: None,
        message_names: None,
    }
}

fn bad(
    name: &'static str,
    payload: Vec<u8>,
    code: &'static str,
    names: Option<&'static str>,
) -> Case {
    Case {
        name,
        payload,
        rejected_with: Some(code),
        message_names: names,
    }
}

/// Each bad payload, keyed by the request id it is published under.
fn bad_cases(id: &str) -> Vec<Case> {
    let with_code = |code: Vec<u8>| {
        let mut request = request("", "untrusted");
        request.code = serde_bytes::ByteBuf::from(code);
        request
    };
    let mut schema_99 = Envelope::new(id, now_ms(), request("print(1)", "untrusted"));
    schema_99.schema = 99;
    vec![
        bad(
            "garbage bytes",
            b"\xc1\xff\x00 definitely not msgpack".to_vec(),
            "invalid_msgpack",
            None,
        ),
        bad(
            "plain text",
            b"print('hello')\n".to_vec(),
            "invalid_msgpack",
            None,
        ),
        bad(
            "JSON instead of MessagePack",
            br#"{"schema": 1, "request_id": "x", "body": {"code": "print(1)"}}"#.to_vec(),
            "invalid_msgpack",
            None,
        ),
        bad(
            "schema 99",
            encode(&schema_99).unwrap(),
            "unsupported_schema",
            Some("99"),
        ),
        bad(
            "body without code",
            envelope_bytes(id, serde_json::json!({"trust": "untrusted"})),
            "invalid_request",
            Some("code"),
        ),
        bad(
            "code over 1 MiB",
            envelope_bytes(id, with_code(vec![b'#'; MAX_CODE_BYTES + 1])),
            "code_too_large",
            None,
        ),
        bad(
            "code not UTF-8",
            envelope_bytes(id, with_code(vec![b'x', 0xff, 0xfe, b'\n'])),
            "code_not_utf8",
            None,
        ),
        bad(
            "empty code",
            envelope_bytes(id, with_code(Vec::new())),
            "empty_code",
            None,
        ),
        bad(
            "trust root",
            envelope_bytes(id, request("print(1)", "root")),
            "unknown_trust_level",
            Some("root"),
        ),
    ]
}

/// Publishes `payload` on the submit subject as a client would, deduplicated by `id`.
async fn submit_raw(js: &jetstream::Context, id: &str, payload: Vec<u8>) {
    submit_raw_as(js, "anonymous", id, payload).await
}

/// Publishes `payload` on the submit subject of `client`.
async fn submit_raw_as(js: &jetstream::Context, client: &str, id: &str, payload: Vec<u8>) {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(MSG_ID, id);
    headers.insert(CONTENT_TYPE, MSGPACK);
    let subject = Subject::ExecSubmit {
        client: client.into(),
    };
    js.publish_with_headers(subject.to_subject(), headers, payload.into())
        .await
        .expect("publish")
        .await
        .expect("stored by JetStream");
}

async fn next_result(results: &mut async_nats::Subscriber, id: &str) -> ExecResult {
    let message = tokio::time::timeout(Duration::from_secs(60), results.next())
        .await
        .unwrap_or_else(|_| panic!("no result for {id} within 60 s"))
        .expect("subscription open");
    decode::<ExecResult>(&message.payload)
        .expect("result decodes")
        .body
}

/// Every kind of bad payload is rejected with its own error code and audited, while good
/// requests published between them complete and the node keeps running.
#[tokio::test]
async fn bad_payloads_are_rejected_and_audited_and_good_ones_still_run() {
    let nats = Nats::start_with_max_payload(MAX_PAYLOAD);
    let mut node = Node::up(&nats, "bad-input", &test_config(""));
    // The harness's typed client makes sure the streams exist.
    let _client = client(&nats).await;
    let raw = raw_connection(&nats).await;
    let js = jetstream::new(raw.clone());

    // Bad and good submissions alternate; every result is awaited at the end.
    let mut pending = Vec::new();
    let mut n = 0;
    for bad in bad_cases("placeholder").into_iter().map(|c| c.name) {
        let bad_id = fresh_id();
        let case = bad_cases(&bad_id)
            .into_iter()
            .find(|c| c.name == bad)
            .unwrap();
        let good_id = fresh_id();
        n += 1;
        for (id, case) in [(bad_id, case), (good_id.clone(), good(&good_id, n))] {
            let subject = Subject::ExecResult {
                client: "anonymous".into(),
                request_id: id.clone(),
            };
            let results = raw.subscribe(subject.to_subject()).await.unwrap();
            raw.flush().await.unwrap();
            submit_raw(&js, &id, case.payload.clone()).await;
            pending.push((id, case, results));
        }
    }

    for (id, case, mut results) in pending {
        let result = next_result(&mut results, &id).await;
        assert_eq!(result.request_id, id, "{}", case.name);
        match case.rejected_with {
            None => {
                assert_eq!(result.status, Status::Completed, "{result:?}");
                assert!(result.stdout.ends_with('\n') && result.exit_code == Some(0));
                let kinds = audit_kinds(&node.audit_dir(), &id);
                assert!(kinds.iter().any(|k| k == "container_removed"), "{kinds:?}");
            }
            Some(code) => {
                assert_eq!(result.status, Status::Rejected, "{}: {result:?}", case.name);
                let error = result.error.as_ref().expect("error");
                assert_eq!(error.code, code, "{}: {}", case.name, error.message);
                if let Some(word) = case.message_names {
                    assert!(
                        error.message.contains(word),
                        "{}: the message should name {word:?}: {}",
                        case.name,
                        error.message
                    );
                }
                assert!(result.limits.is_none() && result.usage.is_none());
                let kinds = audit_kinds(&node.audit_dir(), &id);
                assert_eq!(kinds, ["rejected", "finished"], "{}", case.name);
            }
        }
    }
    assert!(node.is_running(), "the node survived the bad input");
    // Still serving after all of it.
    let client = client(&nats).await;
    let last = run(&client, "print('still here')").await;
    assert_eq!(last.stdout, "still here\n");
    assert!(node.is_running());
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}

/// A request on a submit subject whose client name cannot address a result (too long for a
/// subject token) is rejected as `invalid_client` and audited; the node keeps serving.
#[tokio::test]
async fn an_unusable_client_name_is_rejected_and_audited() {
    let nats = Nats::start();
    let mut node = Node::up(&nats, "bad-client", &test_config(""));
    let client = client(&nats).await;
    let js = jetstream::new(raw_connection(&nats).await);
    let id = fresh_id();
    let long_name = "c".repeat(129);
    submit_raw_as(&js, &long_name, &id, good(&id, 1).payload).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let rejected = loop {
        // The log appears once the audit actor has started.
        let entries = cordon::audit::read_entries(&node.audit_dir(), Some("")).unwrap_or_default();
        let found = entries
            .into_iter()
            .find(|e| e.kind == "rejected" && e.body["error"]["code"] == "invalid_client");
        if let Some(entry) = found {
            break entry;
        }
        assert!(
            Instant::now() < deadline,
            "no invalid_client rejection audited"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let message = rejected.body["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("client name"), "{message}");
    let last = run(&client, "print('still here')").await;
    assert_eq!(last.stdout, "still here\n");
    assert!(node.is_running());
}

/// Runs the CLI, killing it if it takes more than a minute.
fn cordon_cli(args: &[&str]) -> Output {
    let child = Command::new(cordon_bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run cordon");
    let pid = child.id();
    let started = Instant::now();
    let watchdog = std::thread::spawn(move || {
        while started.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(100));
            // SAFETY: signal 0 only checks that our child still exists.
            if unsafe { libc::kill(pid as i32, 0) } != 0 {
                return;
            }
        }
        // SAFETY: killing our own child, which overran.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let output = child.wait_with_output().expect("cordon output");
    drop(watchdog);
    output
}

/// `cordon exec` on a file that does not exist exits 2 with one line saying so.
#[test]
fn the_cli_refuses_a_missing_file_with_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-program.py");
    let output = cordon_cli(&["exec", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no-such-program.py"), "{stderr}");
    assert!(output.stdout.is_empty());
}

/// A file that is not UTF-8, sent through `--nats`, comes back `rejected` and exits 2.
#[test]
fn the_cli_reports_a_rejected_non_utf8_program_with_status_2() {
    let nats = Nats::start();
    let node = Node::up(&nats, "cli-not-utf8", &test_config(""));
    let program = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(program.path(), b"print('caf\xe9')\n").unwrap();
    let path = program.path().to_str().unwrap();
    let output = cordon_cli(&["exec", "--nats", &nats.url, path]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("rejected"), "{stderr}");
    assert!(stderr.contains("code_not_utf8"), "{stderr}");

    let output = cordon_cli(&["exec", "--json", "--nats", &nats.url, path]);
    assert_eq!(output.status.code(), Some(2));
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(document["status"], "rejected");
    assert_eq!(document["error"]["code"], "code_not_utf8");
    assert!(containers_of(&node.host).is_empty());
}
