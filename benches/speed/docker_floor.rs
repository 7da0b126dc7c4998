//! The floor cordon is measured against, in the same run: a hardened `docker run --rm -i`
//! of the same image with the same flags cordon gives an untrusted sandbox (no
//! capabilities, no-new-privileges, read-only root, capped tmpfs, no network, memory =
//! memory+swap, CPU quota, pids, user 1000:1000, an init, private IPC, no logs, ulimits),
//! fed `print(1)` on stdin (also on gVisor's runsc); and for kills, Docker's own
//! kill-to-stopped time.

use std::process::Stdio;
use std::time::{Duration, Instant};

use bollard::query_parameters::{KillContainerOptions, WaitContainerOptions};
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::process::Command;

use super::stats::Samples;

const IMAGE: &str = "cordon-python:3.11";

/// The untrusted defaults of config/default.toml, as `docker run` flags.
const HARDENING: &[&str] = &[
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
    "--read-only",
    "--tmpfs=/tmp:rw,nosuid,nodev,noexec,size=67108864,mode=1777",
    "--tmpfs=/work:rw,nosuid,nodev,size=67108864,mode=0700,uid=1000,gid=1000",
    "--network=none",
    "--memory=268435456",
    "--memory-swap=268435456",
    "--cpus=0.5",
    "--pids-limit=64",
    "--user=1000:1000",
    "--init",
    "--ipc=private",
    "--log-driver=none",
    "--ulimit=nofile=256:256",
    "--ulimit=fsize=67108864:67108864",
    "--ulimit=core=0:0",
    "--workdir=/work",
    "--hostname=sandbox",
    "--label=cordon.bench=floor",
];

/// What differs under gVisor: the runtime, and the program's pids held by RLIMIT_NPROC
/// (the host's pids cgroup counts gVisor's own tasks).
const ON_RUNSC: &[&str] = &[
    "--runtime=runsc",
    "--ulimit=nproc=64:64",
    "--pids-limit=640",
];

/// One `docker run --rm -i … python3 -I -u -` fed `print(1)` (on gVisor with `runsc`);
/// panics unless it printed 1.
async fn run_print_one(runsc: bool) {
    let mut child = Command::new("docker")
        .args(["run", "--rm", "-i"])
        .args(HARDENING)
        .args(if runsc { ON_RUNSC } else { &[] })
        .args([IMAGE, "python3", "-I", "-u", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the docker CLI");
    let mut stdin = child.stdin.take().expect("piped stdin");
    stdin
        .write_all(b"print(1)\n")
        .await
        .expect("feed docker run");
    drop(stdin);
    let output = child.wait_with_output().await.expect("docker run ends");
    assert_eq!(
        output.stdout,
        b"1\n",
        "docker run failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

pub async fn latency(runs: usize, runsc: bool) -> Samples {
    let mut samples = Samples::default();
    for _ in 0..runs {
        let started = Instant::now();
        run_print_one(runsc).await;
        samples.push(started.elapsed());
    }
    samples
}

/// Runs per second with `clients` concurrent loops of `runs_each` `docker run`s.
pub async fn throughput(clients: usize, runs_each: usize) -> f64 {
    let started = Instant::now();
    let loops: Vec<_> = (0..clients)
        .map(|_| {
            tokio::spawn(async move {
                for _ in 0..runs_each {
                    run_print_one(false).await;
                }
            })
        })
        .collect();
    for each in loops {
        each.await.expect("a docker run loop");
    }
    (clients * runs_each) as f64 / started.elapsed().as_secs_f64()
}

/// From a SIGKILL through the API to Docker reporting the busy container stopped.
pub async fn kill_latency(runs: usize) -> Samples {
    let docker = cordon::docker::connect().await.expect("Docker");
    let mut samples = Samples::default();
    for _ in 0..runs {
        let id = start_busy_container().await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let started = Instant::now();
        let kill = KillContainerOptions {
            signal: "SIGKILL".into(),
        };
        let waiting = docker.wait_container(
            &id,
            Some(WaitContainerOptions {
                condition: "not-running".into(),
            }),
        );
        let (_, _) = tokio::join!(
            docker.kill_container(&id, Some(kill)),
            waiting.collect::<Vec<_>>()
        );
        samples.push(started.elapsed());
        let _ = Command::new("docker")
            .args(["rm", "-f", &id])
            .output()
            .await;
    }
    samples
}

async fn start_busy_container() -> String {
    let output = Command::new("docker")
        .args(["run", "-d"])
        .args(HARDENING)
        .args([IMAGE, "python3", "-c", "while True: pass"])
        .output()
        .await
        .expect("docker run -d");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}
