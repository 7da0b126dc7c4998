//! Hostile programs break each limit and end as a `violation` of the right kind, soon after
//! the limit is reached: the CPU budget, memory, pids (processes and threads), output caps,
//! scratch space and the wall-clock deadline. Each violation is announced on
//! `cordon.v1.events.violation.<client>` and audited; programs that only look hostile (an orphaned
//! daemon) complete normally; no sandbox outlives its run.
//!
//! The tests of this file run one at a time: kill latency is the property under test, and
//! two floods or spinners on a two-core machine would measure each other instead.

mod pipeline_support;

use std::time::{Duration, Instant};

use cordon::client::Client;
use cordon::docker::runtime::SandboxRuntime;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status, ViolationKind};
use cordon::protocol::supervisor::ViolationEvent;
use cordon::protocol::{decode, Subject};
use futures::StreamExt;
use pipeline_support::*;

/// The test config's wall-clock deadline for untrusted code, in ms.
const TIMEOUT_MS: u64 = 8000;
/// The test config's CPU time budget, in ms.
const CPU_TIME_MS: u64 = 2000;
/// The test config's output cap per stream, in bytes.
const OUTPUT_CAP: usize = 65536;
/// How soon after a limit is reached the sandbox must be gone, when the limit is seen by
/// the kernel (memory), the program itself (disk) or the supervisor (output, deadline).
const KILL_WITHIN_MS: u64 = 1000;
/// The same for limits the ResourceMonitor finds by sampling (CPU time, pids). Docker 20.10
/// answers a one-shot stats request only at its next 1 s collection tick, so a sample is up
/// to ~1 s old whatever `monitor.sample_ms` says; then the kill order travels and Docker
/// kills. Still far inside the 8 s deadline.
const MONITOR_KILL_WITHIN_MS: u64 = 2500;

static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A nats-server, a node with all five actors, and a client, for one test.
struct Pipeline {
    node: Node,
    client: Client,
    events: async_nats::Client,
    // Dropped last: the node and client talk to it.
    _nats: Nats,
}

/// Every test runs on both runtimes: runc, and gVisor's runsc (whose levels have no network).
const RUNTIMES: [SandboxRuntime; 2] = [SandboxRuntime::Runc, SandboxRuntime::Runsc];

impl Pipeline {
    async fn start(test: &str, runtime: SandboxRuntime) -> Pipeline {
        Pipeline::start_with_env(test, runtime, &[]).await
    }

    /// `start`, with `env` added to the node's environment (settings overrides).
    async fn start_with_env(test: &str, runtime: SandboxRuntime, env: &[(&str, &str)]) -> Pipeline {
        let nats = Nats::start();
        let name = format!("{test}-{}", runtime.name());
        eprintln!("--- {name}");
        let extra = format!(
            "[sandbox]\nruntime = \"{}\"\n[network]\nallowed_trust = []\n",
            runtime.name()
        );
        let node = Node::up_with_env(&nats, &name, &test_config(&extra), env);
        let client = client(&nats).await;
        let events = raw_connection(&nats).await;
        Pipeline {
            node,
            client,
            events,
            _nats: nats,
        }
    }

    /// Runs code that must break a limit: checks the result is a violation of `kind`, that
    /// a `ViolationEvent` for it was published and that the audit log has a `violation`
    /// entry. Returns the result and the Unix ms at which the container was seen exiting.
    async fn violate(&self, request: &ExecRequest, kind: ViolationKind) -> (ExecResult, u64) {
        let mut events = self
            .events
            .subscribe(
                Subject::EventsViolation {
                    client: self.client.name().to_string(),
                }
                .to_subject(),
            )
            .await
            .expect("subscribe to violation events");
        self.events.flush().await.expect("flush");
        let result = run_request(&self.client, request).await;
        assert_eq!(result.status, Status::Violation, "{}", brief(&result));
        let violation = result.violation.as_ref().expect("violation");
        assert_eq!(violation.kind, kind, "{}", brief(&result));

        let event = tokio::time::timeout(Duration::from_secs(10), async {
            while let Some(message) = events.next().await {
                let envelope = decode::<ViolationEvent>(&message.payload).expect("event decodes");
                if envelope.request_id == result.request_id {
                    return envelope.body;
                }
            }
            panic!("violation events subscription ended");
        })
        .await
        .expect("a ViolationEvent for the request");
        assert_eq!(event.violation.kind, kind);
        assert_eq!(event.host, self.node.host);

        let audit = self.node.audit_dir();
        let kinds = audit_kinds(&audit, &result.request_id);
        assert!(kinds.iter().any(|k| k == "violation"), "{kinds:?}");
        let exited_at = audit_at_ms(
            &audit,
            &result.request_id,
            "container_exited",
            Duration::from_secs(5),
        );
        (result, exited_at)
    }

    fn no_sandbox_left(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !managed_containers_of(&self.node.host).is_empty() {
            assert!(
                Instant::now() < deadline,
                "cordon.managed containers left for {}: {:?}",
                self.node.host,
                managed_containers_of(&self.node.host)
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        assert_no_containers_within(&self.node.host, Duration::from_secs(1));
    }
}

fn untrusted(code: &str, timeout_ms: Option<u64>) -> ExecRequest {
    ExecRequest {
        timeout_ms,
        ..request(code, "untrusted")
    }
}

/// The result without its (possibly huge) output, for failure messages.
fn brief(result: &ExecResult) -> String {
    format!(
        "status {:?} violation {:?} exit {:?} usage {:?} error {:?} stdout {:?} stderr {:?}",
        result.status,
        result.violation,
        result.exit_code,
        result.usage,
        result.error,
        result.stdout.chars().take(300).collect::<String>(),
        result.stderr.chars().take(600).collect::<String>(),
    )
}

fn wall_ms(result: &ExecResult) -> u64 {
    result.usage.as_ref().expect("usage").wall_ms
}

/// The Unix ms times a program printed on lines starting with `marker`.
fn marked_times(output: &str, marker: &str) -> Vec<u64> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix(marker))
        .filter_map(|rest| rest.trim().split(' ').next()?.parse::<f64>().ok())
        .map(|secs| (secs * 1000.0) as u64)
        .collect()
}

/// Asserts the sandbox was gone within `within_ms` of the moment `limit_at_ms`.
fn assert_ended_soon_after(what: &str, limit_at_ms: u64, exited_at_ms: u64, within_ms: u64) {
    let after = exited_at_ms.saturating_sub(limit_at_ms);
    eprintln!("{what}: ended {after} ms after its limit was reached");
    assert!(
        after <= within_ms,
        "{what}: the sandbox ended {after} ms after its limit was reached (allowed {within_ms} ms)"
    );
}

/// A busy loop is killed for CPU time once it has spent its budget, long before its deadline.
#[tokio::test]
async fn a_cpu_spin_is_killed_for_cpu_time_within_a_second_of_its_budget() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("cpu-spin", runtime).await;
        let (result, _) = p
            .violate(
                &untrusted("while True:\n    pass\n", None),
                ViolationKind::Cpu,
            )
            .await;
        let usage = result.usage.clone().expect("usage");
        eprintln!("cpu spin: {usage:?}");
        assert!(usage.cpu_ms >= CPU_TIME_MS, "{}", brief(&result));
        // One core at most: CPU time past the budget is bounded by the monitor's reaction time.
        assert!(
            usage.cpu_ms <= CPU_TIME_MS + MONITOR_KILL_WITHIN_MS,
            "{}",
            brief(&result)
        );
        assert!(usage.wall_ms < TIMEOUT_MS - 2000, "{}", brief(&result));
        p.no_sandbox_left();
    }
}

/// A program that keeps allocating is killed for memory right when the cgroup limit is hit.
#[tokio::test]
async fn a_memory_bomb_is_killed_for_memory_as_it_reaches_the_limit() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("memory-bomb", runtime).await;
        // Bounded only by the environment: the assessor blocks an endless loop growing a
        // list, so the runtime limit needs a bomb it cannot see.
        let code = "import os, time\nchunks = []\nfor _ in range(int(os.environ.get('CHUNKS', '100000'))):\n    chunks.append(b'\\x01' * (4 << 20))\n    print('ALLOCATED', time.time(), len(chunks))\n";
        let (result, exited_at) = p
            .violate(&untrusted(code, None), ViolationKind::Memory)
            .await;
        let allocated = marked_times(&result.stdout, "ALLOCATED");
        let last = *allocated.last().expect("allocation progress printed");
        // 128 MiB in 4 MiB steps: the last step printed is within a step of the limit.
        assert!(allocated.len() >= 16, "{}", brief(&result));
        assert_ended_soon_after("memory bomb", last, exited_at, KILL_WITHIN_MS);
        assert!(wall_ms(&result) < TIMEOUT_MS / 2, "{}", brief(&result));
        p.no_sandbox_left();
    }
}

/// Runs a pid bomb that prints `STARTED <time>` before it begins and checks it is killed
/// for pids soon after. Bombs fill 32 pids within milliseconds of starting; whether a
/// process gets to see its fork fail before the monitor's kill lands is a race, so the kill
/// is measured from the start.
async fn assert_pid_bomb_killed_soon_after_start(
    name: &str,
    code: &str,
    runtimes: &[SandboxRuntime],
) {
    for &runtime in runtimes {
        // Under gVisor a forked Python holds ~7 MiB of the Sentry's memory, so at 128 MiB
        // memory binds before 32 processes exist: give it room, so pids is what binds.
        let room: &[(&str, &str)] = match runtime {
            SandboxRuntime::Runc => &[],
            SandboxRuntime::Runsc => &[("CORDON__LIMITS__UNTRUSTED__MEMORY_BYTES", "1073741824")],
        };
        let p = Pipeline::start_with_env(name, runtime, room).await;
        let (result, exited_at) = p.violate(&untrusted(code, None), ViolationKind::Pids).await;
        let started = *marked_times(&result.stdout, "STARTED")
            .first()
            .expect("start printed");
        assert_ended_soon_after(name, started, exited_at, MONITOR_KILL_WITHIN_MS);
        assert!(wall_ms(&result) < TIMEOUT_MS / 2, "{}", brief(&result));
        p.no_sandbox_left();
    }
}

/// A fork bomb is killed for pids as soon as the pids limit is exhausted.
#[tokio::test]
async fn a_fork_bomb_is_killed_for_pids_as_it_exhausts_the_limit() {
    let _serial = ONE_AT_A_TIME.lock().await;
    // Each child goes on looping, so the processes double per pass. The Assessor blocks a
    // loop like this when it can count its passes (`while True`, `range(100000)`: CRD111);
    // here the count comes from the environment at run time (unset, so 100000), which no
    // static analysis can know, and the pids limit must stop it all the same.
    let code = "import os, time\nprint('STARTED', time.time())\nfor _ in range(int(os.environ.get('FORKS', '100000'))):\n    try:\n        os.fork()\n    except OSError:\n        pass\n";
    assert_pid_bomb_killed_soon_after_start("fork-bomb", code, &RUNTIMES).await;
}

/// Threads that only sleep still count: a thread bomb is killed for pids. On runc only:
/// gVisor reports a sandbox's processes but not their threads, so there the Sentry holds
/// threads to the limit unseen (`sandbox_limits` shows it holds) and a thread bomb ends at
/// its deadline or CPU budget instead.
#[tokio::test]
async fn a_bomb_of_sleeping_threads_is_killed_for_pids() {
    let _serial = ONE_AT_A_TIME.lock().await;
    // Bounded only by the environment (unset, so 100000), as the fork bomb above: the
    // assessor blocks an endless loop of thread starts whose only wait is on an error.
    let code = "import os, threading, time\nprint('STARTED', time.time())\nfor _ in range(int(os.environ.get('THREADS', '100000'))):\n    try:\n        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\n    except RuntimeError:\n        time.sleep(3600)\n";
    assert_pid_bomb_killed_soon_after_start("thread-bomb", code, &[SandboxRuntime::Runc]).await;
}

/// One output flood: the program, the stream it floods, and the output it must keep.
struct Flood {
    name: &'static str,
    code: &'static str,
    stderr: bool,
    expected: fn() -> String,
}

fn repeated_to_cap(unit: &str) -> String {
    let mut text = unit.repeat(OUTPUT_CAP / unit.len() + 1);
    text.truncate(OUTPUT_CAP);
    text
}

/// Floods on either stream, with and without newlines and with invalid UTF-8, are cut at
/// exactly the cap (in bytes, before lossy decoding) and killed for output.
#[tokio::test]
async fn output_floods_keep_exactly_the_cap_and_are_killed_for_output() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("output-flood", runtime).await;
        let floods = [
            Flood {
                name: "stdout lines",
                code: "import sys, time\nsys.stderr.write(f'FLOOD {time.time()}\\n')\nwhile True:\n    print('x' * 99)\n",
                stderr: false,
                expected: || repeated_to_cap(&format!("{}\n", "x".repeat(99))),
            },
            Flood {
                name: "stdout without newlines",
                code: "import sys, time\nsys.stderr.write(f'FLOOD {time.time()}\\n')\nwhile True:\n    sys.stdout.write('y' * 4096)\n",
                stderr: false,
                expected: || repeated_to_cap("y"),
            },
            Flood {
                name: "stderr lines",
                code: "import sys, time\nprint('FLOOD', time.time())\nwhile True:\n    print('e' * 99, file=sys.stderr)\n",
                stderr: true,
                expected: || repeated_to_cap(&format!("{}\n", "e".repeat(99))),
            },
            Flood {
                name: "stderr without newlines",
                code: "import sys, time\nprint('FLOOD', time.time())\nwhile True:\n    sys.stderr.write('z' * 4096)\n",
                stderr: true,
                expected: || repeated_to_cap("z"),
            },
            Flood {
                name: "invalid UTF-8 on stdout",
                code: "import sys, time\nsys.stderr.write(f'FLOOD {time.time()}\\n')\nwhile True:\n    sys.stdout.buffer.write(b'a\\xff' * 2048)\n",
                stderr: false,
                // Each 0xff byte is one U+FFFD after decoding: 32768 pairs are 65536 bytes kept.
                expected: || "a\u{fffd}".repeat(OUTPUT_CAP / 2),
            },
        ];
        for flood in &floods {
            let (result, exited_at) = p
                .violate(&untrusted(flood.code, None), ViolationKind::Output)
                .await;
            let (kept, truncated, other, other_truncated) = if flood.stderr {
                let r = &result;
                (&r.stderr, r.stderr_truncated, &r.stdout, r.stdout_truncated)
            } else {
                let r = &result;
                (&r.stdout, r.stdout_truncated, &r.stderr, r.stderr_truncated)
            };
            assert!(truncated, "{}: {}", flood.name, brief(&result));
            assert!(!other_truncated, "{}: {}", flood.name, brief(&result));
            let expected = (flood.expected)();
            assert_eq!(
                kept.chars().count(),
                expected.chars().count(),
                "{}: {}",
                flood.name,
                brief(&result)
            );
            assert!(
                *kept == expected,
                "{}: kept output differs from the flood cut at {OUTPUT_CAP} bytes",
                flood.name
            );
            let started = *marked_times(other, "FLOOD").first().unwrap_or_else(|| {
                panic!("{}: start time printed: {}", flood.name, brief(&result))
            });
            assert_ended_soon_after(flood.name, started, exited_at, KILL_WITHIN_MS);
        }
        p.no_sandbox_left();
    }
}

/// Filling the scratch tmpfs ends as a `disk` violation as soon as the program hits ENOSPC.
#[tokio::test]
async fn filling_the_tmpfs_is_a_disk_violation() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("disk-fill", runtime).await;
        // Bounded only by the environment, as the memory bomb above.
        let code = "import os, time\nwith open('/work/fill', 'wb', buffering=0) as f:\n    for _ in range(int(os.environ.get('CHUNKS', '100000'))):\n        f.write(b'\\x01' * (1 << 20))\n        print('WROTE', time.time())\n";
        let (result, exited_at) = p.violate(&untrusted(code, None), ViolationKind::Disk).await;
        let wrote = marked_times(&result.stdout, "WROTE");
        // 16 MiB of tmpfs: the last MiB written is the last before it was full.
        assert!(wrote.len() >= 14, "{}", brief(&result));
        assert_ended_soon_after(
            "disk fill",
            *wrote.last().unwrap(),
            exited_at,
            KILL_WITHIN_MS,
        );
        assert!(
            result.stderr.contains("No space left on device"),
            "{}",
            brief(&result)
        );
        p.no_sandbox_left();
    }
}

/// Ignoring SIGTERM buys nothing: busy or asleep, the program is killed at its deadline.
#[tokio::test]
async fn ignoring_sigterm_does_not_outlive_the_deadline() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("sigterm-ignored", runtime).await;
        let timeout_ms = 1000;
        for (name, code) in [
            (
                "busy",
                "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n",
            ),
            (
                "sleeping",
                "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)\n",
            ),
        ] {
            let started = Instant::now();
            let (result, _) = p
                .violate(&untrusted(code, Some(timeout_ms)), ViolationKind::Timeout)
                .await;
            let wall = wall_ms(&result);
            eprintln!(
                "{name}: wall {wall} ms, result after {:?}",
                started.elapsed()
            );
            assert!(wall >= timeout_ms, "{name}: {}", brief(&result));
            assert!(
                wall <= timeout_ms + KILL_WITHIN_MS,
                "{name}: {}",
                brief(&result)
            );
            assert!(started.elapsed() >= Duration::from_millis(timeout_ms));
        }
        p.no_sandbox_left();
    }
}

/// A program that stops itself with SIGSTOP cannot be waited on forever: it times out.
#[tokio::test]
async fn a_program_that_sigstops_itself_times_out() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("sigstop", runtime).await;
        let timeout_ms = 1000;
        let code = "import os, signal\nprint('stopping')\nos.kill(os.getpid(), signal.SIGSTOP)\nprint('resumed')\n";
        let started = Instant::now();
        let (result, _) = p
            .violate(&untrusted(code, Some(timeout_ms)), ViolationKind::Timeout)
            .await;
        let wall = wall_ms(&result);
        eprintln!(
            "sigstop: wall {wall} ms, result after {:?}",
            started.elapsed()
        );
        assert_eq!(result.stdout, "stopping\n");
        assert!(wall >= timeout_ms, "{}", brief(&result));
        assert!(wall <= timeout_ms + KILL_WITHIN_MS, "{}", brief(&result));
        p.no_sandbox_left();
    }
}

/// A daemon left behind (double fork, setsid) neither holds the result until it ends nor
/// survives its sandbox: the run completes when its main program exits.
#[tokio::test]
async fn an_orphaned_daemon_does_not_hold_the_result_or_outlive_the_sandbox() {
    let _serial = ONE_AT_A_TIME.lock().await;
    for runtime in RUNTIMES {
        let p = Pipeline::start("orphan-daemon", runtime).await;
        let code = "import os, sys, time\npid = os.fork()\nif pid == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)\n    os._exit(0)\nos.waitpid(pid, 0)\nprint('parent done')\nsys.exit(0)\n";
        let started = Instant::now();
        let result = run_request(&p.client, &untrusted(code, None)).await;
        let elapsed = started.elapsed();
        eprintln!(
            "orphan daemon: wall {} ms, result after {elapsed:?}",
            wall_ms(&result)
        );
        assert_eq!(result.status, Status::Completed, "{}", brief(&result));
        assert_eq!(result.exit_code, Some(0), "{}", brief(&result));
        assert_eq!(result.stdout, "parent done\n");
        assert!(result.violation.is_none());
        assert!(wall_ms(&result) < 3000, "{}", brief(&result));
        assert!(elapsed < Duration::from_secs(6), "result took {elapsed:?}");
        p.no_sandbox_left();
    }
}
