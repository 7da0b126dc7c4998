//! The actor contract, below every actor: what an actor gets (`ActorEnv`), how it fails
//! (`ActorError`), the five roles and their names (`Role`, the one spelling of each), and
//! `task_actor!`, the actix shell every actor module declares itself with. Actors import
//! this, the protocol, the bus, config and the neutral helpers, never one another;
//! `node` (composition) starts them.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use actix::{Actor, ActorContext, ActorFutureExt, AsyncContext};
use tokio::sync::mpsc;

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
    pub const fn name(&self) -> &'static str {
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
    /// The env of the actors of one process: `failed` hears an actor's failure; the node
    /// waits until every clone of `finished` is dropped.
    pub(crate) fn new(
        bus: Bus,
        settings: Arc<Settings>,
        shutdown: Shutdown,
        (failed, finished): (mpsc::Sender<String>, mpsc::Sender<()>),
    ) -> ActorEnv {
        ActorEnv {
            bus,
            settings,
            shutdown,
            failed,
            _finished: finished,
        }
    }

    /// The same env on another connection (each actor has its own).
    pub(crate) fn with_bus(&self, bus: Bus) -> ActorEnv {
        ActorEnv {
            bus,
            ..self.clone()
        }
    }

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
            env: $crate::actor::ActorEnv,
        }

        impl $name {
            pub fn new(env: $crate::actor::ActorEnv) -> $name {
                $name { env }
            }
        }

        impl actix::Actor for $name {
            type Context = actix::Context<Self>;

            fn started(&mut self, ctx: &mut Self::Context) {
                $crate::actor::spawn_actor_task(ctx, $label, &self.env, $run(self.env.clone()));
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
