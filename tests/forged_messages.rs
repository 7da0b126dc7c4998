//! A scheduled job forged on an open bus (2 CPUs, 2 GiB and 4096 pids for code nobody
//! assessed) still runs only within the highest trust level's ceilings: the supervisor
//! clamps whatever a scheduled message says. (A permissioned bus, deploy/nats, refuses the
//! forged message outright: `tests/bus_permissions.rs`.)

mod pipeline_support;

use cordon::bus::trace::TraceContext;
use cordon::bus::Bus;
use cordon::client::Client;
use cordon::protocol::assessor::{Assessment, Job, Level, Origin, TrustLevel};
use cordon::protocol::exec::Status;
use cordon::protocol::scheduler::{Limits, Network, Scheduled};
use cordon::protocol::{now_ms, Envelope, Subject};
use pipeline_support::*;

const CGROUP_LIMITS: &str = "print(open('/sys/fs/cgroup/pids/pids.max').read().strip(), open('/sys/fs/cgroup/memory/memory.limit_in_bytes').read().strip())";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_scheduled_job_runs_within_the_highest_ceilings() {
    let nats = Nats::start();
    let node = Node::up(&nats, "forged", &test_config(""));
    let client = client(&nats).await;
    let settings = node.settings();
    let id = Client::new_request_id();
    let forged = Scheduled {
        job: Job {
            code: CGROUP_LIMITS.to_string(),
            code_sha256: String::new(),
            trust: TrustLevel::Trusted,
            origin: Origin::External,
            timeout_ms: None,
            client: Some("anonymous".into()),
            network: Network::None,
            image: None,
            interpreter: None,
        },
        assessment: Assessment {
            level: Level::Low,
            score: 0,
            findings: vec![],
        },
        limits: Limits {
            cpus: 2.0,
            memory_bytes: 2 << 30,
            pids: 4096,
            timeout_ms: 600_000,
            network: Network::None,
            cpu_time_ms: 600_000,
            stdout_bytes: 1 << 30,
            stderr_bytes: 1 << 30,
            tmpfs_bytes: 1 << 30,
        },
        host: node.host.clone(),
    };
    let bus = Bus::connect(&nats.url, "forger", &settings.nats)
        .await
        .unwrap();
    let envelope = Envelope::new(id.clone(), now_ms(), forged).with_client("anonymous");
    let subject = Subject::ExecScheduled {
        host: node.host.clone(),
    };
    let trace = TraceContext::for_request(&id);
    bus.publish_durable(&subject, &id, &trace, &envelope)
        .await
        .expect("an open bus takes the forged job");

    let result = wait_result(&client, &id).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    let ceiling = &settings.limits;
    let most_pids = [
        ceiling.untrusted.pids,
        ceiling.unknown.pids,
        ceiling.trusted.pids,
    ];
    let most_memory = [
        ceiling.untrusted.memory_bytes,
        ceiling.unknown.memory_bytes,
        ceiling.trusted.memory_bytes,
    ];
    let printed: Vec<u64> = result
        .stdout
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!(
        printed[0],
        *most_pids.iter().max().unwrap(),
        "pids clamped: {printed:?}"
    );
    assert!(
        printed[1] <= *most_memory.iter().max().unwrap(),
        "memory clamped: {printed:?}"
    );
    let limits = result.limits.expect("the limits it ran with");
    assert!(
        limits.cpus <= ceiling.trusted.cpus && limits.pids < 4096,
        "{limits:?}"
    );
}
