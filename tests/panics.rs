//! A panic fails one request, never the node: injected with fail points (the `failpoints`
//! feature, which `scripts/test` turns on), a panic in one program's analysis holds it at
//! HIGH with finding CRD004, and a panic while the supervisor handles one job answers that
//! job `failed` (`internal`); each is audited and raises an `internal` alert, and the next
//! request runs as usual in the same process.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::assessor::Level;
use cordon::protocol::audit::{Alert, AlertKind};
use cordon::protocol::exec::Status;
use futures::StreamExt;
use pipeline_support::*;

/// Waits up to 30 s for an `internal` alert about `request_id`.
async fn internal_alert(alerts: &mut async_nats::Subscriber, request_id: &str) -> Alert {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let message = tokio::time::timeout_at(deadline, alerts.next())
            .await
            .expect("an alert within 30 s")
            .expect("the alert subscription stays open");
        let Ok(envelope) = cordon::protocol::decode::<Alert>(&message.payload) else {
            continue;
        };
        let alert = envelope.body;
        if alert.kind == AlertKind::Internal && alert.request_id.as_deref() == Some(request_id) {
            return alert;
        }
    }
}

/// A node of all roles with one fail point set, a client, and a subscription to alerts.
async fn node_with(test: &str, fail_point: &str) -> (Nats, Node, Client, async_nats::Subscriber) {
    let nats = Nats::start();
    let node = Node::up_with_env(&nats, test, &test_config(""), &[("FAILPOINTS", fail_point)]);
    let client = client(&nats).await;
    let subject = cordon::protocol::Subject::EventsAlert.to_subject();
    let alerts = raw_connection(&nats)
        .await
        .subscribe(subject)
        .await
        .unwrap();
    (nats, node, client, alerts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_one_programs_analysis_holds_it_high_and_the_node_goes_on() {
    let (_nats, mut node, client, mut alerts) =
        node_with("panic-assess", "assessor::analyse=1*panic").await;
    let id = Client::new_request_id();
    let first = client
        .run(
            &id,
            &request("print(1)", "trusted"),
            Duration::from_secs(90),
        )
        .await
        .expect("a result for the program whose analysis panicked");
    let assessment = first.assessment.expect("an assessment");
    assert!(assessment.level >= Level::High, "{assessment:?}");
    assert!(
        assessment.findings.iter().any(|f| f.rule == "CRD004"),
        "{assessment:?}"
    );
    let alert = internal_alert(&mut alerts, &id).await;
    assert!(alert.detail.contains("analysis"), "{alert:?}");

    let next = run(&client, "print(2)").await;
    assert_eq!(next.status, Status::Completed, "{next:?}");
    assert_eq!(next.stdout, "2\n");
    assert!(node.is_running(), "the node lives on");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_while_handling_one_job_fails_that_job_and_the_node_goes_on() {
    let (_nats, mut node, client, mut alerts) =
        node_with("panic-supervise", "supervisor::handle=1*panic").await;
    let id = Client::new_request_id();
    let failed = client
        .run(
            &id,
            &request("print(1)", "untrusted"),
            Duration::from_secs(90),
        )
        .await
        .expect("a result for the job whose handling panicked");
    assert_eq!(failed.status, Status::Failed, "{failed:?}");
    let error = failed.error.expect("an error");
    assert_eq!(error.code, "internal");
    assert!(error.message.contains("supervisor"), "{}", error.message);
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert!(kinds.contains(&"finished".to_string()), "{kinds:?}");
    internal_alert(&mut alerts, &id).await;

    let next = run(&client, "print(2)").await;
    assert_eq!(next.status, Status::Completed, "{next:?}");
    assert_eq!(next.stdout, "2\n");
    assert!(node.is_running(), "the node lives on");
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(10));
}
