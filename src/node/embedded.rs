//! The embedded nats-server for one machine: `cordon up` and `cordon exec` without `--nats`
//! start `nats-server` with JetStream as a child, on a free loopback port or the address
//! asked for (`cordon up --listen`, `nats.listen`), its store in a directory they choose,
//! and stop it when they end (it also dies if they are killed).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
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
    /// Where the users' passwords are, when the server is permissioned.
    credentials: Option<PathBuf>,
}

impl EmbeddedNats {
    /// Starts nats-server with its store and log under `dir`, listening on `listen`
    /// (`host:port`; `None`: a free loopback port), and waits until it accepts.
    pub async fn start(
        settings: &Settings,
        dir: &Path,
        listen: Option<&str>,
    ) -> Result<EmbeddedNats, NodeError> {
        let fail = |why: String| NodeError::Embedded(why);
        if settings.nats.replicas > 1 {
            return Err(fail(format!(
                "nats.replicas = {} needs a NATS cluster of at least that many servers, and \
                 the embedded server is one: set nats.url (or --nats) to the cluster, or \
                 nats.replicas = 1",
                settings.nats.replicas
            )));
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
        let address = match listen {
            Some(text) => parse_listen(text).map_err(fail)?,
            None => free_loopback_port()
                .map(|port| SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port))
                .map_err(|e| fail(format!("no free port: {e}")))?,
        };
        let config_file = dir.join("nats.conf");
        let log_file = dir.join("nats.log");
        let credentials = (!settings.nats.embedded_open)
            .then(|| super::embedded_auth::credentials_dir(&settings.data_dir()));
        let passwords = match &credentials {
            Some(dir) => super::embedded_auth::prepare(dir)
                .map_err(|e| fail(format!("cannot make passwords in {}: {e}", dir.display())))?,
            None => Vec::new(),
        };
        let mut config = server_config(settings, dir, address);
        if credentials.is_some() {
            config.push_str(&super::embedded_auth::accounts_config());
        }
        std::fs::write(&config_file, config)
            .map_err(|e| fail(format!("cannot write {}: {e}", config_file.display())))?;
        let child = spawn_server(
            &settings.nats.server_bin,
            &config_file,
            &log_file,
            passwords,
        )?;
        let reach = reachable(address);
        let mut server = EmbeddedNats {
            child,
            url: format!("nats://{reach}"),
            log_file,
            credentials,
        };
        server.wait_until_ready(reach).await?;
        tracing::info!(url = %server.url, "embedded nats-server is up");
        Ok(server)
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// `settings` for this server's users: each actor role as itself and the local client
    /// for requests, when it is permissioned; unchanged when it is open.
    pub fn settings_for_users(&self, settings: &Settings) -> Settings {
        let mut settings = settings.clone();
        if let Some(dir) = &self.credentials {
            super::embedded_auth::use_role_credentials(&mut settings, dir);
            super::embedded_auth::use_local_client(&mut settings, dir);
        }
        settings
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

    async fn wait_until_ready(&mut self, address: SocketAddr) -> Result<(), NodeError> {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = std::fs::read_to_string(&self.log_file).unwrap_or_default();
                let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join(" | ");
                return Err(NodeError::Embedded(format!(
                    "exited with {status} before it was ready: {tail}"
                )));
            }
            if tokio::net::TcpStream::connect(address).await.is_ok() {
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

/// Starts nats-server with `passwords` (`CORDON_NATS_<USER>_PASSWORD`) in its environment,
/// where its configuration reads them.
fn spawn_server(
    bin: &str,
    config_file: &Path,
    log_file: &Path,
    passwords: Vec<(String, String)>,
) -> Result<Child, NodeError> {
    let mut command = Command::new(bin);
    command
        .envs(passwords)
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

/// `host:port` with an IP address and a port other than 0.
fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    match text.parse::<SocketAddr>() {
        Ok(address) if address.port() != 0 => Ok(address),
        _ => Err(format!(
            "listen address {text:?} must be IP:PORT with a port above 0, e.g. 127.0.0.1:4222"
        )),
    }
}

/// Where this machine reaches a server listening on `address` (loopback for 0.0.0.0).
fn reachable(address: SocketAddr) -> SocketAddr {
    match address.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(Ipv4Addr::LOCALHOST.into(), address.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(std::net::Ipv6Addr::LOCALHOST.into(), address.port())
        }
        _ => address,
    }
}

fn server_config(settings: &Settings, dir: &Path, address: SocketAddr) -> String {
    format!(
        "listen: \"{address}\"\nmax_payload: {payload}\njetstream {{\n  store_dir: {store:?}\n}}\n",
        payload = settings.nats.max_payload_bytes,
        store = dir.join("jetstream").to_string_lossy(),
    )
}

fn free_loopback_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listen_address_needs_an_ip_and_a_port() {
        assert_eq!(
            parse_listen("127.0.0.1:4222"),
            Ok(SocketAddr::from(([127, 0, 0, 1], 4222)))
        );
        for bad in ["4222", "localhost:4222", "127.0.0.1:0", "127.0.0.1", ""] {
            assert!(parse_listen(bad).is_err(), "{bad}");
        }
        let any = parse_listen("0.0.0.0:4222").unwrap();
        assert_eq!(reachable(any), SocketAddr::from(([127, 0, 0, 1], 4222)));
    }
}
