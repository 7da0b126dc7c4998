//! The session rows: opening a session from the warm pool, a `print(1)` cell in a live
//! session end to end through NATS (with the CLI, a process per cell, and with the Rust
//! client), beside llm-sandbox's `session.run` of the same cell in an open session of
//! the same image (scripts/llm-sandbox-bench.py, in a venv `scripts/bench` makes), and the
//! memory 20 idle sessions hold.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use cordon::client::Client;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status};

use super::node::Up;
use super::stats::{Row, Samples};
use super::LATENCY_RUNS;

/// Idle sessions whose memory is measured.
const IDLE_SESSIONS: usize = 20;

/// Enough sessions per client for the idle-memory row.
const CONFIG: &str = "[limits.untrusted]\nsessions_per_client = 32\n";
/// A warm interpreter sandbox for opening sessions, and no program pool.
const SESSION_POOL: &str = "[pool]\nuntrusted = 1\nunknown = 0\n";

pub async fn rows(cordon: &Path) -> Vec<Row> {
    let node = Up::start(cordon, "sessions", &format!("{CONFIG}{SESSION_POOL}")).await;
    let client = node.client().await;
    let opening = open_latency(&client, &node).await;
    let id = open(&client).await;
    let cli = cli_cell_latency(cordon, &node, &id);
    let library = client_cell_latency(&client, &id).await;
    close(&client, &id).await;
    node.stop();
    let theirs = llm_sandbox_latency();
    // On a node without warm sandboxes, so that every container is a session's.
    let config = format!("{CONFIG}{}", super::node::NO_POOL);
    let node = Up::start(cordon, "idle-sessions", &config).await;
    let memory = idle_memory_mib(&node.client().await, &node).await;
    node.stop();
    let mut rows = vec![
        Row {
            what: "open a session (warm pool), p50 / p95 / p99 ms".into(),
            cordon: opening.triple(),
            floor: String::new(),
            note: "target p50 < 100 ms".into(),
        },
        cell_row("with the CLI (a process per cell)", &cli, &theirs),
        cell_row("with the Rust client", &library, &theirs),
    ];
    rows.push(Row {
        what: format!(
            "{IDLE_SESSIONS} idle sessions: their sandboxes' working sets + the engine's processes for them (PSS), MiB"
        ),
        cordon: format!("{memory:.0}"),
        floor: String::new(),
        note: "target < 400 MiB".into(),
    });
    rows
}

fn cell_row(how: &str, ours: &Samples, llm_sandbox: &Option<Samples>) -> Row {
    let (floor, note) = match llm_sandbox {
        Some(theirs) => (
            format!("llm-sandbox: {}", theirs.triple()),
            format!(
                "p50 = {:.2} × llm-sandbox; target ≤ 15 ms and ≤ 0.1 ×",
                ours.percentile(50.0) / theirs.percentile(50.0)
            ),
        ),
        None => (
            "llm-sandbox: not installed".into(),
            "target p50 ≤ 15 ms".into(),
        ),
    };
    Row {
        what: format!("`print(1)` cell in a live session, {how}, p50 / p95 / p99 ms"),
        cordon: ours.triple(),
        floor,
        note,
    }
}

async fn run(client: &Client, request: &ExecRequest) -> ExecResult {
    let id = Client::new_request_id();
    client
        .run(&id, request, std::time::Duration::from_secs(120))
        .await
        .expect("a result within two minutes")
}

fn in_session(code: &str, session: &str) -> ExecRequest {
    ExecRequest {
        code: serde_bytes::ByteBuf::from(code.as_bytes().to_vec()),
        session: Some(session.to_string()),
        ..Default::default()
    }
}

async fn open(client: &Client) -> String {
    let opened = run(client, &in_session("", "new")).await;
    assert_eq!(opened.status, Status::Completed, "{opened:?}");
    opened.session.expect("a session").id
}

async fn close(client: &Client, id: &str) {
    let request = ExecRequest {
        close_session: Some(true),
        ..in_session("", id)
    };
    assert_eq!(run(client, &request).await.status, Status::Completed);
}

/// Opening with a full pool each time (the wait untimed), closing each (untimed).
async fn open_latency(client: &Client, node: &Up) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..LATENCY_RUNS {
        node.wait_pool_full().await;
        let started = Instant::now();
        let id = open(client).await;
        samples.push(started.elapsed());
        close(client, &id).await;
    }
    samples
}

fn cli_cell_latency(cordon: &Path, node: &Up, id: &str) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..LATENCY_RUNS {
        let started = Instant::now();
        let mut cli = Command::new(cordon)
            .arg("--data-dir")
            .arg(node.data_dir())
            .args(["exec", "-", "--session", id, "--nats", node.url()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run the CLI");
        let mut stdin = cli.stdin.take().expect("piped stdin");
        stdin.write_all(b"print(1)").expect("write the cell");
        drop(stdin);
        let output = cli.wait_with_output().expect("the CLI ends");
        samples.push(started.elapsed());
        assert_eq!(output.stdout, b"1\n", "{output:?}");
    }
    samples
}

async fn client_cell_latency(client: &Client, id: &str) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..LATENCY_RUNS {
        let started = Instant::now();
        let result = run(client, &in_session("print(1)", id)).await;
        samples.push(started.elapsed());
        assert_eq!(result.stdout, "1\n", "{result:?}");
    }
    samples
}

/// llm-sandbox's figures, when `CORDON_BENCH_PYTHON` names a Python that has it.
fn llm_sandbox_latency() -> Option<Samples> {
    let python = std::env::var("CORDON_BENCH_PYTHON").ok()?;
    let runs = LATENCY_RUNS.to_string();
    let output = Command::new(python)
        .args(["scripts/llm-sandbox-bench.py", "cordon-python:3.11", &runs])
        .output()
        .ok()?;
    if !output.status.success() {
        eprintln!(
            "bench: llm-sandbox failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        return None;
    }
    let document: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    let mut samples = Samples::default();
    for ms in document["ms"].as_array()? {
        let ms = ms.as_f64()?;
        samples.push(std::time::Duration::from_secs_f64(ms / 1000.0));
    }
    Some(samples)
}

/// Opens `IDLE_SESSIONS` sessions (each holding a variable), lets them settle, and adds up
/// what they hold: each sandbox's working set (its processes' memory and the file pages
/// they use, not the cache the kernel reclaims first), and the proportional share (PSS) of
/// the processes the engine keeps per container: its containerd shim and (with
/// fuse-overlayfs) its file-system process.
async fn idle_memory_mib(client: &Client, node: &Up) -> f64 {
    let mut ids = Vec::new();
    for _ in 0..IDLE_SESSIONS {
        let id = open(client).await;
        let set = run(client, &in_session("x = list(range(1000))", &id)).await;
        assert_eq!(set.status, Status::Completed, "{set:?}");
        ids.push(id);
    }
    std::thread::sleep(std::time::Duration::from_secs(3));
    let containers = node.containers();
    assert_eq!(containers.len(), IDLE_SESSIONS, "{containers:?}");
    let total: f64 = containers.iter().map(|c| container_mib(c)).sum();
    for id in &ids {
        close(client, id).await;
    }
    total
}

/// One container's memory, as `idle_memory_mib` counts it.
fn container_mib(container: &str) -> f64 {
    let sandbox = cgroup_memory_mib(container);
    let upper = upper_dir(container);
    let mut engine = 0.0;
    for pid in processes() {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline);
        let shim = text.contains("containerd-shim") && text.contains(container);
        let fuse = !upper.is_empty() && text.contains("fuse-overlayfs") && text.contains(&upper);
        if shim || fuse {
            engine += pss_mib(pid);
        }
    }
    sandbox + engine
}

/// The sandbox's working set (cgroup v1): its memory usage less the inactive file cache,
/// which the kernel reclaims first (what the kubelet calls a container's working set).
/// With fuse-overlayfs every sandbox has its own page cache of the image's files.
fn cgroup_memory_mib(container: &str) -> f64 {
    let dir = format!("/sys/fs/cgroup/memory/docker/{container}");
    let read = |file: &str| std::fs::read_to_string(format!("{dir}/{file}")).unwrap_or_default();
    let usage: f64 = read("memory.usage_in_bytes").trim().parse().unwrap_or(0.0);
    let inactive_file: f64 = read("memory.stat")
        .lines()
        .find_map(|line| line.strip_prefix("total_inactive_file "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    (usage - inactive_file).max(0.0) / 1024.0 / 1024.0
}

/// The container's writable layer directory (what its fuse-overlayfs process names).
fn upper_dir(container: &str) -> String {
    let output = Command::new("docker")
        .args(["inspect", "-f", "{{.GraphDriver.Data.UpperDir}}", container])
        .output()
        .expect("docker CLI");
    let upper = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if upper == "<no value>" {
        String::new()
    } else {
        upper
    }
}

fn processes() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse().ok())
        .collect()
}

/// A process's proportional set size: its private pages, and its share of shared ones.
fn pss_mib(pid: u32) -> f64 {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    rollup
        .lines()
        .find_map(|line| line.strip_prefix("Pss:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}
