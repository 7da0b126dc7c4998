//! Many hosts under failure: a NATS container, three worker containers (assessor, scheduler,
//! supervisor, monitor each, reaching the Docker engine through its socket) and one audit
//! container, on a network this test creates. A few hundred jobs of mixed lengths run while
//! one worker is SIGKILLed and restarted, NATS is restarted, another worker is cut off the
//! network and reconnected, and the audit host is restarted. Every job must end exactly
//! once, nothing may be lost, no sandbox of the killed worker may outlive its restart, and
//! the audit log must verify with one final entry per job. The bus is the permissioned one
//! of `deploy/nats/cordon.conf`: every actor connects as its own role's user and the jobs
//! are submitted by client `alice`.

mod pipeline_support;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cordon::client::Client;
use pipeline_support::{
    assert_each_completed_with_its_output, cordon_bin, docker_cli, free_port, lost_and_duplicated,
    role_credentials, running_containers_of, submit_numbered_jobs, wait_until_finished,
    DEPLOY_NATS_USERS,
};

const IMAGE: &str = "cordon-node:test";
const JOBS: usize = 200;

/// Builds the cordon node image from the binary under test with the shipped script.
fn build_node_image() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/build-node-image");
    let output = Command::new(script)
        .args([cordon_bin(), IMAGE])
        .output()
        .expect("run deploy/build-node-image");
    assert!(
        output.status.success(),
        "building {IMAGE}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The containers and network of one cluster; removed (with their sandboxes) on drop.
struct Cluster {
    prefix: String,
    network: String,
    nats_port: u16,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        build_node_image();
        let prefix = format!(
            "chaos-{}",
            &ulid::Ulid::new().to_string()[18..].to_lowercase()
        );
        let network = docker_cli(&["network", "create", &format!("{prefix}-net")]);
        let cluster = Cluster {
            network,
            nats_port: free_port(),
            dir,
            prefix,
        };
        let roles = role_credentials(Path::new("/run/cordon-secrets"));
        std::fs::write(cluster.config_path(), format!("{CONFIG}{roles}")).unwrap();
        cluster.write_secrets();
        cluster.start_nats();
        cluster.start_node("audit", &["audit"], false);
        for worker in ["w1", "w2", "w3"] {
            cluster.start_node(
                worker,
                &["assessor", "scheduler", "supervisor", "monitor"],
                true,
            );
        }
        cluster
    }

    fn name(&self, part: &str) -> String {
        format!("{}-{part}", self.prefix)
    }

    fn config_path(&self) -> PathBuf {
        self.dir.path().join("cordon.toml")
    }

    fn data_dir(&self, part: &str) -> PathBuf {
        self.dir.path().join(part)
    }

    /// A password file per NATS user (mounted into the nodes at `/run/cordon-secrets`).
    fn secrets_dir(&self) -> PathBuf {
        self.dir.path().join("secrets")
    }

    fn write_secrets(&self) {
        std::fs::create_dir_all(self.secrets_dir()).unwrap();
        for user in DEPLOY_NATS_USERS {
            let file = self.secrets_dir().join(format!("{user}.password"));
            std::fs::write(file, password(user)).unwrap();
        }
    }

    /// Settings of client `alice`, whose password file is on this machine.
    fn alice(&self) -> cordon::config::Settings {
        let mut settings = cordon::config::Settings::load(None).unwrap();
        settings.nats.client = "alice".into();
        settings.nats.auth = cordon::config::Credentials {
            user: "alice".into(),
            password_file: self
                .secrets_dir()
                .join("alice.password")
                .display()
                .to_string(),
            ..Default::default()
        };
        settings
    }

    fn start_nats(&self) {
        let store = format!("{}:/data", self.data_dir("nats").display());
        let port = format!("127.0.0.1:{}:4222", self.nats_port);
        let conf = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nats/cordon.conf");
        let conf = format!("{conf}:/etc/nats/cordon.conf:ro");
        let name = self.name("nats");
        let mut args: Vec<String> = [
            "run",
            "-d",
            "--name",
            &name,
            "--network",
            &self.network,
            "--network-alias",
            "nats",
            "-p",
            &port,
            "-v",
            &store,
            "-v",
            &conf,
        ]
        .map(String::from)
        .to_vec();
        for user in DEPLOY_NATS_USERS {
            let variable = format!("CORDON_NATS_{}_PASSWORD", user.to_uppercase());
            args.extend(["-e".into(), format!("{variable}={}", password(user))]);
        }
        args.extend(
            [
                "--entrypoint",
                "/usr/local/bin/nats-server",
                IMAGE,
                "-c",
                "/etc/nats/cordon.conf",
                "-js",
                "-sd",
                "/data",
            ]
            .map(String::from),
        );
        docker_cli(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", self.nats_port)).is_err() {
            assert!(Instant::now() < deadline, "nats container did not come up");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn start_node(&self, part: &str, roles: &[&str], docker_socket: bool) {
        let name = self.name(part);
        let data = format!("{}:/data", self.data_dir(part).display());
        let config = format!("{}:/etc/cordon.toml:ro", self.config_path().display());
        let secrets = format!("{}:/run/cordon-secrets:ro", self.secrets_dir().display());
        let host = format!("CORDON__NODE__HOST_ID={name}");
        let mut args: Vec<String> = [
            "run",
            "-d",
            "--name",
            &name,
            "--network",
            &self.network,
            "-v",
            &data,
            "-v",
            &config,
            "-v",
            &secrets,
            "-e",
            &host,
            "-e",
            "RUST_LOG=info",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        if docker_socket {
            // The engine's socket, and (read-only) its storage, where the supervisor reads
            // a sandbox's filesystem changes without Docker walking the whole image.
            args.extend([
                "-v".into(),
                "/var/run/docker.sock:/var/run/docker.sock".into(),
                "-v".into(),
                "/var/lib/docker:/var/lib/docker:ro".into(),
                // The owner locks, shared with every supervisor of this engine (as
                // deploy/compose.yaml mounts them).
                "-v".into(),
                "/run/cordon:/run/cordon".into(),
                // The supervisor caps each sandbox's TCP buffers in its memory cgroup.
                "-v".into(),
                "/sys/fs/cgroup:/sys/fs/cgroup:rw".into(),
            ]);
        }
        args.extend(
            [
                IMAGE,
                "--config",
                "/etc/cordon.toml",
                "--data-dir",
                "/data",
                "serve",
                "--nats",
                "nats://nats:4222",
            ]
            .map(String::from),
        );
        for role in roles {
            args.extend(["--role".to_string(), role.to_string()]);
        }
        docker_cli(&args.iter().map(String::as_str).collect::<Vec<_>>());
    }

    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.nats_port)
    }

    fn logs(&self, part: &str) -> String {
        let output = Command::new("docker")
            .args(["logs", "--tail", "40", &self.name(part)])
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for part in ["nats", "audit", "w1", "w2", "w3"] {
                eprintln!("---- {part} ----\n{}", self.logs(part));
            }
        }
        for part in ["w1", "w2", "w3", "audit", "nats"] {
            let _ = Command::new("docker")
                .args(["rm", "-f", &self.name(part)])
                .output();
        }
        for worker in ["w1", "w2", "w3"] {
            let filter = format!("label=cordon.host={}", self.name(worker));
            let left = Command::new("docker")
                .args(["ps", "-aq", "--filter", &filter])
                .output()
                .unwrap();
            for id in String::from_utf8_lossy(&left.stdout).split_whitespace() {
                let _ = Command::new("docker").args(["rm", "-f", id]).output();
            }
        }
        let _ = Command::new("docker")
            .args(["network", "rm", &self.network])
            .output();
    }
}

const CONFIG: &str = r#"
[nats]
ack_wait_secs = 3
[scheduler]
reserve_memory_bytes = 0
max_jobs = 3
[limits.untrusted]
cpus = 0.5
memory_bytes = 134217728
timeout_ms = 30000
"#;

fn password(user: &str) -> String {
    format!("chaos-password-of-{user}")
}

/// Running sandboxes of `host` that hold a job (warm pool containers waiting for one excluded).
fn job_sandboxes_of(host: &str) -> Vec<String> {
    let filter = format!("label=cordon.host={host}");
    let listing = docker_cli(&[
        "ps",
        "--filter",
        &filter,
        "--format",
        "{{.ID}} {{.Label \"cordon.request_id\"}}",
    ]);
    listing
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter(|(_, request)| *request != "warm")
        .map(|(id, _)| id.to_string())
        .collect()
}

/// How long the chaos may take to get through a share of the jobs.
const PATIENCE: Duration = Duration::from_secs(600);

#[tokio::test]
async fn jobs_end_exactly_once_across_worker_kill_nats_restart_partition_and_audit_restart() {
    let cluster = Cluster::start();
    let settings = cluster.alice();
    let url = cluster.url();
    // The client fails at once while nothing answers (Docker's port proxy accepts before
    // the server in the container does), so it is retried for up to a minute.
    let deadline = Instant::now() + Duration::from_secs(60);
    let client = loop {
        match Client::connect(&url, &settings.nats).await {
            Ok(client) => break client,
            Err(error) if Instant::now() < deadline => {
                eprintln!("chaos: NATS not answering yet: {error}");
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Err(error) => panic!("the NATS container did not answer within a minute: {error}"),
        }
    };
    let jobs = submit_numbered_jobs(&client, JOBS, &[0.0, 0.2, 0.5, 1.2]).await;

    // 1. SIGKILL worker 1 with sandboxes running; its restart must remove them.
    let w1 = cluster.name("w1");
    let deadline = Instant::now() + Duration::from_secs(120);
    while job_sandboxes_of(&w1).is_empty() {
        assert!(Instant::now() < deadline, "w1 never ran a job");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let orphans: HashSet<String> = running_containers_of(&w1).into_iter().collect();
    docker_cli(&["kill", "-s", "KILL", &w1]);
    tokio::time::sleep(Duration::from_secs(1)).await;
    docker_cli(&["start", &w1]);
    eprintln!(
        "chaos: killed and restarted w1 with {} sandboxes running",
        orphans.len()
    );

    // 2. Restart NATS once a fifth of the jobs are done.
    wait_until_finished(&client, &jobs, JOBS / 5, PATIENCE).await;
    docker_cli(&["restart", "-t", "1", &cluster.name("nats")]);
    eprintln!("chaos: restarted nats");

    // 3. Cut worker 2 off the network for a while, then reconnect it.
    wait_until_finished(&client, &jobs, JOBS * 2 / 5, PATIENCE).await;
    docker_cli(&[
        "network",
        "disconnect",
        &cluster.network,
        &cluster.name("w2"),
    ]);
    tokio::time::sleep(Duration::from_secs(5)).await;
    docker_cli(&[
        "network",
        "connect",
        "--alias",
        "w2",
        &cluster.network,
        &cluster.name("w2"),
    ]);
    eprintln!("chaos: partitioned and reconnected w2");

    // 4. Restart the audit host.
    wait_until_finished(&client, &jobs, JOBS * 3 / 5, PATIENCE).await;
    docker_cli(&["restart", "-t", "2", &cluster.name("audit")]);
    eprintln!("chaos: restarted the audit host");

    wait_until_finished(&client, &jobs, JOBS, PATIENCE).await;
    let left: HashSet<String> = running_containers_of(&w1).into_iter().collect();
    assert!(
        left.is_disjoint(&orphans),
        "sandboxes of the killed w1 outlived its restart"
    );

    // Every job ended once, completed, with its own output.
    let completed = assert_each_completed_with_its_output(&client, &jobs).await;
    docker_cli(&["stop", "-t", "5", &cluster.name("audit")]);
    let audit_dir = cluster.data_dir("audit").join("audit");
    cordon::audit::verify(&audit_dir).expect("the audit log verifies after the chaos");
    let (lost, duplicated) = lost_and_duplicated(&audit_dir, &jobs);
    println!(
        "chaos counts: submitted={} completed={completed} duplicated={duplicated} lost={lost}",
        jobs.len()
    );
    assert_eq!(
        (lost, duplicated),
        (0, 0),
        "every job is audited as finished exactly once"
    );
}
