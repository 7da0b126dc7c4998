//! Shared by the `sandbox_*` and `warm_pool` tests: a Docker connection that fails loudly
//! when Docker or the image is missing, a spec with a unique host label per test (tests run
//! in parallel and must not reap each other), and runners on the two paths (cold, and warm
//! from a pool) that check nothing is left behind.

#![allow(dead_code)]

use std::time::Duration;

use bollard::Docker;
use cordon::docker::runtime::SandboxRuntime;
use cordon::protocol::exec::Violation;
use cordon::protocol::scheduler::{Limits, Network};
use cordon::supervisor::pool::{PoolClass, Room};
use cordon::supervisor::reaper::containers_of_host;
use cordon::supervisor::{run_sandbox, run_sandbox_warm, WarmPool};
use cordon::supervisor::{Lifecycle, SandboxError, SandboxOutcome, SandboxSpec};
use tokio::sync::mpsc;

/// The image the tests run; override to try a freshly built one.
pub const IMAGE_ENV: &str = "CORDON_TEST_IMAGE";
pub const DEFAULT_IMAGE: &str = "cordon-python:3.11";

pub const MIB: u64 = 1 << 20;

pub fn image() -> String {
    std::env::var(IMAGE_ENV).unwrap_or_else(|_| DEFAULT_IMAGE.to_string())
}

/// The data image the tests run (`cordon image build --flavor data`); override to try another.
pub const DATA_IMAGE_ENV: &str = "CORDON_TEST_DATA_IMAGE";
pub const DEFAULT_DATA_IMAGE: &str = "cordon-python-data:3.11";

pub fn data_image() -> String {
    std::env::var(DATA_IMAGE_ENV).unwrap_or_else(|_| DEFAULT_DATA_IMAGE.to_string())
}

/// Connects to Docker and checks the sandbox image is there; panics saying what to do.
pub async fn docker() -> Docker {
    docker_with(&image(), "sudo cordon image build", IMAGE_ENV).await
}

/// Connects to Docker and checks the data image is there; panics saying what to do.
pub async fn docker_with_data_image() -> Docker {
    let build = "sudo cordon image build --flavor data";
    docker_with(&data_image(), build, DATA_IMAGE_ENV).await
}

async fn docker_with(image: &str, build: &str, variable: &str) -> Docker {
    let docker = cordon::docker::connect()
        .await
        .unwrap_or_else(|e| panic!("these tests need a running Docker engine: {e}"));
    let present = cordon::docker::image_exists(&docker, image)
        .await
        .unwrap_or_else(|e| panic!("cannot ask Docker about {image}: {e}"));
    assert!(
        present,
        "image {image} is missing: build it with `{build}` (or set {variable})"
    );
    docker
}

/// Limits roomy enough for a busy shared machine; tests tighten what they check.
pub fn limits() -> Limits {
    Limits {
        cpus: 1.0,
        memory_bytes: 128 * MIB,
        pids: 64,
        timeout_ms: 30_000,
        network: Network::None,
        cpu_time_ms: 30_000,
        stdout_bytes: 64 * 1024,
        stderr_bytes: 64 * 1024,
        tmpfs_bytes: 8 * MIB,
    }
}

/// A spec whose host label is unique to this test.
pub fn spec(test: &str) -> SandboxSpec {
    let unique = ulid::Ulid::new().to_string().to_lowercase();
    SandboxSpec {
        request_id: format!("T{}", ulid::Ulid::new()),
        host_id: format!("test-{test}-{unique}"),
        // No lock file: no node's reaper can prove this test gone and remove its sandboxes.
        owner: cordon::owner::OwnerTag::unlocked(&unique),
        uids: None,
        image: image(),
        runtime: SandboxRuntime::Runc,
        user: "1000:1000".to_string(),
        workdir: "/work".to_string(),
        limits: limits(),
        nofile: 256,
        fsize_bytes: 64 * MIB,
        egress: None,
        record_fs_changes: true,
        packages_dir: false,
        live: None,
    }
}

/// What a run produced, with its lifecycle events in order.
pub struct Run {
    pub result: Result<SandboxOutcome, SandboxError>,
    pub events: Vec<Lifecycle>,
}

impl Run {
    pub fn outcome(&self) -> &SandboxOutcome {
        match &self.result {
            Ok(outcome) => outcome,
            Err(e) => panic!("the sandbox run failed: {e}"),
        }
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.outcome().stdout).into_owned()
    }

    pub fn violation_kind(&self) -> Option<&'static str> {
        self.outcome().violation.as_ref().map(|v| v.kind.as_str())
    }
}

/// Runs `code` under `spec` with no kill orders, then checks no container of the test's
/// host is left.
pub async fn run(docker: &Docker, spec: &SandboxSpec, code: &str) -> Run {
    let (_orders, kills) = mpsc::channel::<Violation>(4);
    run_with_kills(docker, spec, code, kills).await
}

pub async fn run_with_kills(
    docker: &Docker,
    spec: &SandboxSpec,
    code: &str,
    kills: mpsc::Receiver<Violation>,
) -> Run {
    let (lifecycle, events) = mpsc::channel(16);
    let result = run_sandbox(docker, spec, code, kills, lifecycle).await;
    finished_run(docker, spec, result, events).await
}

/// A run's result with the lifecycle events it sent, once nothing of its host is left.
async fn finished_run(
    docker: &Docker,
    spec: &SandboxSpec,
    result: Result<SandboxOutcome, SandboxError>,
    mut events_rx: mpsc::Receiver<Lifecycle>,
) -> Run {
    let mut events = Vec::new();
    while let Ok(event) = events_rx.try_recv() {
        events.push(event);
    }
    assert_no_leftovers(docker, &spec.host_id).await;
    Run { result, events }
}

/// Fails if any cordon container labelled with `host_id` exists.
pub async fn assert_no_leftovers(docker: &Docker, host_id: &str) {
    let left = containers_of_host(docker, host_id)
        .await
        .expect("list containers");
    assert!(
        left.is_empty(),
        "containers left behind for {host_id}: {left:?}"
    );
}

/// Runs `code` and returns its stdout, requiring a clean exit.
pub async fn stdout_of(docker: &Docker, spec: &SandboxSpec, code: &str) -> String {
    let run = run(docker, spec, code).await;
    let outcome = run.outcome();
    assert_eq!(
        outcome.exit_code,
        Some(0),
        "program failed: {}",
        String::from_utf8_lossy(&outcome.stderr)
    );
    assert_eq!(outcome.violation, None);
    run.stdout()
}

/// The ways a sandbox is made: created for its job (cold), or taken from the warm pool,
/// made earlier and already running its interpreter runner (warm); and created cold under
/// gVisor's runsc instead of runc (gvisor). Either way the program runs as the one cell of
/// cordon's runner, as sessions' cells do. Hardening and limits must hold on all three.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    Cold,
    Warm,
    Gvisor,
}

pub const PATHS: [Path; 3] = [Path::Cold, Path::Warm, Path::Gvisor];

impl Path {
    /// The runtime sandboxes on this path run on.
    pub fn runtime(self) -> SandboxRuntime {
        match self {
            Path::Cold | Path::Warm => SandboxRuntime::Runc,
            Path::Gvisor => SandboxRuntime::Runsc,
        }
    }

    /// `spec` as this path runs it.
    pub fn spec(self, spec: &SandboxSpec) -> SandboxSpec {
        SandboxSpec {
            runtime: self.runtime(),
            ..spec.clone()
        }
    }
}

/// Room enough that a test's pool is never held back by capacity.
pub fn ample_room() -> Room {
    Room {
        cpus: 1e6,
        memory_bytes: u64::MAX,
    }
}

/// A pool of `size` warm sandboxes of `spec`'s shape, filled.
pub async fn filled_pool(docker: &Docker, spec: &SandboxSpec, size: usize) -> WarmPool {
    let class = PoolClass {
        template: spec.clone(),
        size,
    };
    let pool = WarmPool::start(docker, vec![class], ample_room());
    assert!(
        pool.wait_ready(size, Duration::from_secs(60)).await,
        "the pool made no warm sandbox within a minute"
    );
    pool
}

/// Runs `code` on `path`, with no kill orders; checks nothing is left behind.
pub async fn run_on(path: Path, docker: &Docker, spec: &SandboxSpec, code: &str) -> Run {
    let (_orders, kills) = mpsc::channel::<Violation>(4);
    run_with_kills_on(path, docker, spec, code, kills).await
}

pub async fn run_with_kills_on(
    path: Path,
    docker: &Docker,
    spec: &SandboxSpec,
    code: &str,
    kills: mpsc::Receiver<Violation>,
) -> Run {
    match path {
        Path::Cold => run_with_kills(docker, spec, code, kills).await,
        Path::Gvisor => run_with_kills(docker, &path.spec(spec), code, kills).await,
        Path::Warm => {
            let pool = filled_pool(docker, spec, 1).await;
            let run = run_warm(docker, &pool, spec, code, kills).await;
            pool.close().await;
            assert_no_leftovers(docker, &spec.host_id).await;
            run
        }
    }
}

/// Runs `code` in a sandbox taken from `pool`, which must have one ready for `spec`.
pub async fn run_warm(
    docker: &Docker,
    pool: &WarmPool,
    spec: &SandboxSpec,
    code: &str,
    kills: mpsc::Receiver<Violation>,
) -> Run {
    let warm = pool
        .take(spec)
        .expect("a warm sandbox of the spec's shape is ready");
    let (lifecycle, mut events_rx) = mpsc::channel(16);
    let result = run_sandbox_warm(docker, Some(warm), spec, code, kills, lifecycle).await;
    let mut events = Vec::new();
    while let Ok(event) = events_rx.try_recv() {
        events.push(event);
    }
    if let Ok(outcome) = &result {
        assert!(outcome.warm, "the run did not use the warm sandbox");
    }
    Run { result, events }
}

/// Like `stdout_of`, on `path`.
pub async fn stdout_on(path: Path, docker: &Docker, spec: &SandboxSpec, code: &str) -> String {
    let run = run_on(path, docker, spec, code).await;
    let outcome = run.outcome();
    assert_eq!(
        outcome.exit_code,
        Some(0),
        "program failed on the {path:?} path: {}\n{outcome:?}",
        String::from_utf8_lossy(&outcome.stderr)
    );
    assert_eq!(outcome.violation, None, "{path:?}");
    run.stdout()
}
