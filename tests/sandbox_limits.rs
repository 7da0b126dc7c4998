//! Limits enforced on hostile programs in real containers: the wall-clock deadline (busy,
//! SIGTERM-ignoring, self-stopped), output floods on either stream, memory and disk
//! exhaustion, orphaned daemons, kill orders, and cleanup when the run is cancelled; each
//! on both paths (a cold sandbox, and a warm one from the pool). Needs Docker and the `cordon-python:3.11` image; fails (never skips) without them.

mod sandbox_support;

use std::time::{Duration, Instant};

use cordon::docker::force_remove;
use cordon::docker::runtime::SandboxRuntime;
use cordon::owner::{Instance, OwnerTag};
use cordon::protocol::exec::{Violation, ViolationKind};
use cordon::supervisor::hardening::container_config;
use cordon::supervisor::reaper::{containers_of_host, reap_orphans};
use cordon::supervisor::{run_sandbox_warm, Lifecycle, SandboxSpec};
use sandbox_support::{assert_no_leftovers, docker, filled_pool, run_on, run_warm};
use sandbox_support::{run_with_kills_on, spec, Path, Run, MIB, PATHS};
use tokio::sync::mpsc;

/// A deadline short enough for tests; each timeout run must end within it plus 1 s.
const DEADLINE_MS: u64 = 1500;

fn with_deadline(test: &str) -> SandboxSpec {
    let mut spec = spec(test);
    spec.limits.timeout_ms = DEADLINE_MS;
    spec
}

/// A timeout within a second of the deadline: a one-off program is killed at it (a
/// session's cell is interrupted first: tests/sessions.rs).
fn assert_timed_out_promptly(run: &Run, path: Path) {
    let outcome = run.outcome();
    assert_eq!(
        run.violation_kind(),
        Some("timeout"),
        "{path:?} {outcome:?}"
    );
    assert!(
        outcome.wall_ms < DEADLINE_MS + 1000,
        "{path:?}: took {} ms for a {DEADLINE_MS} ms deadline",
        outcome.wall_ms
    );
    assert_eq!(outcome.exit_code, Some(137), "{path:?} {outcome:?}");
}

#[tokio::test]
async fn a_busy_loop_is_killed_at_the_deadline() {
    let docker = docker().await;
    for path in PATHS {
        let run = run_on(
            path,
            &docker,
            &with_deadline("busy"),
            "while True:
    pass
",
        )
        .await;
        assert_timed_out_promptly(&run, path);
    }
}

#[tokio::test]
async fn a_program_ignoring_sigterm_is_still_killed_at_the_deadline() {
    let docker = docker().await;
    let code = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\nwhile True:\n    time.sleep(0.01)\n";
    for path in PATHS {
        let run = run_on(path, &docker, &with_deadline("sigterm"), code).await;
        assert_timed_out_promptly(&run, path);
        assert_eq!(run.stdout(), "ready\n");
    }
}

#[tokio::test]
async fn a_program_that_stops_itself_is_still_killed_at_the_deadline() {
    let docker = docker().await;
    let code = "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)\nprint('resumed?')\n";
    for path in PATHS {
        let run = run_on(path, &docker, &with_deadline("sigstop"), code).await;
        assert_timed_out_promptly(&run, path);
        assert_eq!(run.stdout(), "");
    }
}

#[tokio::test]
async fn a_program_that_closes_its_own_output_is_still_killed_at_the_deadline() {
    let docker = docker().await;
    let code = "import os, time\nos.close(1)\nos.close(2)\nwhile True:\n    time.sleep(0.01)\n";
    for path in PATHS {
        let run = run_on(path, &docker, &with_deadline("closed-output"), code).await;
        assert_timed_out_promptly(&run, path);
    }
}

/// Runs a flood on a spec with small caps, on both paths, and checks `output`, exactly cap
/// bytes kept.
async fn assert_flood_capped(test: &str, code: &str, on_stdout: bool) -> Vec<u8> {
    let docker = docker().await;
    let mut spec = spec(test);
    spec.limits.stdout_bytes = 10_000;
    spec.limits.stderr_bytes = 7_000;
    let mut kept_on_each = Vec::new();
    for path in PATHS {
        let run = run_on(path, &docker, &spec, code).await;
        let outcome = run.outcome().clone();
        assert_eq!(run.violation_kind(), Some("output"), "{path:?} {outcome:?}");
        let (kept, cap, truncated) = if on_stdout {
            (outcome.stdout, 10_000, outcome.stdout_truncated)
        } else {
            (outcome.stderr, 7_000, outcome.stderr_truncated)
        };
        assert!(truncated, "{path:?}");
        assert_eq!(kept.len(), cap, "{path:?}");
        kept_on_each.push(kept);
    }
    assert_eq!(
        kept_on_each[0], kept_on_each[1],
        "both paths keep the same bytes"
    );
    kept_on_each.remove(0)
}

#[tokio::test]
async fn a_stdout_flood_of_lines_is_cut_at_the_cap_and_killed() {
    let kept = assert_flood_capped("out-lines", "while True:\n    print('x' * 99)\n", true).await;
    assert!(kept.starts_with(&[b'x'; 99]) && kept[99] == b'\n');
}

#[tokio::test]
async fn a_stdout_flood_without_newlines_is_cut_at_the_cap_and_killed() {
    let code = "import sys\nwhile True:\n    sys.stdout.buffer.write(b'y' * 4096)\n";
    let kept = assert_flood_capped("out-raw", code, true).await;
    assert!(kept.iter().all(|b| *b == b'y'));
}

#[tokio::test]
async fn a_stderr_flood_is_cut_at_its_own_cap_and_killed() {
    let code = "import sys\nwhile True:\n    sys.stderr.write('e' * 50 + '\\n')\n";
    assert_flood_capped("err-lines", code, false).await;
}

#[tokio::test]
async fn a_stderr_flood_without_newlines_is_cut_at_its_own_cap_and_killed() {
    let code = "import sys\nwhile True:\n    sys.stderr.buffer.write(b'z' * 5000)\n";
    assert_flood_capped("err-raw", code, false).await;
}

#[tokio::test]
async fn invalid_utf8_output_is_kept_byte_for_byte() {
    let code = "import sys\nwhile True:\n    sys.stdout.buffer.write(b'\\xff\\xfe\\x80')\n";
    let kept = assert_flood_capped("utf8", code, true).await;
    let pattern = [0xffu8, 0xfe, 0x80];
    assert!(kept.iter().enumerate().all(|(i, b)| *b == pattern[i % 3]));
}

#[tokio::test]
async fn a_memory_bomb_is_oom_killed_and_reported_as_memory() {
    let docker = docker().await;
    let mut spec = spec("membomb");
    spec.limits.memory_bytes = 64 * MIB;
    let code = "hoard = []\nwhile True:\n    hoard.append(b'm' * (8 << 20))\n";
    for path in PATHS {
        let run = run_on(path, &docker, &spec, code).await;
        let outcome = run.outcome();
        assert_eq!(run.violation_kind(), Some("memory"), "{path:?} {outcome:?}");
        assert!(outcome.oom_killed);
    }
}

#[tokio::test]
async fn filling_the_tmpfs_is_reported_as_disk() {
    let docker = docker().await;
    let mut spec = spec("disk");
    spec.limits.tmpfs_bytes = 4 * MIB;
    let code = "with open('/tmp/fill', 'wb') as f:\n    while True:\n        f.write(b'd' * 65536)\n        f.flush()\n";
    for path in PATHS {
        let run = run_on(path, &docker, &spec, code).await;
        let outcome = run.outcome();
        assert_eq!(run.violation_kind(), Some("disk"), "{path:?} {outcome:?}");
        assert_eq!(outcome.exit_code, Some(1));
        assert!(String::from_utf8_lossy(&outcome.stderr).contains("No space left on device"));
    }
}

#[tokio::test]
async fn an_orphaned_daemon_does_not_keep_the_job_alive() {
    let docker = docker().await;
    // Double fork: the grandchild sleeps for ten minutes, detached, holding stdout open.
    let code = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(600)\n    os._exit(0)\nos.wait()\nprint('parent done', flush=True)\n";
    for path in PATHS {
        let spec = spec("orphan");
        let (_orders, kills) = mpsc::channel(4);
        let (run, took) = run_timed(path, &docker, &spec, code, kills, async {}).await;
        let outcome = run.outcome();
        assert_eq!(outcome.violation, None, "{path:?} {outcome:?}");
        assert_eq!(outcome.exit_code, Some(0));
        assert_eq!(run.stdout(), "parent done\n");
        assert!(took < Duration::from_secs(10), "took {took:?}");
        assert!(outcome.wall_ms < 5000, "ran {} ms", outcome.wall_ms);
    }
}

/// Runs `code` on `path` beside `alongside` (started with the run itself, after any pool
/// is filled), and says how long the run took to end, removal included.
async fn run_timed(
    path: Path,
    docker: &bollard::Docker,
    spec: &SandboxSpec,
    code: &str,
    kills: mpsc::Receiver<Violation>,
    alongside: impl std::future::Future<Output = ()>,
) -> (Run, Duration) {
    let pool = match path {
        Path::Warm => Some(filled_pool(docker, spec, 1).await),
        Path::Cold | Path::Gvisor => None,
    };
    let started = Instant::now();
    let running = async {
        let run = match &pool {
            Some(pool) => run_warm(docker, pool, spec, code, kills).await,
            None => run_with_kills_on(path, docker, spec, code, kills).await,
        };
        (run, started.elapsed())
    };
    let (ran, ()) = tokio::join!(running, alongside);
    if let Some(pool) = pool {
        pool.close().await;
    }
    assert_no_leftovers(docker, &spec.host_id).await;
    ran
}

#[tokio::test]
async fn a_kill_order_ends_the_run_with_its_violation() {
    let docker = docker().await;
    for path in PATHS {
        let spec = spec("killorder");
        let (orders, kills) = mpsc::channel(4);
        let order = Violation {
            kind: ViolationKind::Pids,
            detail: "too many processes".into(),
        };
        let sent = order.clone();
        let ordering = async move {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let _ = orders.send(sent).await;
            let later = Violation {
                kind: ViolationKind::Cpu,
                detail: "second".into(),
            };
            let _ = orders.send(later).await;
        };
        let code = "import time\nprint('up', flush=True)\ntime.sleep(60)\n";
        let (run, _) = run_timed(path, &docker, &spec, code, kills, ordering).await;
        let outcome = run.outcome();
        assert_eq!(
            outcome.violation,
            Some(order),
            "the first violation wins ({path:?})"
        );
        assert!(outcome.wall_ms < 10_000, "ran {} ms", outcome.wall_ms);
        assert_eq!(run.stdout(), "up\n");
    }
}

#[tokio::test]
async fn dropping_the_run_mid_way_still_removes_the_container() {
    let docker = docker().await;
    for path in PATHS {
        assert_a_dropped_run_leaves_nothing(&docker, path).await;
    }
}

async fn assert_a_dropped_run_leaves_nothing(docker: &bollard::Docker, path: Path) {
    let spec = path.spec(&spec("dropped"));
    let warm = match path {
        Path::Cold | Path::Gvisor => None,
        Path::Warm => {
            let pool = filled_pool(docker, &spec, 1).await;
            let warm = pool.take(&spec).expect("a warm sandbox");
            pool.close().await;
            Some(warm)
        }
    };
    let (_orders, kills) = mpsc::channel(1);
    let (lifecycle, mut events) = mpsc::channel(8);
    let code = "import time\ntime.sleep(60)\n";
    let running = run_sandbox_warm(docker, warm, &spec, code, kills, lifecycle);
    let cancelled = tokio::time::timeout(Duration::from_millis(2500), running).await;
    assert!(cancelled.is_err(), "the run should still have been going");
    assert!(matches!(
        events.recv().await,
        Some(Lifecycle::Created { .. })
    ));
    let gone_by = Instant::now() + Duration::from_secs(10);
    while !containers_of_host(docker, &spec.host_id)
        .await
        .unwrap()
        .is_empty()
    {
        assert!(
            Instant::now() < gone_by,
            "container still there 10 s after the drop"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let removed = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(event) = events.recv().await {
            if let Lifecycle::Removed { .. } = event {
                return true;
            }
        }
        false
    });
    assert!(
        removed.await.unwrap_or(false),
        "Removed is reported after a drop"
    );
}

/// The reaper removes what a provably dead owner left on its host, and nothing of a live
/// owner, of an owner it cannot tell, or of another host.
#[tokio::test]
async fn reap_removes_only_the_leftovers_of_gone_owners_of_its_host() {
    let docker = docker().await;
    let owners = tempfile::tempdir().unwrap();
    let me = Instance::claim(owners.path()).unwrap();
    let live = Instance::claim(owners.path()).unwrap();
    let dead = Instance::claim(owners.path()).unwrap().tag().clone();
    let mine = spec("reap");
    let owned_by = |owner: &OwnerTag, host: &SandboxSpec| SandboxSpec {
        owner: owner.clone(),
        ..host.clone()
    };
    let left = create_unstarted(&docker, &owned_by(&dead, &mine)).await;
    let of_live = create_unstarted(&docker, &owned_by(live.tag(), &mine)).await;
    let of_unknown = create_unstarted(&docker, &mine).await;
    let other = owned_by(&dead, &spec("reap-other"));
    let of_other_host = create_unstarted(&docker, &other).await;

    let reaped = reap_orphans(&docker, &mine.host_id, &me)
        .await
        .expect("reap");
    assert_eq!(reaped.removed, vec![left]);
    assert_eq!(reaped.unknown, vec![of_unknown.clone()]);
    let mut kept = containers_of_host(&docker, &mine.host_id).await.unwrap();
    kept.sort();
    let mut expected = vec![of_live, of_unknown];
    expected.sort();
    assert_eq!(kept, expected);
    assert_eq!(
        containers_of_host(&docker, &other.host_id).await.unwrap(),
        vec![of_other_host.clone()]
    );
    for id in expected.iter().chain([&of_other_host]) {
        force_remove(&docker, id).await.unwrap();
    }
    assert_no_leftovers(&docker, &mine.host_id).await;
    assert_no_leftovers(&docker, &other.host_id).await;
}

/// A labelled container like a dead predecessor would leave, never started.
async fn create_unstarted(docker: &bollard::Docker, spec: &SandboxSpec) -> String {
    let options = bollard::query_parameters::CreateContainerOptions::default();
    docker
        .create_container(Some(options), container_config(spec))
        .await
        .expect("create a leftover")
        .id
}

#[tokio::test]
async fn the_deadline_kill_lands_within_half_a_second_every_time() {
    let docker = docker().await;
    let mut spec = spec("latency");
    spec.limits.timeout_ms = 300;
    let busy = "while True:\n    pass\n";
    for path in PATHS {
        let pool = match path {
            Path::Warm => Some(filled_pool(&docker, &spec, 1).await),
            Path::Cold | Path::Gvisor => None,
        };
        let mut overshoots = Vec::new();
        for _ in 0..10 {
            let run = match &pool {
                None => run_on(path, &docker, &spec, busy).await,
                Some(pool) => {
                    assert!(pool.wait_ready(1, Duration::from_secs(60)).await);
                    let (_orders, kills) = mpsc::channel(1);
                    run_warm(&docker, pool, &spec, busy, kills).await
                }
            };
            assert_eq!(run.violation_kind(), Some("timeout"));
            overshoots.push(run.outcome().wall_ms.saturating_sub(300));
        }
        overshoots.sort_unstable();
        eprintln!("{path:?}: deadline overshoot ms, sorted: {overshoots:?}");
        assert!(overshoots[9] < 500, "{path:?}: {overshoots:?}");
        if let Some(pool) = pool {
            pool.close().await;
        }
        assert_no_leftovers(&docker, &spec.host_id).await;
    }
}

/// Fills loopback TCP buffers (its own `lo`) until the kernel says no, stopping at twice
/// the memory limit; prints the memory and TCP limits its cgroup has (0 where it has no
/// cgroup files: under gVisor) and what it queued.
const TCP_FLOOD: &str = r#"
import os, socket
def limit(name):
    path = '/sys/fs/cgroup/memory/' + name
    return int(open(path).read()) if os.path.exists(path) else 0
memory = limit('memory.limit_in_bytes') or 134217728  # sandbox_support::limits()
tcp = limit('memory.kmem.tcp.limit_in_bytes')
total, socks, chunk = 0, [], b'x' * 65536
try:
    while total < 2 * memory and len(socks) < 200:
        server = socket.socket()
        server.bind(('127.0.0.1', 0))
        server.listen(1)
        a = socket.create_connection(server.getsockname())
        b, _ = server.accept()
        server.close()
        a.setblocking(False)
        socks += [a, b]
        while total < 2 * memory:
            try:
                total += a.send(chunk)
            except (BlockingIOError, InterruptedError):
                break
except OSError as e:
    print('stopped', e.errno)
print(memory, tcp, total)
"#;

/// Socket buffers count against the sandbox's memory: its cgroup's TCP limit is its memory
/// limit, and loopback traffic cannot queue past it (cgroup v1 charges nothing otherwise).
#[tokio::test]
async fn loopback_socket_buffers_are_capped_at_the_memory_limit() {
    let docker = docker().await;
    for path in PATHS {
        let run = run_on(path, &docker, &spec("tcp-buffers"), TCP_FLOOD).await;
        if path.runtime() == SandboxRuntime::Runsc && run.violation_kind() == Some("memory") {
            // gVisor's socket buffers are the Sentry's memory: the flood reached the
            // sandbox's memory limit, and the kernel stopped it there.
            continue;
        }
        let stdout = String::from_utf8_lossy(&run.outcome().stdout).to_string();
        let last = stdout.lines().last().unwrap_or_default();
        let numbers: Vec<u64> = last
            .split_whitespace()
            .filter_map(|n| n.parse().ok())
            .collect();
        let [memory, tcp, queued] = numbers[..] else {
            panic!(
                "no figures from the program: {stdout:?} {:?}",
                run.outcome()
            );
        };
        // Under gVisor socket buffers live in the Sentry's own memory, which the host
        // charges to the sandbox's cgroup like any other: no TCP limit is needed there.
        if path.runtime() == SandboxRuntime::Runc {
            assert_eq!(memory, sandbox_support::limits().memory_bytes);
            assert_eq!(tcp, memory, "{path:?}: the TCP limit is the memory limit");
        }
        assert!(
            queued <= memory + (8 << 20),
            "{path:?}: {queued} bytes queued past a {memory}-byte limit"
        );
    }
}

/// Threads and processes are held at the pids limit on every path: under runc by the pids
/// cgroup, under gVisor by RLIMIT_NPROC in its Sentry (the host's cgroup only backs it up
/// there). Three tasks are the sandbox's own: the init, the runner's framer, the runner.
#[tokio::test]
async fn threads_and_processes_are_held_at_the_pids_limit() {
    let docker = docker().await;
    let mut spec = spec("pids-held");
    spec.limits.pids = 16;
    // Under gVisor each forked Python holds ~7 MiB of the Sentry's memory: 13 of them come
    // near 128 MiB, so give memory room and let pids be what binds.
    spec.limits.memory_bytes = 512 * MIB;
    let threads = "import threading, time\nstarted = 0\ntry:\n    while started < 1000:\n        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n        started += 1\nexcept RuntimeError:\n    pass\nprint(started)\n";
    let processes = "import os, time\nstarted = 0\ntry:\n    while started < 1000:\n        if os.fork() == 0:\n            time.sleep(30)\n            os._exit(0)\n        started += 1\nexcept OSError:\n    pass\nprint(started)\nos._exit(0)\n";
    for path in PATHS {
        for (what, code) in [("threads", threads), ("processes", processes)] {
            let run = run_on(path, &docker, &spec, code).await;
            let started: u64 = run
                .stdout()
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{what} on {path:?}: {:?}", run.outcome()));
            assert_eq!(started, 16 - 3, "{what} on {path:?}");
        }
    }
}
