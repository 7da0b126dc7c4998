//! Composition: which actors run in this process (`cordon up`: all five, with an embedded
//! nats-server by default; `cordon serve --role X`: the ones named), each on its own NATS
//! connection; the data-dir lock; the metrics endpoint. The actor contract itself (env,
//! error, roles, the task-actor helper) is `crate::actor`, below every actor; this module
//! sits above them all. An actor that fails ends the process with an error so a process
//! manager restarts it (durable state is in JetStream, so nothing is lost).

pub mod embedded;
pub mod embedded_auth;
pub mod local;

use std::sync::Arc;
use std::time::Duration;

use actix::Actor;
use tokio::sync::mpsc;

use crate::actor::{ActorEnv, Role};

use crate::bus::dead_letter::watch_dead_letters;
use crate::bus::reporter::Reporter;
use crate::bus::{Bus, BusError};
use crate::config::Settings;
use crate::shutdown::Shutdown;

/// Why a node could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("actor {0}")]
    ActorFailed(String),
    #[error("embedded nats-server: {0}")]
    Embedded(String),
    #[error("metrics endpoint: {0}")]
    Metrics(String),
    #[error("another cordon is running with the data dir {dir}: talk to it with --nats URL, or choose another --data-dir")]
    DataDirInUse { dir: String },
    #[error("cannot lock the data dir {dir}: {source}")]
    DataDirLock { dir: String, source: std::io::Error },
}

/// Holds the data dir for this process: one `cordon up` or embedded `cordon exec` per data
/// dir, so two of them never share an audit log or reap each other's sandboxes.
pub fn lock_data_dir(dir: &std::path::Path) -> Result<std::fs::File, NodeError> {
    let fail = |source| NodeError::DataDirLock {
        dir: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(fail)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("node.lock"))
        .map_err(fail)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(NodeError::DataDirInUse {
            dir: dir.display().to_string(),
        }),
        Err(std::fs::TryLockError::Error(source)) => Err(fail(source)),
    }
}

/// Connects each role to NATS with its own credentials (`nats.roles.<role>`, else
/// `nats.auth`), declares the streams, starts `roles` and runs until `shutdown` fires (then
/// waits for the actors to finish) or an actor fails.
pub async fn run_roles(
    settings: Arc<Settings>,
    roles: &[Role],
    nats_url: &str,
    shutdown: Shutdown,
) -> Result<(), NodeError> {
    let mut buses = Vec::with_capacity(roles.len());
    for role in roles {
        buses.push((*role, connect_role(&settings, *role, nats_url).await?));
    }
    // A permissioned server lets the audit role create streams; the others wait for them.
    // This connection also serves metrics.
    let lead = buses.iter().find(|(role, _)| *role == Role::Audit);
    let Some((_, bus)) = lead.or(buses.first()).cloned() else {
        return Ok(());
    };
    bus.ensure_streams().await?;
    let (failed, mut failures) = mpsc::channel(8);
    let (finished, mut all_finished) = mpsc::channel(1);
    let env = ActorEnv::new(bus, settings, shutdown.clone(), (failed, finished));
    for (role, bus) in &buses {
        start_role(*role, env.with_bus(bus.clone()));
    }
    if !env.settings.metrics.listen.is_empty() {
        let address = crate::metrics::start(&env.bus, &env.settings.metrics.listen, &shutdown)
            .await
            .map_err(|e| {
                NodeError::Metrics(format!(
                    "cannot listen on {}: {e}",
                    env.settings.metrics.listen
                ))
            })?;
        tracing::info!(%address, "serving metrics at http://{address}/metrics");
    }
    if let Some((_, audit_bus)) = buses.iter().find(|(role, _)| *role == Role::Audit) {
        let audit = Role::Audit.name();
        let reporter = Reporter::new(audit_bus.clone(), audit, &env.settings.node.host_id);
        tokio::spawn(watch_dead_letters(
            audit_bus.clone(),
            reporter,
            shutdown.clone(),
        ));
    }
    drop(env);
    let mut shutdown = shutdown;
    let outcome = tokio::select! {
        _ = shutdown.wait() => Ok(()),
        Some(failure) = failures.recv() => Err(NodeError::ActorFailed(failure)),
    };
    // Every actor holds a clone of `_finished`; the channel closes when the last one ends.
    let _ = tokio::time::timeout(Duration::from_secs(15), all_finished.recv()).await;
    outcome
}

/// One actor's own connection, named `cordon-<host>-<role>`.
async fn connect_role(settings: &Settings, role: Role, url: &str) -> Result<Bus, NodeError> {
    let name = format!("cordon-{}-{}", settings.node.host_id, role.name());
    let credentials = settings.nats.credentials_of(role.name());
    let patience = crate::bus::Patience::WaitForServer;
    Ok(Bus::connect_as(url, &name, &settings.nats, credentials, patience).await?)
}

fn start_role(role: Role, env: ActorEnv) {
    tracing::info!(?role, host = %env.settings.node.host_id, "starting actor");
    match role {
        Role::Assessor => {
            crate::assessor::actor::Assessor::new(env).start();
        }
        Role::Scheduler => {
            crate::scheduler::actor::Scheduler::new(env).start();
        }
        Role::Monitor => {
            crate::monitor::actor::ResourceMonitor::new(env).start();
        }
        Role::Supervisor => {
            crate::supervisor::actor::ContainerSupervisor::new(env).start();
        }
        Role::Audit => {
            crate::audit::actor::AuditChain::new(env).start();
        }
    }
}
