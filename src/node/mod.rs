//! Starts actors in one process: `cordon up` (all five, embedded nats-server by default)
//! and `cordon serve --role X` (one). Each actor is an actix actor whose whole life is one
//! async task; an actor that fails ends the process with an error so a process manager
//! restarts it (durable state is in JetStream, so nothing is lost).

pub mod embedded;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, ActorContext, ActorFutureExt, AsyncContext};
use tokio::sync::mpsc;

use crate::bus::dead_letter::watch_dead_letters;
use crate::bus::report::Reporter;
use crate::bus::{Bus, BusError};
use crate::config::Settings;
use crate::shutdown::Shutdown;

/// One of the five actors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    Assessor,
    Scheduler,
    Supervisor,
    Monitor,
    Audit,
}

impl Role {
    /// The role's name in settings (`nats.roles.<name>`) and in the bus configuration.
    pub fn name(&self) -> &'static str {
        match self {
            Role::Assessor => "assessor",
            Role::Scheduler => "scheduler",
            Role::Supervisor => "supervisor",
            Role::Monitor => "monitor",
            Role::Audit => "audit",
        }
    }

    pub const ALL: [Role; 5] = [
        Role::Audit,
        Role::Assessor,
        Role::Scheduler,
        Role::Supervisor,
        Role::Monitor,
    ];
}

/// Why an actor stopped working.
#[derive(Debug, thiserror::Error)]
pub enum ActorError {
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("{0}")]
    Fatal(String),
}

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

/// What every actor gets: the bus, the settings, the shutdown signal, and the means to
/// report that it failed and that it finished.
#[derive(Clone)]
pub struct ActorEnv {
    pub bus: Bus,
    pub settings: Arc<Settings>,
    pub shutdown: Shutdown,
    failed: mpsc::Sender<String>,
    _finished: mpsc::Sender<()>,
}

impl ActorEnv {
    /// How often a long handler tells the server it is still working.
    pub fn progress_interval(&self) -> Duration {
        Duration::from_secs((self.settings.nats.ack_wait_secs / 3).max(1))
    }
}

/// Declares an actor: an actix actor named `$name` whose whole life is `$run(env)`, the
/// module's pull loop. Every actor module uses it, so their shells cannot drift apart.
macro_rules! task_actor {
    ($(#[$doc:meta])* $name:ident, $label:expr, $run:ident) => {
        $(#[$doc])*
        pub struct $name {
            env: $crate::node::ActorEnv,
        }

        impl $name {
            pub fn new(env: $crate::node::ActorEnv) -> $name {
                $name { env }
            }
        }

        impl actix::Actor for $name {
            type Context = actix::Context<Self>;

            fn started(&mut self, ctx: &mut Self::Context) {
                $crate::node::spawn_actor_task(ctx, $label, &self.env, $run(self.env.clone()));
            }
        }
    };
}
pub(crate) use task_actor;

/// Runs `task` as the life of an actix actor; its failure is reported to the node.
pub fn spawn_actor_task<A, F>(
    ctx: &mut actix::Context<A>,
    name: &'static str,
    env: &ActorEnv,
    task: F,
) where
    A: Actor<Context = actix::Context<A>>,
    F: Future<Output = Result<(), ActorError>> + 'static,
{
    let env = env.clone();
    let life = async move {
        match task.await {
            Ok(()) => tracing::info!(actor = name, "stopped"),
            Err(error) => {
                tracing::error!(actor = name, %error, "actor failed");
                let _ = env.failed.try_send(format!("{name}: {error}"));
            }
        }
        drop(env);
    };
    ctx.spawn(actix::fut::wrap_future::<_, A>(life).map(|_, _, ctx| ctx.stop()));
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
    let env = ActorEnv {
        bus,
        settings,
        shutdown: shutdown.clone(),
        failed,
        _finished: finished,
    };
    for (role, bus) in &buses {
        start_role(
            *role,
            ActorEnv {
                bus: bus.clone(),
                ..env.clone()
            },
        );
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
        let reporter = Reporter::new(audit_bus.clone(), "audit", &env.settings.node.host_id);
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
