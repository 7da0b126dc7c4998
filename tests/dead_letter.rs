//! A job whose every delivery is cut short (here: its supervisor is SIGKILLed each time)
//! does not loop forever: after `max_deliver` deliveries it ends `failed` (`undeliverable`)
//! with a dead-letter event, and its sandboxes are still removed.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::exec::{DeadLetterEvent, Status};
use futures::StreamExt;
use pipeline_support::*;

#[tokio::test]
async fn a_job_killed_on_every_delivery_ends_failed_with_a_dead_letter() {
    let nats = Nats::start();
    let base = Node::prepare(
        "dead-letter",
        &test_config("[nats]\nack_wait_secs = 2\nmax_deliver = 2\n"),
    );
    let _others = Node::serve_like(&base, &nats, &["audit", "assessor", "scheduler", "monitor"]);
    let mut supervisor = Node::serve_like(&base, &nats, &["supervisor"]);
    let client = client(&nats).await;
    let bus = async_nats::connect(&nats.url).await.unwrap();
    let mut dead_letters = bus.subscribe("cordon.v1.events.dead_letter").await.unwrap();
    let id = Client::new_request_id();
    client
        .submit(&id, &request("import time\ntime.sleep(60)\n", "untrusted"))
        .await
        .unwrap();
    for delivery in 1..=2 {
        while running_containers_of(&base.host).is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        supervisor.kill();
        supervisor.start();
        eprintln!("delivery {delivery} cut short");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let event = tokio::time::timeout(Duration::from_secs(30), dead_letters.next())
        .await
        .expect("a dead letter")
        .unwrap();
    let event = cordon::protocol::decode::<DeadLetterEvent>(&event.payload).unwrap();
    assert_eq!(event.request_id, id);
    assert_eq!(event.body.deliveries, 2);
    let result = wait_result(&client, &id).await;
    assert_eq!(result.status, Status::Failed, "{result:?}");
    assert_eq!(result.error.unwrap().code, "undeliverable");
    assert_no_containers_within(&base.host, Duration::from_secs(10));
}
