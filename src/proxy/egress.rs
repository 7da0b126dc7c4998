//! The supervisor's side of the egress proxy. `Egress` keeps one proxy container per host
//! (`cordon-proxy-<host>-<instance>`: the sandbox image with this very binary bind-mounted read-only,
//! or `network.proxy_image` with its own, running `cordon proxy-worker` as nobody with no capabilities and a read-only root, on
//! the upstream network), made on first use and remade if it dies. `open` gives one
//! allowlist request a `Lease`: its own internal network with the proxy on it at a fixed
//! address, a grant for that address, and the stream of the request's connection
//! attempts. `close` (or dropping the lease) revokes the grant and removes the network.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::container::LogOutput;
use bollard::errors::Error as BollardError;
use bollard::models::{
    ContainerCreateBody, EndpointIpamConfig, EndpointSettings, HostConfig, HostConfigLogConfig,
    NetworkConnectRequest, NetworkDisconnectRequest,
};
use bollard::query_parameters::{CreateContainerOptions, StartContainerOptions};
use bollard::Docker;
use futures::{Stream, StreamExt};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::control::{Attempt, Command, Report, MAX_LINE_BYTES};
use super::network::{self, RequestNetwork};
use super::EgressPolicy;
use crate::config::NetworkSettings;
use crate::docker::labels;
use crate::owner::OwnerTag;

/// Where the binary is mounted in the proxy container.
const BINARY_IN_CONTAINER: &str = "/cordon";
/// Where cordon is in a `network.proxy_image` (the node image of deploy/node).
const BINARY_IN_PROXY_IMAGE: &str = "/usr/local/bin/cordon";
/// The proxy container's user: nobody.
const PROXY_USER: &str = "65534:65534";
const PROXY_MEMORY: i64 = 256 << 20;
/// Half a core: a connection flood from one job slows that host's egress, not the host.
const PROXY_NANO_CPUS: i64 = 500_000_000;
const PROXY_PIDS: i64 = 256;
/// How long the worker may take to answer a command (or to start).
const ANSWER_WAIT: Duration = Duration::from_secs(10);
/// Label marking the proxy container (it carries no limits, so the monitor ignores it).
pub const LABEL_ROLE: &str = "cordon.role";

#[derive(Debug, thiserror::Error)]
pub enum EgressError {
    #[error("the egress policy is invalid: {0}")]
    EgressPolicy(String),
    #[error("cannot find this cordon binary to run the egress proxy: {0}")]
    Binary(std::io::Error),
    #[error("cannot {action} the egress proxy container: {source}")]
    Container {
        action: &'static str,
        #[source]
        source: BollardError,
    },
    #[error("the egress proxy did not {0} in time (see its log lines)")]
    NoAnswer(&'static str),
    #[error("cannot write to the egress proxy: {0}")]
    Control(std::io::Error),
    #[error("cannot {action} the network of request {request_id}: {source}")]
    Network {
        action: &'static str,
        request_id: String,
        #[source]
        source: BollardError,
    },
}

/// The host's egress proxy.
pub struct Egress {
    docker: Docker,
    host: String,
    owner: OwnerTag,
    image: String,
    settings: NetworkSettings,
    link: tokio::sync::Mutex<Option<Arc<Link>>>,
}

/// A running proxy container and its control channel.
struct Link {
    container_id: String,
    stdin: tokio::sync::Mutex<Pin<Box<dyn AsyncWrite + Send>>>,
    waiters: Mutex<HashMap<String, oneshot::Sender<()>>>,
    routes: Mutex<HashMap<String, mpsc::Sender<Attempt>>>,
    alive: AtomicBool,
}

/// One allowlist request's egress: its network, the proxy's URL on it, and its
/// connection attempts as the proxy reports them. Dropped unclosed, it is torn down in
/// the background.
pub struct Lease {
    pub network: String,
    pub proxy_url: String,
    /// The proxy's address on the network, also the sandbox's only name server.
    pub proxy_ip: std::net::Ipv4Addr,
    attempts: Option<mpsc::Receiver<Attempt>>,
    request_id: String,
    key: String,
    link: Arc<Link>,
    docker: Docker,
    closed: bool,
}

impl Egress {
    pub fn new(
        docker: &Docker,
        (host, owner): (&str, &OwnerTag),
        image: &str,
        settings: &NetworkSettings,
    ) -> Egress {
        Egress {
            docker: docker.clone(),
            host: host.to_string(),
            owner: owner.clone(),
            image: image.to_string(),
            settings: settings.clone(),
            link: tokio::sync::Mutex::new(None),
        }
    }

    /// Gives `request_id` its own network with the proxy on it, granted `policy`.
    pub async fn open(&self, request_id: &str) -> Result<Lease, EgressError> {
        let policy = super::policy_of(&self.settings).map_err(EgressError::EgressPolicy)?;
        let link = self.link().await?;
        let net_error = |action| {
            move |source| EgressError::Network {
                action,
                request_id: request_id.to_string(),
                source,
            }
        };
        let network = network::create(
            &self.docker,
            (&self.host, &self.owner),
            request_id,
            &self.settings.subnet_pool,
        )
        .await
        .map_err(net_error("create"))?;
        let lease = Lease::new(
            request_id,
            &self.docker,
            &link,
            &network,
            self.settings.proxy_port,
            &policy,
        );
        connect_proxy(&self.docker, &link.container_id, &network)
            .await
            .map_err(net_error("attach the proxy to"))?;
        let grant = Command::Grant {
            key: lease.key.clone(),
            policy,
        };
        link.ask(&grant, format!("granted:{}", lease.key), "accept a grant")
            .await?;
        Ok(lease)
    }

    /// The running proxy, started (again) if needed.
    async fn link(&self) -> Result<Arc<Link>, EgressError> {
        let mut slot = self.link.lock().await;
        if let Some(link) = slot.as_ref().filter(|l| l.alive.load(Ordering::SeqCst)) {
            return Ok(link.clone());
        }
        let owner = (self.host.as_str(), &self.owner);
        let link = start_proxy(&self.docker, owner, &self.image, &self.settings).await?;
        *slot = Some(link.clone());
        Ok(link)
    }
}

impl Lease {
    /// The request's connection attempts, as the proxy reports them; the stream ends once
    /// the lease is closed. Taken once.
    pub fn take_attempts(&mut self) -> Option<mpsc::Receiver<Attempt>> {
        self.attempts.take()
    }

    fn new(
        request_id: &str,
        docker: &Docker,
        link: &Arc<Link>,
        network: &RequestNetwork,
        port: u16,
        policy: &EgressPolicy,
    ) -> Lease {
        let key = network.proxy_ip.to_string();
        let (routed, attempts) = mpsc::channel(policy.max_connections as usize + 8);
        link.lock_routes().insert(key.clone(), routed);
        Lease {
            network: network.name.clone(),
            proxy_url: format!("http://{key}:{port}"),
            proxy_ip: network.proxy_ip,
            attempts: Some(attempts),
            request_id: request_id.to_string(),
            key,
            link: link.clone(),
            docker: docker.clone(),
            // Armed from the start: a drop, even before the grant, tears the network down.
            closed: false,
        }
    }

    /// Revokes the grant (the proxy reports the last connections first), then removes
    /// the network. Call after the sandbox is removed.
    pub async fn close(mut self) -> Result<(), EgressError> {
        self.closed = true;
        let revoke = Command::Revoke {
            key: self.key.clone(),
        };
        let revoked = self
            .link
            .ask(&revoke, format!("revoked:{}", self.key), "revoke a grant")
            .await;
        self.link.lock_routes().remove(&self.key);
        let removed = teardown(&self.docker, &self.link.container_id, &self.network).await;
        revoked?;
        removed.map_err(|source| EgressError::Network {
            action: "remove",
            request_id: self.request_id.clone(),
            source,
        })
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        self.link.lock_routes().remove(&self.key);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (docker, link, network, key) = (
            self.docker.clone(),
            self.link.clone(),
            self.network.clone(),
            self.key.clone(),
        );
        runtime.spawn(async move {
            let _ = link.send(&Command::Revoke { key }).await;
            // The sandbox's own removal may still be under way: retry for a while.
            for _ in 0..10 {
                if teardown(&docker, &link.container_id, &network)
                    .await
                    .is_ok()
                {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            tracing::warn!(
                network,
                "cannot remove an abandoned request network; reap will"
            );
        });
    }
}

/// Takes the proxy off the network and removes it.
async fn teardown(docker: &Docker, proxy: &str, network: &str) -> Result<(), BollardError> {
    let disconnect = NetworkDisconnectRequest {
        container: Some(proxy.to_string()),
        force: Some(true),
    };
    let _ = docker.disconnect_network(network, disconnect).await;
    network::remove(docker, network).await
}

async fn connect_proxy(
    docker: &Docker,
    proxy: &str,
    network: &RequestNetwork,
) -> Result<(), BollardError> {
    let endpoint = EndpointSettings {
        ipam_config: Some(EndpointIpamConfig {
            ipv4_address: Some(network.proxy_ip.to_string()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let request = NetworkConnectRequest {
        container: Some(proxy.to_string()),
        endpoint_config: Some(endpoint),
    };
    docker.connect_network(&network.name, request).await
}

impl Link {
    fn lock_routes(&self) -> std::sync::MutexGuard<'_, HashMap<String, mpsc::Sender<Attempt>>> {
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock_waiters(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<()>>> {
        self.waiters.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn send(&self, command: &Command) -> Result<(), EgressError> {
        let mut stdin = self.stdin.lock().await;
        stdin
            .write_all(command.to_line().as_bytes())
            .await
            .map_err(EgressError::Control)?;
        stdin.flush().await.map_err(EgressError::Control)
    }

    /// Sends `command` and waits for the report `answer` names.
    async fn ask(
        &self,
        command: &Command,
        answer: String,
        what: &'static str,
    ) -> Result<(), EgressError> {
        let (done, answered) = oneshot::channel();
        self.lock_waiters().insert(answer.clone(), done);
        let outcome = async {
            self.send(command).await?;
            match tokio::time::timeout(ANSWER_WAIT, answered).await {
                Ok(Ok(())) => Ok(()),
                _ => Err(EgressError::NoAnswer(what)),
            }
        }
        .await;
        self.lock_waiters().remove(&answer);
        outcome
    }

    /// Passes a connection report to its request (the queue holds the request's whole
    /// connection cap, so it only overflows if the worker misbehaves).
    fn route(&self, key: &str, attempt: Attempt) {
        let Some(route) = self.lock_routes().get(key).cloned() else {
            tracing::warn!(key, "a connection report for no running request");
            return;
        };
        if route.try_send(attempt).is_err() {
            tracing::warn!(key, "a connection report found its request's queue full");
        }
    }

    /// Handles one report line from the worker.
    fn on_report(&self, report: Report) {
        let answer = match report {
            Report::Ready => "ready".to_string(),
            Report::Granted { key } => format!("granted:{key}"),
            Report::Revoked { key } => format!("revoked:{key}"),
            Report::Connection { key, attempt } => {
                self.route(&key, attempt);
                return;
            }
        };
        if let Some(waiter) = self.lock_waiters().remove(&answer) {
            let _ = waiter.send(());
        }
    }
}

/// Replaces any old proxy container of `host` with a fresh one and waits until it is ready.
async fn start_proxy(
    docker: &Docker,
    (host, owner): (&str, &OwnerTag),
    sandbox_image: &str,
    settings: &NetworkSettings,
) -> Result<Arc<Link>, EgressError> {
    let fail = |action| move |source| EgressError::Container { action, source };
    // One proxy per supervisor instance: an earlier proxy of this instance died, and goes.
    let name = format!("cordon-proxy-{host}-{}", owner.instance);
    let _ = crate::docker::force_remove(docker, &name).await;
    let program = proxy_program(sandbox_image, settings)?;
    let body = proxy_config((host, owner), &program, settings);
    let options = CreateContainerOptions {
        name: Some(name),
        ..Default::default()
    };
    let id = docker
        .create_container(Some(options), body)
        .await
        .map_err(fail("create"))?
        .id;
    let streams = crate::docker::attach_stdio(docker, &id)
        .await
        .map_err(fail("attach to"))?;
    let link = Arc::new(Link {
        container_id: id.clone(),
        stdin: tokio::sync::Mutex::new(streams.input),
        waiters: Mutex::default(),
        routes: Mutex::default(),
        alive: AtomicBool::new(true),
    });
    let (ready, is_ready) = oneshot::channel();
    link.lock_waiters().insert("ready".into(), ready);
    tokio::spawn(read_reports(link.clone(), streams.output));
    docker
        .start_container(&id, None::<StartContainerOptions>)
        .await
        .map_err(fail("start"))?;
    match tokio::time::timeout(ANSWER_WAIT, is_ready).await {
        Ok(Ok(())) => Ok(link),
        _ => Err(EgressError::NoAnswer("start")),
    }
}

/// Which image the proxy runs from, and where its cordon binary is in it.
struct ProxyProgram {
    image: String,
    binary: &'static str,
    /// `host path:container path:ro` when the binary is bind-mounted.
    bind: Option<String>,
}

/// `network.proxy_image` with its own cordon when set (a supervisor in a container, whose
/// own binary the engine cannot see); otherwise the sandbox image with this very binary
/// bind-mounted read-only.
fn proxy_program(
    sandbox_image: &str,
    settings: &NetworkSettings,
) -> Result<ProxyProgram, EgressError> {
    if !settings.proxy_image.is_empty() {
        return Ok(ProxyProgram {
            image: settings.proxy_image.clone(),
            binary: BINARY_IN_PROXY_IMAGE,
            bind: None,
        });
    }
    let own = std::env::current_exe().map_err(EgressError::Binary)?;
    Ok(ProxyProgram {
        image: sandbox_image.to_string(),
        binary: BINARY_IN_CONTAINER,
        bind: Some(format!("{}:{BINARY_IN_CONTAINER}:ro", own.display())),
    })
}

fn proxy_config(
    (host, owner): (&str, &OwnerTag),
    program: &ProxyProgram,
    settings: &NetworkSettings,
) -> ContainerCreateBody {
    crate::docker::with_attached_stdio(ContainerCreateBody {
        image: Some(program.image.clone()),
        entrypoint: Some(Vec::new()),
        cmd: Some(vec![
            program.binary.into(),
            "proxy-worker".into(),
            "--port".into(),
            settings.proxy_port.to_string(),
        ]),
        user: Some(PROXY_USER.into()),
        env: Some(vec!["PATH=/usr/bin:/bin".into(), "RUST_LOG=warn".into()]),
        labels: Some(proxy_labels(host, owner)),
        host_config: Some(HostConfig {
            binds: program.bind.clone().map(|bind| vec![bind]),
            network_mode: Some(settings.upstream_network.clone()),
            cap_drop: Some(vec!["ALL".into()]),
            security_opt: Some(vec!["no-new-privileges".into()]),
            readonly_rootfs: Some(true),
            memory: Some(PROXY_MEMORY),
            memory_swap: Some(PROXY_MEMORY),
            nano_cpus: Some(PROXY_NANO_CPUS),
            pids_limit: Some(PROXY_PIDS),
            init: Some(true),
            // The proxy relays at the application layer only; it never routes packets.
            // Port 53 for the DNS responder without a capability: the threshold is a
            // sysctl of the proxy's own network namespace.
            sysctls: Some(HashMap::from([
                ("net.ipv4.ip_forward".to_string(), "0".to_string()),
                (
                    "net.ipv4.ip_unprivileged_port_start".to_string(),
                    "0".to_string(),
                ),
            ])),
            log_config: Some(HostConfigLogConfig {
                typ: Some("none".into()),
                config: None,
            }),
            ..Default::default()
        }),
        ..Default::default()
    })
}

fn proxy_labels(host: &str, owner: &OwnerTag) -> HashMap<String, String> {
    let mut proxy_labels = HashMap::from([
        (labels::MANAGED.to_string(), "true".to_string()),
        (labels::HOST.to_string(), host.to_string()),
        (LABEL_ROLE.to_string(), "proxy".to_string()),
    ]);
    owner.label(&mut proxy_labels);
    proxy_labels
}

type Output = Pin<Box<dyn Stream<Item = Result<LogOutput, BollardError>> + Send>>;

/// Reads the worker's stdout as report lines (stderr is logged) until the container ends.
async fn read_reports(link: Arc<Link>, mut output: Output) {
    let mut pending: Vec<u8> = Vec::new();
    while let Some(Ok(chunk)) = output.next().await {
        match chunk {
            LogOutput::StdOut { message } => {
                pending.extend_from_slice(&message);
                take_lines(&link, &mut pending);
            }
            LogOutput::StdErr { message } => {
                let text =
                    String::from_utf8_lossy(&message[..message.len().min(2048)]).into_owned();
                tracing::warn!(proxy = %link.container_id, "{}", text.trim_end());
            }
            _ => {}
        }
    }
    link.alive.store(false, Ordering::SeqCst);
    link.lock_waiters().clear();
    link.lock_routes().clear();
    tracing::warn!(proxy = %link.container_id, "the egress proxy ended");
}

fn take_lines(link: &Link, pending: &mut Vec<u8>) {
    while let Some(end) = pending.iter().position(|b| *b == b'\n') {
        let line: Vec<u8> = pending.drain(..=end).collect();
        match serde_json::from_slice::<Report>(&line) {
            Ok(report) => link.on_report(report),
            Err(error) => tracing::warn!(%error, "ignoring a bad report from the egress proxy"),
        }
    }
    if pending.len() > MAX_LINE_BYTES {
        tracing::warn!("an over-long report line from the egress proxy was dropped");
        pending.clear();
    }
}
