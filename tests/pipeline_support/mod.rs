//! Shared by the pipeline tests: a real nats-server with JetStream on a free loopback port,
//! real `cordon` processes (all roles, or one role each) with their own data dir and a host
//! id unique to the test, a typed client, and checks that no sandbox is left behind.
//! When a test fails, the logs of the processes it started are printed.

#![allow(dead_code)]

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cordon::client::Client;
use cordon::config::Settings;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status};

pub const MIB: u64 = 1 << 20;

/// The `cordon` binary under test.
pub fn cordon_bin() -> &'static str {
    env!("CARGO_BIN_EXE_cordon")
}

/// A nats-server with JetStream, store in a temp dir, on a free loopback port.
pub struct Nats {
    child: Option<Child>,
    pub url: String,
    port: u16,
    dir: tempfile::TempDir,
    /// Largest message the server accepts, when not nats-server's default (1 MiB).
    max_payload: Option<u64>,
    /// A configuration file and the environment it reads (a permissioned bus).
    config: Option<(PathBuf, Vec<(String, String)>)>,
}

impl Nats {
    pub fn start() -> Nats {
        Nats::start_configured(None)
    }

    /// Starts nats-server with configuration file `file`, giving it `env` (the passwords
    /// `deploy/nats/cordon.conf` reads from the environment).
    pub fn start_with_config(file: &Path, env: Vec<(String, String)>) -> Nats {
        Nats::start_configured(Some((file.to_path_buf(), env)))
    }

    fn start_configured(config: Option<(PathBuf, Vec<(String, String)>)>) -> Nats {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut nats = Nats {
            child: None,
            url: String::new(),
            port: 0,
            dir,
            max_payload: None,
            config,
        };
        nats.spawn();
        nats
    }

    /// Like `start`, accepting messages up to `bytes` (as cordon's embedded server does), so
    /// requests around the code size cap reach cordon instead of being refused by NATS.
    pub fn start_with_max_payload(bytes: u64) -> Nats {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut nats = Nats {
            child: None,
            url: String::new(),
            port: 0,
            dir,
            max_payload: Some(bytes),
            config: None,
        };
        nats.spawn();
        nats
    }

    fn spawn(&mut self) {
        let store = self.dir.path().join("js");
        let log = std::fs::File::create(self.dir.path().join("nats.log")).expect("log file");
        let mut command = Command::new("nats-server");
        if let Some(bytes) = self.max_payload {
            let conf = self.dir.path().join("nats.conf");
            std::fs::write(&conf, format!("max_payload: {bytes}\n")).expect("nats config");
            command.arg("-c").arg(conf);
        }
        if let Some((file, env)) = &self.config {
            command.arg("-c").arg(file).envs(env.iter().cloned());
        }
        // The first start lets the server pick its port (-1) and reads it from the log, so
        // tests running side by side never race for one; a restart takes the same port.
        let port = match self.port {
            0 => "-1".to_string(),
            port => port.to_string(),
        };
        let child = command
            .args(["-a", "127.0.0.1", "-p", &port, "-js", "-sd"])
            .arg(&store)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("these tests need nats-server on PATH (apt-get install nats-server)");
        self.child = Some(child);
        if self.port == 0 {
            self.port = port_in_log(&self.dir.path().join("nats.log"), Duration::from_secs(10));
            self.url = format!("nats://127.0.0.1:{}", self.port);
        }
        wait_for_port(self.port, Duration::from_secs(10));
    }

    /// Stops the server (SIGKILL) and starts it again on the same port and store.
    pub fn restart(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.spawn();
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Settings for tests: tight limits so violations come quickly, on top of the defaults.
pub fn test_config(extra: &str) -> String {
    format!(
        r#"
[limits.untrusted]
cpus = 1.0
memory_bytes = 134217728
pids = 32
timeout_ms = 8000
cpu_time_ms = 2000

[caps]
stdout_bytes = 65536
stderr_bytes = 65536
tmpfs_bytes = 16777216

# The spine's pipeline tests count a host's containers while it runs, so they keep no warm
# sandboxes; tests/warm_pool_pipeline.rs runs the pipeline with them.
[pool]
untrusted = 0
unknown = 0
trusted = 0

[scheduler]
reserve_memory_bytes = 0
{extra}
"#
    )
}

/// A running `cordon` process.
pub struct Node {
    child: Option<Child>,
    args: Vec<String>,
    pub host: String,
    pub data_dir: PathBuf,
    pub config: PathBuf,
    log: PathBuf,
    _dir: Option<tempfile::TempDir>,
    /// Extra environment for the process (fail points).
    pub env: Vec<(String, String)>,
}

impl Node {
    /// `cordon up --nats URL`: all five actors in one process.
    pub fn up(nats: &Nats, test: &str, config: &str) -> Node {
        let mut node = Node::prepare(test, config);
        node.args = vec!["up".into(), "--nats".into(), nats.url.clone()];
        node.start();
        node
    }

    /// `cordon up --nats URL` with extra environment (fail points).
    pub fn up_with_env(nats: &Nats, test: &str, config: &str, env: &[(&str, &str)]) -> Node {
        let mut node = Node::prepare(test, config);
        node.args = vec!["up".into(), "--nats".into(), nats.url.clone()];
        node.env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        node.start();
        node
    }

    /// `cordon serve --role R... --nats URL` sharing `like`'s host id, data dir and config.
    pub fn serve_like(like: &Node, nats: &Nats, roles: &[&str]) -> Node {
        Node::serve_like_at(like, &nats.url, roles)
    }

    /// Like `serve_like`, connected to `url` (one server, or several separated by commas).
    pub fn serve_like_at(like: &Node, url: &str, roles: &[&str]) -> Node {
        let mut args: Vec<String> = vec!["serve".into(), "--nats".into(), url.to_string()];
        for role in roles {
            args.extend(["--role".to_string(), role.to_string()]);
        }
        let log_dir = like.log.parent().expect("log dir").to_path_buf();
        let mut node = Node {
            child: None,
            args,
            host: like.host.clone(),
            data_dir: like.data_dir.clone(),
            config: like.config.clone(),
            log: log_dir.join(format!("{}.log", roles.join("-"))),
            _dir: None,
            env: Vec::new(),
        };
        node.start();
        node
    }

    /// A host id, data dir and config file for a test, with no process yet.
    pub fn prepare(test: &str, config: &str) -> Node {
        let dir = tempfile::tempdir().expect("temp dir");
        let unique = ulid::Ulid::new().to_string()[16..].to_lowercase();
        let host = format!("t-{test}-{unique}")
            .replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "-");
        let config_path = dir.path().join("cordon.toml");
        std::fs::write(&config_path, config).expect("write config");
        Node {
            child: None,
            args: vec![],
            host,
            data_dir: dir.path().join("data"),
            config: config_path,
            log: dir.path().join("node.log"),
            _dir: Some(dir),
            env: Vec::new(),
        }
    }

    /// (Re)starts the process with its arguments.
    pub fn start(&mut self) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("log");
        let child = Command::new(cordon_bin())
            .arg("--config")
            .arg(&self.config)
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(&self.args)
            .env("CORDON__NODE__HOST_ID", &self.host)
            .env("RUST_LOG", "info")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start cordon");
        self.child = Some(child);
    }

    /// SIGKILL, as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM and wait for a clean exit.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("node is running");
        // SAFETY: signalling our own child by pid.
        unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
        child.wait().expect("wait for cordon")
    }

    pub fn settings(&self) -> Settings {
        Settings::load(Some(&self.config)).expect("test config loads")
    }

    pub fn audit_dir(&self) -> PathBuf {
        self.data_dir.join("audit")
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
        if std::thread::panicking() {
            eprintln!(
                "---- log of cordon {:?} on host {} ----\n{}",
                self.args.first(),
                self.host,
                self.log_text()
            );
        }
    }
}

/// A client of `nats` (client name `anonymous`), once the streams exist: clients never
/// create them, so the harness does, as an operator would.
pub async fn client(nats: &Nats) -> Client {
    let settings = Settings::load(None).expect("defaults");
    ensure_streams(nats, &settings).await;
    Client::connect(&nats.url, &settings.nats)
        .await
        .expect("client connects")
}

/// Declares cordon's streams on `nats` (what the audit role or an admin does in production).
pub async fn ensure_streams(nats: &Nats, settings: &Settings) {
    let bus = cordon::bus::Bus::connect(&nats.url, "test-setup", &settings.nats)
        .await
        .expect("setup connects");
    bus.ensure_streams().await.expect("streams declared");
}

/// A request for `code` at trust `trust`.
pub fn request(code: &str, trust: &str) -> ExecRequest {
    ExecRequest {
        code: serde_bytes::ByteBuf::from(code.as_bytes().to_vec()),
        trust: Some(trust.into()),
        origin: None,
        timeout_ms: None,
        client: Some("tests".into()),
        network: None,
        image: None,
        ..Default::default()
    }
}

/// Runs untrusted `code` and waits up to a minute for its result.
pub async fn run(client: &Client, code: &str) -> ExecResult {
    run_request(client, &request(code, "untrusted")).await
}

pub async fn run_request(client: &Client, request: &ExecRequest) -> ExecResult {
    let id = Client::new_request_id();
    client
        .run(&id, request, Duration::from_secs(90))
        .await
        .expect("a result arrives")
}

/// Ids of the containers Docker still has for `host`.
pub fn containers_of(host: &str) -> Vec<String> {
    docker_ps(&["-aq", "--filter", &format!("label=cordon.host={host}")])
}

/// Ids of the containers of `host` that are running now.
pub fn running_containers_of(host: &str) -> Vec<String> {
    let host_label = format!("label=cordon.host={host}");
    docker_ps(&["-q", "--filter", &host_label, "--filter", "status=running"])
}

fn docker_ps(args: &[&str]) -> Vec<String> {
    let output = Command::new("docker")
        .arg("ps")
        .args(args)
        .output()
        .expect("docker CLI");
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// Waits until `host` has no container left, or fails naming them.
pub fn assert_no_containers_within(host: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let left = containers_of(host);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "containers left behind for {host}: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The client port a nats-server started with `-p -1` logs ("Listening for client
/// connections on 127.0.0.1:PORT").
fn port_in_log(log: &Path, within: Duration) -> u16 {
    let deadline = Instant::now() + within;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let port = text
            .lines()
            .find_map(|line| line.split("Listening for client connections on ").nth(1))
            .and_then(|address| address.trim().rsplit(':').next()?.parse().ok());
        if let Some(port) = port {
            return port;
        }
        assert!(
            Instant::now() < deadline,
            "nats-server did not say its port: {text}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_port(port: u16, within: Duration) {
    let deadline = Instant::now() + within;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nats-server did not start on port {port}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads the audit entries of one request from a node's data dir.
pub fn audit_kinds(audit_dir: &Path, request_id: &str) -> Vec<String> {
    cordon::audit::read_entries(audit_dir, Some(request_id))
        .expect("audit log readable")
        .into_iter()
        .map(|e| e.kind)
        .collect()
}

/// Reads the audit entries of one request, in log order.
pub fn audit_entries(audit_dir: &Path, request_id: &str) -> Vec<cordon::audit::StoredEntry> {
    cordon::audit::read_entries(audit_dir, Some(request_id)).expect("audit log readable")
}

/// The body of the first audit entry of `kind` for `request_id`; panics naming what the
/// request has when it has none.
pub fn audit_body(audit_dir: &Path, request_id: &str, kind: &str) -> serde_json::Value {
    let entries = audit_entries(audit_dir, request_id);
    let found = entries.iter().find(|e| e.kind == kind);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    found
        .unwrap_or_else(|| panic!("{request_id} has no {kind} entry: {kinds:?}"))
        .body
        .clone()
}

/// When the entry of `kind` for `request_id` was recorded (Unix ms), waiting up to
/// `within` for it to be appended.
pub fn audit_at_ms(audit_dir: &Path, request_id: &str, kind: &str, within: Duration) -> u64 {
    let deadline = Instant::now() + within;
    loop {
        let found = audit_entries(audit_dir, request_id)
            .into_iter()
            .find(|e| e.kind == kind);
        if let Some(entry) = found {
            return entry.at_ms;
        }
        assert!(
            Instant::now() < deadline,
            "no {kind} audit entry for {request_id}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Ids of the containers Docker still has that carry `cordon.managed` and belong to `host`.
pub fn managed_containers_of(host: &str) -> Vec<String> {
    let output = Command::new("docker")
        .args([
            "ps",
            "-aq",
            "--filter",
            "label=cordon.managed",
            "--filter",
            &format!("label=cordon.host={host}"),
        ])
        .output()
        .expect("docker CLI");
    String::from_utf8_lossy(&output.stdout)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// A plain NATS connection to `nats`, for publishing raw payloads and watching subjects.
pub async fn raw_connection(nats: &Nats) -> async_nats::Client {
    async_nats::connect(&nats.url)
        .await
        .expect("raw NATS connection")
}

/// A ULID, as cordon uses for request ids.
pub fn fresh_id() -> String {
    ulid::Ulid::new().to_string()
}

impl Node {
    /// Whether the process is still alive (it neither exited nor crashed).
    pub fn is_running(&mut self) -> bool {
        match self.child.as_mut() {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }
}

/// Waits up to two minutes for the stored result of a request submitted earlier.
pub async fn wait_result(client: &Client, id: &str) -> ExecResult {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(result) = client.stored_result(id).await.expect("results readable") {
            return result;
        }
        assert!(tokio::time::Instant::now() < deadline, "no result for {id}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Runs a docker CLI command and returns its stdout; panics with its stderr on failure.
#[allow(dead_code)]
pub fn docker_cli(args: &[&str]) -> String {
    let output = Command::new("docker")
        .args(args)
        .output()
        .expect("docker CLI");
    assert!(
        output.status.success(),
        "docker {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// `[nats.roles.<role>]` sections that connect every actor as its own NATS user, with its
/// password read from `<password_dir>/<role>.password`.
#[allow(dead_code)]
pub fn role_credentials(password_dir: &Path) -> String {
    cordon::actor::Role::ALL
        .iter()
        .map(|role| {
            let role = role.name();
            let file = password_dir.join(format!("{role}.password"));
            format!(
                "\n[nats.roles.{role}]\nuser = \"{role}\"\npassword_file = \"{}\"\n",
                file.display()
            )
        })
        .collect()
}

/// Every user of `deploy/nats/cordon.conf`.
#[allow(dead_code)]
pub const DEPLOY_NATS_USERS: [&str; 9] = [
    "assessor",
    "scheduler",
    "supervisor",
    "monitor",
    "audit",
    "operator",
    "admin",
    "alice",
    "bob",
];

/// Submits `count` jobs: job `n` sleeps `sleeps[n % sleeps.len()]` seconds and prints `n`.
/// Returns each request id with its number.
pub async fn submit_numbered_jobs(
    client: &Client,
    count: usize,
    sleeps: &[f64],
) -> HashMap<String, usize> {
    let mut jobs = HashMap::new();
    for n in 0..count {
        let id = Client::new_request_id();
        let seconds = sleeps[n % sleeps.len()];
        let code = format!("import time\ntime.sleep({seconds})\nprint({n})\n");
        client
            .submit(&id, &request(&code, "untrusted"))
            .await
            .expect("submit");
        jobs.insert(id, n);
    }
    jobs
}

/// Waits for every job's result and checks each ran to completion with its own output.
pub async fn expect_all_completed(client: &Client, jobs: &HashMap<String, usize>) {
    for (id, n) in jobs {
        let result = wait_result(client, id).await;
        assert_eq!(result.status, Status::Completed, "job {n}: {result:?}");
        assert_eq!(result.stdout, format!("{n}\n"), "job {n}");
    }
}

/// Waits up to a minute until `host` has a sandbox, and returns those it has then.
pub async fn wait_for_running_sandboxes(host: &str) -> HashSet<String> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let running = containers_of(host);
        if !running.is_empty() {
            return running.into_iter().collect();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no sandbox started for {host}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many of `jobs` have a stored result now.
pub async fn finished_count(client: &Client, jobs: &HashMap<String, usize>) -> usize {
    let mut done = 0;
    for id in jobs.keys() {
        if matches!(client.stored_result(id).await, Ok(Some(_))) {
            done += 1;
        }
    }
    done
}

/// Waits until at least `at_least` of `jobs` have a stored result, failing after `within`.
pub async fn wait_until_finished(
    client: &Client,
    jobs: &HashMap<String, usize>,
    at_least: usize,
    within: Duration,
) {
    let deadline = Instant::now() + within;
    loop {
        let done = finished_count(client, jobs).await;
        if done >= at_least {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "only {done} of {} jobs finished",
            jobs.len()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Checks that every one of `jobs` (from `submit_numbered_jobs`) has a stored result that
/// is `completed` with its own number as output; returns how many.
pub async fn assert_each_completed_with_its_output(
    client: &Client,
    jobs: &HashMap<String, usize>,
) -> usize {
    let mut completed = 0;
    for (id, n) in jobs {
        let result = client
            .stored_result(id)
            .await
            .expect("results readable")
            .expect("stored result");
        assert_eq!(
            result.status,
            cordon::protocol::exec::Status::Completed,
            "job {n}: {result:?}"
        );
        assert_eq!(result.stdout, format!("{n}\n"), "job {n}");
        completed += 1;
    }
    completed
}

/// From the audit log in `audit_dir`: how many of `jobs` have no `finished` entry (lost)
/// and how many have more than one (duplicated).
pub fn lost_and_duplicated(audit_dir: &Path, jobs: &HashMap<String, usize>) -> (usize, usize) {
    let mut finished: HashMap<String, usize> = HashMap::new();
    for entry in cordon::audit::read_entries(audit_dir, None).expect("audit log readable") {
        if entry.kind == "finished" {
            *finished.entry(entry.request_id).or_default() += 1;
        }
    }
    let lost = jobs.keys().filter(|id| !finished.contains_key(*id)).count();
    let duplicated = jobs
        .keys()
        .filter(|id| finished.get(*id).is_some_and(|n| *n > 1))
        .count();
    (lost, duplicated)
}
