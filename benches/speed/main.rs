//! `scripts/bench`'s measurements, printed as ONE markdown table: `print(1)` end to end
//! through NATS on a real `cordon up` (cold: no warm pool; warm: the default pool; both
//! again on gVisor's runsc),
//! throughput at 1 and 4 clients, kill latency after a deadline, assessor time per file,
//! durable audit appends per second and `cordon up`'s idle memory, each beside the raw
//! Docker floor measured in the same run (a hardened `docker run --rm` of the same image).
//! A benchmark, not a test: run through `cargo bench --bench speed` (release profile);
//! without `--bench` (as `cargo test --all-targets` runs it) it only says so and exits.
//!
//! - `node`: a `cordon up` with its embedded nats-server in a temp data dir.
//! - `docker_floor`: the raw `docker run --rm` and `docker kill` baselines.
//! - `library`: assessor and audit, measured in-process.
//! - `sessions`: opening a session, a cell in one (beside llm-sandbox), idle sessions' memory.
//! - `stats`: percentiles and the table.

mod docker_floor;
mod library;
mod node;
mod sessions;
mod stats;

/// The `cordon` binary's allocator, so the in-process rows measure what the service runs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cordon::client::Client;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status};
use stats::{Row, Samples};

/// Requests per latency series.
pub const LATENCY_RUNS: usize = 30;
/// Requests per client in a throughput run.
const RUNS_PER_CLIENT: usize = 10;
/// Deadline of the kill-latency jobs, milliseconds.
const KILL_DEADLINE_MS: u64 = 300;
const KILL_RUNS: usize = 20;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        eprintln!("speed: a benchmark; run it with scripts/bench (cargo bench --bench speed)");
        return;
    }
    let cordon = cordon_binary(&args);
    // The in-process rows first: after the pipeline rows, Docker is still removing the
    // warm pool's containers on the same two cores.
    // `--only sessions`: the session rows alone (when only their code changed).
    // `--only runsc`: the gVisor rows alone (when only the runsc path changed).
    let only = |what: &str| args.windows(2).any(|w| w[0] == "--only" && w[1] == what);
    if only("sessions") {
        stats::print_table(&sessions::rows(&cordon).await);
        return;
    }
    if only("runsc") {
        stats::print_table(&runsc_rows(&cordon).await);
        return;
    }
    let library_rows = library::rows();
    let mut rows = pipeline_rows(&cordon).await;
    rows.extend(sessions::rows(&cordon).await);
    rows.extend(library_rows);
    stats::print_table(&rows);
}

/// `--cordon PATH`, or the release build next to this benchmark.
fn cordon_binary(args: &[String]) -> PathBuf {
    let given = args
        .windows(2)
        .find(|w| w[0] == "--cordon")
        .map(|w| PathBuf::from(&w[1]));
    given.unwrap_or_else(|| PathBuf::from("target/release/cordon"))
}

/// Settings that put every trust level on gVisor's runsc (which has no network).
const ON_RUNSC: &str = "[sandbox]\nruntime = \"runsc\"\n[network]\nallowed_trust = []\n";

async fn pipeline_rows(cordon: &Path) -> Vec<Row> {
    let floor_latency = docker_floor::latency(LATENCY_RUNS, false).await;
    let cold = {
        let node = node::Up::start(cordon, "cold", node::NO_POOL).await;
        let client = Arc::new(node.client().await);
        let cold = latency(&client, None).await;
        node.stop();
        cold
    };
    // The defaults' pool.
    let node = node::Up::start(cordon, "warm", "").await;
    let client = Arc::new(node.client().await);
    let warm = latency(&client, Some(&node)).await;
    let mut rows = vec![
        Row::latency("`print(1)` end to end, cold sandbox", &cold, &floor_latency),
        Row::latency("`print(1)` end to end, warm pool", &warm, &floor_latency),
    ];
    for clients in [1, 4] {
        node.wait_pool_full().await;
        let ours = throughput(&client, clients).await;
        let floor = docker_floor::throughput(clients, RUNS_PER_CLIENT).await;
        rows.push(Row::throughput(clients, ours, floor));
    }
    let kills = kill_latency(&client, &node).await;
    rows.push(Row::kill(
        &kills,
        &docker_floor::kill_latency(KILL_RUNS).await,
    ));
    rows.push(node.memory_row());
    node.stop();
    rows.extend(runsc_rows(cordon).await);
    rows
}

/// Cold and warm `print(1)` with every level on gVisor's runsc, beside `docker run` on runsc.
async fn runsc_rows(cordon: &Path) -> Vec<Row> {
    let floor = docker_floor::latency(LATENCY_RUNS, true).await;
    let cold = {
        let node = node::Up::start(
            cordon,
            "cold-runsc",
            &format!("{}{ON_RUNSC}", node::NO_POOL),
        )
        .await;
        let client = node.client().await;
        let cold = latency(&client, None).await;
        node.stop();
        cold
    };
    let node = node::Up::start(cordon, "warm-runsc", ON_RUNSC).await;
    let client = node.client().await;
    let warm = latency(&client, Some(&node)).await;
    node.stop();
    vec![
        Row::latency(
            "`print(1)` end to end, cold sandbox, gVisor (runsc)",
            &cold,
            &floor,
        ),
        Row::latency(
            "`print(1)` end to end, warm pool, gVisor (runsc)",
            &warm,
            &floor,
        ),
    ]
}

/// `print(1)` round trips; with `warm_node`, each waits (untimed) for a full pool first.
async fn latency(client: &Client, warm_node: Option<&node::Up>) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..LATENCY_RUNS {
        if let Some(node) = warm_node {
            node.wait_pool_full().await;
        }
        let started = Instant::now();
        expect_completed(run(client, "print(1)", None).await, "1\n");
        samples.push(started.elapsed());
    }
    samples
}

/// Runs per second with `clients` clients each running `RUNS_PER_CLIENT` in a row.
async fn throughput(client: &Arc<Client>, clients: usize) -> f64 {
    let started = Instant::now();
    let workers: Vec<_> = (0..clients)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move {
                for _ in 0..RUNS_PER_CLIENT {
                    expect_completed(run(&client, "print(1)", None).await, "1\n");
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a throughput client");
    }
    (clients * RUNS_PER_CLIENT) as f64 / started.elapsed().as_secs_f64()
}

/// How long after its deadline a busy loop's sandbox is seen stopped (`wall_ms` minus the
/// deadline), on the warm path as a job normally runs.
async fn kill_latency(client: &Client, node: &node::Up) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..KILL_RUNS {
        node.wait_pool_full().await;
        let result = run(client, "while True:\n    pass\n", Some(KILL_DEADLINE_MS)).await;
        assert_eq!(result.status, Status::Violation, "{result:?}");
        let wall_ms = result.usage.map(|u| u.wall_ms).unwrap_or(0);
        let late = wall_ms.saturating_sub(KILL_DEADLINE_MS);
        samples.push(Duration::from_millis(late));
    }
    samples
}

async fn run(client: &Client, code: &str, timeout_ms: Option<u64>) -> ExecResult {
    let request = ExecRequest {
        code: serde_bytes::ByteBuf::from(code.as_bytes().to_vec()),
        trust: Some("untrusted".into()),
        origin: None,
        timeout_ms,
        client: Some("bench".into()),
        network: None,
        image: None,
        ..Default::default()
    };
    let id = Client::new_request_id();
    client
        .run(&id, &request, Duration::from_secs(120))
        .await
        .expect("a result within two minutes")
}

fn expect_completed(result: ExecResult, stdout: &str) {
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, stdout);
}
