//! One client's backlog does not keep another client waiting: with two job slots, alice
//! queues ten long jobs; bob's short job, submitted after them, gets one of the first two
//! slots that free (alice may hold only her share, one of two, while he waits) instead of
//! a random turn among her eight waiting jobs.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::config::Settings;
use cordon::protocol::exec::Status;
use pipeline_support::*;

async fn client_named(nats: &Nats, name: &str) -> Client {
    let mut settings = Settings::load(None).unwrap().nats;
    settings.client = name.into();
    Client::connect(&nats.url, &settings).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_client_gets_the_next_free_slot_before_the_first_clients_backlog() {
    let nats = Nats::start();
    let slots = [("CORDON__SCHEDULER__MAX_JOBS", "2")];
    let node = Node::up_with_env(&nats, "fairness", &test_config(""), &slots);
    let _setup = client(&nats).await;
    let alice = client_named(&nats, "alice").await;
    let bob = client_named(&nats, "bob").await;
    let long = "import time\ntime.sleep(3)\nprint('alice')\n";
    let mut alices = Vec::new();
    for _ in 0..10 {
        let id = Client::new_request_id();
        alice
            .submit(&id, &request(long, "untrusted"))
            .await
            .unwrap();
        alices.push(id);
    }
    wait_for_running_sandboxes(&node.host).await;
    let bobs = Client::new_request_id();
    let result = bob
        .run(
            &bobs,
            &request("print('bob')", "untrusted"),
            Duration::from_secs(60),
        )
        .await
        .expect("bob's result");
    assert_eq!(result.status, Status::Completed, "{result:?}");

    let finished_at =
        |id: &str| audit_at_ms(&node.audit_dir(), id, "finished", Duration::from_secs(60));
    let bob_done = finished_at(&bobs);
    let mut alice_done: Vec<u64> = alices.iter().map(|id| finished_at(id)).collect();
    alice_done.sort_unstable();
    assert!(
        bob_done < alice_done[2],
        "bob ran in the first round of freed slots: bob {bob_done}, alice {alice_done:?}"
    );
}
