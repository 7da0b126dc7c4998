//! The bus past one server: three nats-servers clustered on loopback (routes between them,
//! each with its own JetStream store), cordon's streams at three replicas
//! (`nats.replicas = 3`), the roles as separate processes on different servers (audit,
//! assessor and scheduler on the first; supervisor and monitor on the second; the client on
//! the third), each given all three URLs. While a few hundred short jobs run, one
//! nats-server (or the audit role's process) is SIGKILLed and restarted; every job must end
//! exactly once with its own output, the audit log must verify and no sandbox may be left.

mod pipeline_support;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cordon::bus::streams::StreamKind;
use cordon::bus::Bus;
use cordon::client::Client;
use pipeline_support::*;

/// Jobs per run: enough to keep every stage busy across the failure, few enough to end
/// well inside three minutes on two cores.
const JOBS: usize = 150;
/// Longest wait for a share of the jobs.
const PATIENCE: Duration = Duration::from_secs(150);

/// One cluster at a time: two would share two cores and slow each other past the budget.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One member of the cluster: its ports, store and log survive a restart.
struct Server {
    name: String,
    client_port: u16,
    config: PathBuf,
    log: PathBuf,
    child: Option<Child>,
}

impl Server {
    fn url(&self) -> String {
        format!("nats://127.0.0.1:{}", self.client_port)
    }

    fn spawn(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("server log");
        let child = Command::new("nats-server")
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("these tests need nats-server on PATH (apt-get install nats-server)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.client_port)).is_err() {
            assert!(Instant::now() < deadline, "{} did not start", self.name);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL, as a crash or a power cut would.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Three nats-servers with JetStream, clustered over routes on loopback.
struct NatsCluster {
    servers: Vec<Server>,
    _dir: tempfile::TempDir,
}

impl NatsCluster {
    fn start() -> NatsCluster {
        let dir = tempfile::tempdir().expect("temp dir");
        let route_ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
        let routes: Vec<String> = route_ports
            .iter()
            .map(|port| format!("nats-route://127.0.0.1:{port}"))
            .collect();
        let mut servers = Vec::new();
        for (i, route_port) in route_ports.iter().enumerate() {
            let name = format!("n{}", i + 1);
            let client_port = free_port();
            let store = dir.path().join(format!("{name}-js"));
            let config = dir.path().join(format!("{name}.conf"));
            let text = format!(
                "server_name: {name}\nlisten: \"127.0.0.1:{client_port}\"\n\
                 jetstream {{\n  store_dir: {store:?}\n}}\n\
                 cluster {{\n  name: cordon-test\n  listen: \"127.0.0.1:{route_port}\"\n  \
                 routes: [{}]\n}}\n",
                routes.join(", ")
            );
            std::fs::write(&config, text).expect("server config");
            servers.push(Server {
                log: dir.path().join(format!("{name}.log")),
                name,
                client_port,
                config,
                child: None,
            });
        }
        for server in &mut servers {
            server.spawn();
        }
        NatsCluster { servers, _dir: dir }
    }

    /// All three URLs, server `first` first (the one a process connects to while it lives).
    fn urls_from(&self, first: usize) -> String {
        let mut urls: Vec<String> = self.servers.iter().map(Server::url).collect();
        urls.rotate_left(first);
        urls.join(",")
    }

    /// Waits until the cluster has elected its JetStream meta leader: until then the
    /// account info request gets no answer or an error ("JetStream not ready").
    async fn wait_for_meta_leader(&self) {
        let client = async_nats::connect(self.servers[0].url())
            .await
            .expect("plain connection");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let asked = client.request("$JS.API.INFO", "".into());
            let answer = tokio::time::timeout(Duration::from_secs(2), asked).await;
            let info = match answer {
                Ok(Ok(message)) => serde_json::from_slice::<serde_json::Value>(&message.payload)
                    .map(|v| v.get("error").cloned()),
                _ => Ok(Some(serde_json::Value::Null)),
            };
            if matches!(info, Ok(None)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no JetStream meta leader within 30 s: {info:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

impl Drop for NatsCluster {
    fn drop(&mut self) {
        for server in &mut self.servers {
            server.kill();
            if std::thread::panicking() {
                let log = std::fs::read_to_string(&server.log).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(30).collect();
                eprintln!("---- nats-server {} (last lines first) ----", server.name);
                eprintln!("{}", tail.join("\n"));
            }
        }
    }
}

/// Streams at three replicas; short redelivery; no `docker diff` (seconds per run here).
fn config() -> String {
    test_config(
        "[nats]\nreplicas = 3\nack_wait_secs = 5\n\
         [sandbox]\nrecord_fs_changes = false\n",
    )
}

/// A running cluster with cordon on it: the processes, the client, the jobs' settings.
struct Pipeline {
    cluster: NatsCluster,
    base: Node,
    front: Node,
    workers: Node,
    client: Client,
}

/// Starts the cluster, makes the streams at R3 (checking every stream has three copies) and
/// starts the roles: audit, assessor and scheduler on server 1, supervisor and monitor on
/// server 2, the client on server 3.
async fn start_pipeline(test: &str) -> Pipeline {
    let cluster = NatsCluster::start();
    cluster.wait_for_meta_leader().await;
    let base = Node::prepare(test, &config());
    let settings = base.settings();
    let setup = Bus::connect(&cluster.urls_from(0), "test-setup", &settings.nats)
        .await
        .expect("setup connects");
    setup.ensure_streams().await.expect("streams at R3");
    for kind in [StreamKind::Submit, StreamKind::Audit, StreamKind::Results] {
        assert_eq!(
            copies(&setup, kind).await,
            3,
            "{kind:?} is on all three servers"
        );
    }
    let front = Node::serve_like_at(
        &base,
        &cluster.urls_from(0),
        &["audit", "assessor", "scheduler"],
    );
    let workers = Node::serve_like_at(&base, &cluster.urls_from(1), &["supervisor", "monitor"]);
    let client = Client::connect(&cluster.urls_from(2), &settings.nats)
        .await
        .expect("client connects");
    Pipeline {
        cluster,
        base,
        front,
        workers,
        client,
    }
}

impl Pipeline {
    /// Waits for every job, checks each completed once with its output, stops the processes
    /// and checks the audit log (with `cordon audit verify`) and that no sandbox is left.
    async fn finish(mut self, jobs: &HashMap<String, usize>) {
        wait_until_finished(&self.client, jobs, jobs.len(), PATIENCE).await;
        let completed = assert_each_completed_with_its_output(&self.client, jobs).await;
        assert_no_containers_within(&self.base.host, Duration::from_secs(20));
        assert!(self.workers.stop().success(), "the workers stop cleanly");
        assert!(self.front.stop().success(), "the front stops cleanly");
        let (lost, duplicated) = lost_and_duplicated(&self.base.audit_dir(), jobs);
        println!(
            "cluster counts: submitted={} completed={completed} duplicated={duplicated} lost={lost}",
            jobs.len()
        );
        assert_eq!(
            (lost, duplicated),
            (0, 0),
            "every job is audited as finished exactly once"
        );
        let verify = Command::new(cordon_bin())
            .arg("--config")
            .arg(&self.base.config)
            .arg("--data-dir")
            .arg(&self.base.data_dir)
            .args(["audit", "verify"])
            .output()
            .expect("run cordon audit verify");
        assert!(
            verify.status.success(),
            "cordon audit verify: {}{}",
            String::from_utf8_lossy(&verify.stdout),
            String::from_utf8_lossy(&verify.stderr)
        );
        assert!(containers_of(&self.base.host).is_empty());
    }
}

/// A nats-server SIGKILLed mid-run (the one the supervisor and monitor are connected to)
/// loses no job and runs none twice: jobs go on ending on the two left, and it rejoins.
#[tokio::test]
async fn a_nats_server_killed_mid_run_loses_no_job_and_runs_none_twice() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let mut pipeline = start_pipeline("cluster-kill-server").await;
    let jobs = submit_numbered_jobs(&pipeline.client, JOBS, &[0.0]).await;
    wait_until_finished(&pipeline.client, &jobs, JOBS / 4, PATIENCE).await;
    pipeline.cluster.servers[1].kill();
    eprintln!("cluster: killed n2 (the workers' server)");
    // The two servers left carry on: the workers move to one of them and jobs keep ending.
    wait_until_finished(&pipeline.client, &jobs, JOBS / 2, PATIENCE).await;
    pipeline.cluster.servers[1].spawn();
    eprintln!("cluster: restarted n2 after half the jobs ended without it");
    wait_until_finished(&pipeline.client, &jobs, JOBS * 3 / 4, PATIENCE).await;
    assert!(pipeline.workers.is_running() && pipeline.front.is_running());
    pipeline.finish(&jobs).await;
}

/// The audit role's process SIGKILLed mid-run and restarted on a clustered bus loses no
/// job, runs none twice, and leaves an audit log that verifies.
#[tokio::test]
async fn the_audit_role_killed_mid_run_on_a_cluster_loses_no_job() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let mut pipeline = start_pipeline("cluster-kill-audit").await;
    let jobs = submit_numbered_jobs(&pipeline.client, JOBS, &[0.0]).await;
    wait_until_finished(&pipeline.client, &jobs, JOBS / 4, PATIENCE).await;
    pipeline.front.kill();
    eprintln!("cluster: killed the audit process");
    tokio::time::sleep(Duration::from_secs(1)).await;
    pipeline.front.start();
    wait_until_finished(&pipeline.client, &jobs, JOBS * 3 / 4, PATIENCE).await;
    assert!(pipeline.workers.is_running() && pipeline.front.is_running());
    pipeline.finish(&jobs).await;
}

/// Streams made at one replica (a bus that began on one server) are raised to
/// `nats.replicas` when a node with the cluster's settings declares them.
#[tokio::test]
async fn streams_made_at_one_replica_grow_to_the_configured_count() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let cluster = NatsCluster::start();
    cluster.wait_for_meta_leader().await;
    let mut single = cordon::config::Settings::load(None).expect("defaults");
    single.nats.replicas = 1;
    let url = cluster.urls_from(0);
    let old = Bus::connect(&url, "test-old", &single.nats).await.unwrap();
    old.ensure_streams().await.expect("streams at R1");
    assert_eq!(copies(&old, StreamKind::Audit).await, 1);
    let mut clustered = single.clone();
    clustered.nats.replicas = 3;
    let new = Bus::connect(&url, "test-new", &clustered.nats)
        .await
        .unwrap();
    new.ensure_streams().await.expect("streams raised to R3");
    let deadline = Instant::now() + Duration::from_secs(30);
    for kind in [StreamKind::Submit, StreamKind::Audit, StreamKind::Results] {
        while copies(&new, kind).await != 3 {
            assert!(
                Instant::now() < deadline,
                "{kind:?} never reached three copies"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// How many servers keep the stream of `kind`, by the stream's own info.
async fn copies(bus: &Bus, kind: StreamKind) -> usize {
    let name = bus.stream_name(kind).to_string();
    let mut stream = bus.js.get_stream(&name).await.expect("stream exists");
    let info = stream.info().await.expect("stream info");
    info.cluster.as_ref().map_or(1, |c| c.replicas.len() + 1)
}
