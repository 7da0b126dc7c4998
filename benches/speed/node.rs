//! A `cordon up` for the benchmark: the release binary with its embedded nats-server, a
//! temp data dir and a host id of its own; its URL read from its first line of output.
//! Stopped with SIGTERM (so it removes its sandboxes) when dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cordon::client::Client;
use cordon::config::Settings;

use super::stats::Row;

/// Settings for a node with no warm pool (every job cold).
pub const NO_POOL: &str = "[pool]\nuntrusted = 0\nunknown = 0\ntrusted = 0\n";

pub struct Up {
    child: Option<Child>,
    url: String,
    host: String,
    pool_size: usize,
    _dir: tempfile::TempDir,
}

impl Up {
    /// Starts `cordon up` with the defaults overlaid by `config`; waits until it serves.
    pub async fn start(cordon: &Path, name: &str, config: &str) -> Up {
        let dir = tempfile::tempdir().expect("a temp dir");
        let config_path = dir.path().join("cordon.toml");
        std::fs::write(&config_path, config).expect("write the bench config");
        let settings = Settings::load(Some(&config_path)).expect("bench settings");
        let host = format!("bench-{name}-{}", &ulid::Ulid::new().to_string()[20..]).to_lowercase();
        let log = std::fs::File::create(dir.path().join("cordon.log")).expect("log file");
        let mut child = Command::new(cordon)
            .arg("--config")
            .arg(&config_path)
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .arg("up")
            .env("CORDON__NODE__HOST_ID", &host)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", cordon.display()));
        let url = read_url(&mut child);
        let pool = &settings.pool;
        let up = Up {
            child: Some(child),
            url,
            host,
            pool_size: (pool.untrusted + pool.unknown + pool.trusted) as usize,
            _dir: dir,
        };
        up.wait_pool_full().await;
        up
    }

    /// A client as this machine's CLI is one: the local client, with its password from the
    /// node's data dir (the embedded server is permissioned).
    pub async fn client(&self) -> Client {
        let mut settings = Settings::load(None).expect("defaults");
        let data_dir = self.data_dir();
        let credentials = cordon::node::embedded_auth::credentials_dir(&data_dir);
        cordon::node::embedded_auth::use_local_client(&mut settings, &credentials);
        Client::connect(&self.url, &settings.nats)
            .await
            .expect("a client of the bench node")
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// The node's data dir, whose credentials the CLI reads as the local client.
    pub fn data_dir(&self) -> std::path::PathBuf {
        self._dir.path().join("data")
    }

    /// Ids of every container of this node's host.
    pub fn containers(&self) -> Vec<String> {
        let output = Command::new("docker")
            .args(["ps", "-q", "--no-trunc"])
            .args(["--filter", &format!("label=cordon.host={}", self.host)])
            .output()
            .expect("docker CLI");
        String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    /// Waits (up to 30 s) until every warm sandbox the node keeps is there.
    pub async fn wait_pool_full(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.warm_sandboxes() < self.pool_size {
            if Instant::now() > deadline {
                eprintln!("bench: the pool of {} did not fill within 30 s", self.host);
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn warm_sandboxes(&self) -> usize {
        let output = Command::new("docker")
            .args(["ps", "-q", "--filter", "label=cordon.warm=true"])
            .args(["--filter", &format!("label=cordon.host={}", self.host)])
            .output()
            .expect("docker CLI");
        String::from_utf8_lossy(&output.stdout)
            .split_whitespace()
            .count()
    }

    /// Idle RSS of `cordon up` (and, beside it, of its nats-server).
    pub fn memory_row(&self) -> Row {
        std::thread::sleep(Duration::from_secs(2));
        let pid = self.child.as_ref().map(|c| c.id()).unwrap_or(0);
        let cordon = rss_mib(pid);
        let nats = child_pids(pid).into_iter().map(rss_mib).sum::<f64>();
        Row {
            what: "`cordon up` idle RSS, MiB (pool full)".into(),
            cordon: format!("{cordon:.1}"),
            floor: format!("nats-server: {nats:.1}"),
            note: "target < 64 MiB, nats-server aside".into(),
        }
    }

    /// SIGTERM, and wait for a clean exit.
    pub fn stop(mut self) {
        self.terminate();
    }

    fn terminate(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: signalling our own child by pid.
            unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
            let _ = child.wait();
        }
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        self.terminate();
    }
}

/// The URL in `cordon: up on <url> as host <host>`.
fn read_url(child: &mut Child) -> String {
    let stdout = child.stdout.take().expect("piped stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("cordon up's first line");
    line.split_whitespace()
        .nth(3)
        .filter(|u| u.starts_with("nats://"))
        .unwrap_or_else(|| panic!("unexpected first line of cordon up: {line:?}"))
        .to_string()
}

pub fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kib / 1024.0
}

/// Processes whose parent is `pid`.
fn child_pids(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| parent_of(*p) == Some(pid))
        .collect()
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 2..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}
