//! The warm pool's promises, against real Docker: a warm sandbox serves one job and is
//! destroyed, the pool refills with a new one; a job of another shape or finding the pool
//! empty runs cold at once; a pre-started sandbox's deadline counts from when its code is
//! fed and its output is kept from the first byte; warm sandboxes are labelled and reaped
//! like any other, make way for jobs, are never handed out once dead, and go with the pool.
//! Needs Docker and the `cordon-python:3.11` image; fails (never skips) without them.

mod sandbox_support;

use std::collections::HashMap;
use std::time::Duration;

use bollard::query_parameters::{InspectContainerOptions, KillContainerOptions};
use cordon::owner::Instance;
use cordon::supervisor::pool::{Held, PoolClass, Room};
use cordon::supervisor::reaper::{containers_of_host, reap_orphans};
use cordon::supervisor::{run_sandbox_warm, WarmPool};
use sandbox_support::{assert_no_leftovers, docker, filled_pool, run_warm, spec, MIB};
use tokio::sync::mpsc;

const WITHIN: Duration = Duration::from_secs(60);

async fn labels_of(docker: &bollard::Docker, id: &str) -> HashMap<String, String> {
    let inspected = docker
        .inspect_container(id, None::<InspectContainerOptions>)
        .await
        .expect("inspect a warm sandbox");
    inspected.config.and_then(|c| c.labels).unwrap_or_default()
}

#[tokio::test]
async fn a_warm_sandbox_serves_one_job_and_is_replaced_by_a_new_one() {
    let docker = docker().await;
    let spec = spec("one-job");
    let pool = filled_pool(&docker, &spec, 1).await;
    let before = containers_of_host(&docker, &spec.host_id).await.unwrap();
    assert_eq!(before.len(), 1);
    let (_orders, kills) = mpsc::channel(1);
    let run = run_warm(&docker, &pool, &spec, "print(1)", kills).await;
    assert_eq!(run.stdout(), "1\n");
    assert_eq!(
        run.outcome().container_id,
        before[0],
        "it ran in the warm one"
    );
    assert!(pool.wait_ready(1, WITHIN).await, "the pool refilled");
    let after = containers_of_host(&docker, &spec.host_id).await.unwrap();
    assert_eq!(after.len(), 1);
    assert_ne!(after, before, "the used sandbox is gone, a new one waits");
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn a_job_of_another_shape_finds_nothing_and_runs_cold() {
    let docker = docker().await;
    let spec = spec("other-shape");
    let pool = filled_pool(&docker, &spec, 1).await;
    let mut scaled = spec.clone();
    scaled.limits.cpus = 0.5;
    let mut smaller = spec.clone();
    smaller.limits.memory_bytes = 64 * MIB;
    for other in [&scaled, &smaller] {
        assert!(pool.take(other).is_none(), "{:?}", other.limits);
    }
    assert_eq!(pool.ready(), 1, "the pool is untouched");
    let (lifecycle, _events) = mpsc::channel(8);
    let (_orders, kills) = mpsc::channel(1);
    let outcome = run_sandbox_warm(
        &docker,
        pool.take(&scaled),
        &scaled,
        "print(2)",
        kills,
        lifecycle,
    )
    .await
    .expect("a cold run");
    assert!(!outcome.warm);
    assert_eq!(outcome.stdout, b"2\n");
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn a_pool_without_room_makes_nothing_and_jobs_run_cold_at_once() {
    let docker = docker().await;
    let spec = spec("no-room");
    let class = PoolClass {
        template: spec.clone(),
        size: 2,
    };
    let room = Room {
        cpus: spec.limits.cpus / 2.0,
        memory_bytes: u64::MAX,
    };
    let pool = WarmPool::start(&docker, vec![class], room);
    assert!(!pool.wait_ready(1, Duration::from_secs(2)).await);
    assert!(pool.take(&spec).is_none());
    assert!(containers_of_host(&docker, &spec.host_id)
        .await
        .unwrap()
        .is_empty());
    pool.close().await;
}

#[tokio::test]
async fn the_deadline_of_a_warm_sandbox_starts_when_its_code_is_fed() {
    let docker = docker().await;
    let mut spec = spec("deadline");
    spec.limits.timeout_ms = 1_500;
    let pool = filled_pool(&docker, &spec, 1).await;
    // Idle for longer than the whole deadline before the job comes.
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let (_orders, kills) = mpsc::channel(1);
    let code = "import time\ntime.sleep(0.5)\nprint('in time', flush=True)\n";
    let run = run_warm(&docker, &pool, &spec, code, kills).await;
    assert_eq!(run.outcome().violation, None, "{:?}", run.outcome());
    assert_eq!(run.stdout(), "in time\n");
    let (_orders, kills) = mpsc::channel(1);
    assert!(pool.wait_ready(1, WITHIN).await);
    let run = run_warm(&docker, &pool, &spec, "while True:\n    pass\n", kills).await;
    assert_eq!(run.violation_kind(), Some("timeout"));
    assert!(run.outcome().wall_ms >= 1_500, "{:?}", run.outcome());
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn a_warm_sandboxs_output_is_kept_from_its_first_byte() {
    let docker = docker().await;
    let spec = spec("first-byte");
    let pool = filled_pool(&docker, &spec, 1).await;
    let code =
        "import sys\nsys.stdout.buffer.write(b'\\x00A')\nsys.stderr.buffer.write(b'\\xffB')\n";
    let (_orders, kills) = mpsc::channel(1);
    let run = run_warm(&docker, &pool, &spec, code, kills).await;
    let outcome = run.outcome();
    assert_eq!(outcome.stdout, b"\x00A");
    assert_eq!(outcome.stderr, b"\xffB");
    assert_eq!(outcome.exit_code, Some(0));
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn warm_sandboxes_are_labelled_and_reaped_like_any_other() {
    let docker = docker().await;
    let owners = tempfile::tempdir().unwrap();
    let owner = Instance::claim(owners.path()).unwrap();
    let mut spec = spec("reaped");
    spec.owner = owner.tag().clone();
    let pool = filled_pool(&docker, &spec, 2).await;
    let ids = containers_of_host(&docker, &spec.host_id).await.unwrap();
    assert_eq!(ids.len(), 2);
    for id in &ids {
        let labels = labels_of(&docker, id).await;
        assert_eq!(labels["cordon.managed"], "true");
        assert_eq!(labels["cordon.host"], spec.host_id);
        assert_eq!(labels["cordon.warm"], "true");
        assert_eq!(labels["cordon.owner"], owner.id());
    }
    // Another supervisor starting beside a live owner takes nothing of it.
    let next = Instance::claim(owners.path()).unwrap();
    let reaped = reap_orphans(&docker, &spec.host_id, &next).await.unwrap();
    assert!(reaped.removed.is_empty(), "{reaped:?}");
    assert_eq!(
        containers_of_host(&docker, &spec.host_id)
            .await
            .unwrap()
            .len(),
        2
    );
    // As after a crash: the owner's lock is released, the next start reaps.
    drop(owner);
    let mut reaped = reap_orphans(&docker, &spec.host_id, &next).await.unwrap();
    reaped.removed.sort();
    let mut expected = ids.clone();
    expected.sort();
    assert_eq!(reaped.removed, expected);
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn jobs_needing_the_room_evict_warm_sandboxes_and_the_pool_refills_after() {
    let docker = docker().await;
    let spec = spec("evict");
    let class = PoolClass {
        template: spec.clone(),
        size: 1,
    };
    let room = Room {
        cpus: spec.limits.cpus,
        memory_bytes: u64::MAX,
    };
    let pool = WarmPool::start(&docker, vec![class], room);
    assert!(pool.wait_ready(1, WITHIN).await);
    pool.jobs_changed(Held::default().plus(0.5, 0));
    assert_eq!(pool.ready(), 0, "evicted at once");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !containers_of_host(&docker, &spec.host_id)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "evicted sandbox not removed"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    pool.jobs_changed(Held::default());
    assert!(
        pool.wait_ready(1, WITHIN).await,
        "refilled once the room is back"
    );
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn a_warm_sandbox_that_died_before_its_job_is_never_handed_out() {
    let docker = docker().await;
    let spec = spec("died");
    let pool = filled_pool(&docker, &spec, 1).await;
    let id = containers_of_host(&docker, &spec.host_id).await.unwrap()[0].clone();
    let options = KillContainerOptions {
        signal: "SIGKILL".to_string(),
    };
    docker.kill_container(&id, Some(options)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    if let Some(warm) = pool.take(&spec) {
        assert_ne!(warm.id(), id, "a dead sandbox was handed out");
    }
    pool.close().await;
    // The discarded ones are removed by their guards, in the background.
    assert_none_within(&docker, &spec.host_id, Duration::from_secs(10)).await;
}

async fn assert_none_within(docker: &bollard::Docker, host_id: &str, within: Duration) {
    let deadline = tokio::time::Instant::now() + within;
    while !containers_of_host(docker, host_id)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "containers of {host_id} still there after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn dropping_the_pool_removes_its_warm_sandboxes() {
    let docker = docker().await;
    let spec = spec("dropped-pool");
    let pool = filled_pool(&docker, &spec, 2).await;
    drop(pool);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !containers_of_host(&docker, &spec.host_id)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "warm sandboxes outlived their pool"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_pool_whose_image_is_missing_makes_nothing_and_the_cold_path_says_why() {
    let docker = docker().await;
    let mut spec = spec("no-image");
    spec.image = "cordon-test-no-such-image:never".to_string();
    let class = PoolClass {
        template: spec.clone(),
        size: 1,
    };
    let pool = WarmPool::start(&docker, vec![class], sandbox_support::ample_room());
    assert!(!pool.wait_ready(1, Duration::from_secs(2)).await);
    let (lifecycle, _events) = mpsc::channel(8);
    let (_orders, kills) = mpsc::channel(1);
    let result = run_sandbox_warm(
        &docker,
        pool.take(&spec),
        &spec,
        "print(1)",
        kills,
        lifecycle,
    )
    .await;
    assert!(
        matches!(
            result,
            Err(cordon::supervisor::SandboxError::ImageMissing { .. })
        ),
        "{result:?}"
    );
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}

/// A warm sandbox killed from outside after it was taken but before its code arrived is
/// reported lost with the code not delivered: the one case where a job may run again.
#[tokio::test]
async fn a_warm_sandbox_killed_before_its_code_is_lost_and_never_ran_the_program() {
    let docker = docker().await;
    let spec = spec("killed-warm");
    let pool = filled_pool(&docker, &spec, 1).await;
    let warm = pool.take(&spec).expect("a warm sandbox");
    let id = warm.id().to_string();
    let killed = std::process::Command::new("docker")
        .args(["kill", &id])
        .output()
        .unwrap();
    assert!(killed.status.success());
    let (lifecycle, _events) = mpsc::channel(8);
    let (_orders, kills) = mpsc::channel(1);
    let code = "print('ran')";
    let outcome = run_sandbox_warm(&docker, Some(warm), &spec, code, kills, lifecycle)
        .await
        .expect("an outcome");
    assert!(outcome.lost.is_some(), "{outcome:?}");
    assert!(!outcome.code_delivered, "{outcome:?}");
    assert!(outcome.stdout.is_empty());
    pool.close().await;
    assert_no_leftovers(&docker, &spec.host_id).await;
}
