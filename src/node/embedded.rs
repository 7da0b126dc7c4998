//! The embedded nats-server for one machine: `cordon up` and `cordon exec` without `--nats`
//! start `nats-server` with JetStream as a child on a free loopback port, its store in a
//! directory they choose, and stop it when they end (it also dies if they are killed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::NodeError;
use crate::config::Settings;

/// A running nats-server child.
pub struct EmbeddedNats {
    child: Child,
    url: String,
    log_file: PathBuf,
}

impl EmbeddedNats {
    /// Starts nats-server with its store and log under `dir` and waits until it accepts.
    pub async fn start(settings: &Settings, dir: &Path) -> Result<EmbeddedNats, NodeError> {
        let fail = |why: String| NodeError::Embedded(why);
        std::fs::create_dir_all(dir)
            .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
        let port = free_loopback_port().map_err(|e| fail(format!("no free port: {e}")))?;
        let config_file = dir.join("nats.conf");
        let log_file = dir.join("nats.log");
        std::fs::write(&config_file, server_config(settings, dir, port))
            .map_err(|e| fail(format!("cannot write {}: {e}", config_file.display())))?;
        let child = spawn_server(&settings.nats.server_bin, &config_file, &log_file)?;
        let mut server = EmbeddedNats {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            log_file,
        };
        server.wait_until_ready(port).await?;
        tracing::info!(url = %server.url, "embedded nats-server is up");
        Ok(server)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Asks the server to stop (so JetStream closes its files cleanly) and waits briefly.
    pub async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            // SAFETY: sending a signal to our own child process by its pid.
            unsafe { libc::kill(pid as i32, libc::SIGTERM) };
        }
        if tokio::time::timeout(Duration::from_secs(5), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }

    async fn wait_until_ready(&mut self, port: u16) -> Result<(), NodeError> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = std::fs::read_to_string(&self.log_file).unwrap_or_default();
                let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
                return Err(NodeError::Embedded(format!(
                    "exited with {status} before it was ready: {tail}"
                )));
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(NodeError::Embedded(
                    "did not accept connections within 15 s".into(),
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn spawn_server(bin: &str, config_file: &Path, log_file: &Path) -> Result<Child, NodeError> {
    let mut command = Command::new(bin);
    command
        .arg("-c")
        .arg(config_file)
        .arg("-l")
        .arg(log_file)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    // SAFETY: prctl is async-signal-safe; it only asks the kernel to SIGTERM the child
    // when this (spawning) thread's process goes away, so no server outlives us.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    command.spawn().map_err(|e| {
        NodeError::Embedded(format!(
            "cannot start {bin:?}: {e}. Install it (apt-get install nats-server) or pass --nats URL"
        ))
    })
}

fn server_config(settings: &Settings, dir: &Path, port: u16) -> String {
    format!(
        "listen: 127.0.0.1:{port}\nmax_payload: {payload}\njetstream {{\n  store_dir: {store:?}\n}}\n",
        payload = settings.nats.max_payload_bytes,
        store = dir.join("jetstream").to_string_lossy(),
    )
}

fn free_loopback_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}
