//! Admission control: the Scheduler holds work it has no room for instead of overcommitting
//! a host, and held work runs once room appears.

mod pipeline_support;

use std::time::Duration;

use cordon::client::Client;
use cordon::protocol::exec::Status;
use pipeline_support::*;

/// Prints its start and end time around a short sleep.
const TIMED_JOB: &str = "import time\nprint(time.time())\ntime.sleep(0.7)\nprint(time.time())\n";

/// With one job slot per host, four jobs submitted at once all complete, one after another:
/// their runs never overlap and each is scheduled only after the previous sandbox is gone.
#[tokio::test]
async fn with_one_slot_concurrent_jobs_run_one_at_a_time() {
    let nats = Nats::start();
    // test_config's [scheduler] table is the last one: this line lands in it.
    let node = Node::up(&nats, "one-slot", &test_config("max_jobs = 1"));
    let client = client(&nats).await;
    let runs = (0..4).map(|_| run(&client, TIMED_JOB));
    let results = futures::future::join_all(runs).await;

    let mut intervals = Vec::new();
    for result in &results {
        assert_eq!(result.status, Status::Completed, "{result:?}");
        let times: Vec<f64> = result
            .stdout
            .lines()
            .map(|l| l.parse().expect("a time"))
            .collect();
        assert_eq!(times.len(), 2, "{result:?}");
        intervals.push((times[0], times[1], result.request_id.clone()));
    }
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    for pair in intervals.windows(2) {
        let ((_, end, first), (start, _, second)) = (&pair[0], &pair[1]);
        assert!(
            start >= end,
            "{second} started at {start} while {first} ran until {end}: {intervals:?}"
        );
    }

    // The Scheduler held each job: it was scheduled after the previous sandbox was removed.
    let audit = node.audit_dir();
    let index_of = |id: &str, kind: &str| {
        audit_entries(&audit, id)
            .into_iter()
            .find(|e| e.kind == kind)
            .unwrap_or_else(|| panic!("no {kind} entry for {id}"))
            .index
    };
    for pair in intervals.windows(2) {
        let (first, second) = (&pair[0].2, &pair[1].2);
        assert!(
            index_of(second, "scheduled") > index_of(first, "container_removed"),
            "{second} was scheduled before {first}'s sandbox was removed"
        );
    }
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}

/// When the host reports no memory to spare, a job is held (never started) rather than
/// squeezed in, and it runs as soon as a restarted node has room.
#[tokio::test]
async fn a_job_is_held_while_the_host_has_no_memory_to_spare() {
    let nats = Nats::start();
    // A stopping Scheduler drops the job it holds without a nak, so the job comes back only
    // when its ack wait (30 s by default) runs out: a short one keeps this test short.
    let config = test_config("\n[nats]\nack_wait_secs = 4");
    // Keep 1 TiB back for the host: no job fits the memory that is left.
    let full = config.replace(
        "reserve_memory_bytes = 0",
        "reserve_memory_bytes = 1099511627776",
    );
    let mut node = Node::up(&nats, "no-memory", &full);
    let client = client(&nats).await;
    let id = Client::new_request_id();
    let request = request("print('finally')", "untrusted");
    client.submit(&id, &request).await.unwrap();

    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(client.stored_result(&id).await.unwrap().is_none());
    assert!(containers_of(&node.host).is_empty());
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert_eq!(kinds, ["received", "assessed"], "held before scheduling");

    // The same node with room: the held job was not dropped, and now runs once.
    assert!(node.stop().success());
    std::fs::write(&node.config, &config).unwrap();
    node.start();
    let result = client
        .run(&id, &request, Duration::from_secs(60))
        .await
        .expect("the held job ends");
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "finally\n");
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert_eq!(
        kinds.iter().filter(|k| *k == "container_created").count(),
        1,
        "{kinds:?}"
    );
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}
