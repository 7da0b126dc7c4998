//! The Scheduler actor: pulls `Assessed` jobs from `cordon.v1.exec.assessed`, places each on
//! a host (from the `HostLoad` reports on `cordon.v1.host.load.*`) and publishes `Scheduled`
//! on `cordon.v1.exec.scheduled.<host>`. A job that fits nowhere stays unacknowledged (held
//! in the queue, with in-progress acks) until capacity frees. Capacity is soft state, rebuilt
//! from the reports within a second of a restart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;

use super::placement::{Capacity, Wanted};
use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::reporter::{settle, Reporter, RequestRef};
use crate::bus::streams::StreamKind;
use crate::bus::{run_pull_loop, Bus, BusError, Disposition, Incoming};
use crate::config::Settings;
use crate::job_limits::{granted_network, requested_limits};
use crate::protocol::assessor::Assessed;
use crate::protocol::audit::AuditRecord;
use crate::protocol::scheduler::Scheduled;
use crate::protocol::subjects::wildcard;
use crate::protocol::supervisor::HostLoad;
use crate::protocol::{decode, now_ms, Envelope, Subject};
use crate::shutdown::Shutdown;

/// Jobs this Scheduler considers at once. One: with more (so that a second client's job
/// is seen while the first client's wait), jobs stalled after a member of a NATS cluster
/// restarted (tests/bus_cluster.rs), a cause not found yet. The fair-share rule in
/// `placement` then only decides between schedulers' jobs.
const HELD_AT_ONCE: usize = 1;
const NAME: &str = Role::Scheduler.name();

crate::actor::task_actor!(
    /// The Scheduler as an actix actor: its life is the pull loop below.
    Scheduler,
    NAME,
    run
);

struct State {
    bus: Bus,
    settings: Arc<Settings>,
    reporter: Reporter,
    capacity: Mutex<Capacity>,
    shutdown: Shutdown,
}

async fn run(env: ActorEnv) -> Result<(), ActorError> {
    let state = Arc::new(State {
        bus: env.bus.clone(),
        settings: env.settings.clone(),
        reporter: Reporter::new(env.bus.clone(), NAME, &env.settings.node.host_id),
        capacity: Mutex::new(Capacity::default()),
        shutdown: env.shutdown.clone(),
    });
    let loads = env.bus.subscribe(wildcard::host_load_all()).await?;
    let results = env.bus.subscribe(wildcard::exec_result_all()).await?;
    tokio::spawn(follow_loads(state.clone(), loads));
    tokio::spawn(follow_results(state.clone(), results));
    let consumer = env
        .bus
        .durable_consumer(StreamKind::Assessed, NAME, None)
        .await?;
    run_pull_loop(
        consumer,
        (NAME, &state.reporter),
        HELD_AT_ONCE,
        env.progress_interval(),
        env.shutdown.clone(),
        |message| {
            let state = state.clone();
            async move { state.handle(message).await }
        },
    )
    .await?;
    Ok(())
}

/// Keeps the latest load report of every host.
async fn follow_loads(state: Arc<State>, mut loads: async_nats::Subscriber) {
    let mut shutdown = state.shutdown.clone();
    loop {
        let message = tokio::select! {
            Some(message) = loads.next() => message,
            _ = shutdown.wait() => return,
            else => return,
        };
        match decode::<HostLoad>(&message.payload) {
            Ok(envelope) => state.lock_capacity().record_load(envelope.body, now_ms()),
            Err(error) => {
                tracing::warn!(%error, subject = %message.subject, "ignoring bad load report")
            }
        }
    }
}

/// Releases the reservation of every job that ended.
async fn follow_results(state: Arc<State>, mut results: async_nats::Subscriber) {
    let mut shutdown = state.shutdown.clone();
    loop {
        let message = tokio::select! {
            Some(message) = results.next() => message,
            _ = shutdown.wait() => return,
            else => return,
        };
        if let Ok(Subject::ExecResult { request_id, .. }) = Subject::parse(&message.subject) {
            state.lock_capacity().release(&request_id);
        }
    }
}

impl State {
    fn lock_capacity(&self) -> std::sync::MutexGuard<'_, Capacity> {
        // A poisoned lock only means another task panicked, which ends the process anyway.
        self.capacity
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn handle(&self, message: Incoming) -> Disposition {
        let (envelope, request) = match self.reporter.receive::<Assessed>(&message).await {
            Ok(opened) => opened,
            Err(disposition) => return disposition,
        };
        let job = &envelope.body.job;
        let level = envelope.body.assessment.level;
        let mut wanted = requested_limits(
            &self.settings,
            job.trust,
            level,
            job.code.len() as u64,
            job.timeout_ms,
        );
        wanted.network = granted_network(&self.settings, job.network, level);
        let job = Wanted {
            request_id: &request.request_id,
            client: &request.client,
            limits: &wanted,
        };
        let Some((host, limits)) = self.wait_for_room(&job).await else {
            // Shutting down while holding it: let another scheduler take it now.
            return Disposition::Retry(Duration::ZERO);
        };
        let outcome = self.dispatch(&envelope, &request, host, limits).await;
        if outcome.is_err() {
            self.lock_capacity().release(&request.request_id);
        }
        settle(outcome, NAME)
    }

    /// Holds the job until some host has room for it (and its client is within its fair
    /// share while others wait); `None` if shutdown comes first.
    async fn wait_for_room(
        &self,
        job: &Wanted<'_>,
    ) -> Option<(String, crate::protocol::scheduler::Limits)> {
        let request_id = job.request_id;
        let policy = &self.settings.scheduler;
        let retry = Duration::from_millis(policy.hold_retry_ms.max(10));
        let mut logged = false;
        loop {
            if let Some(placed) = self.lock_capacity().place(job, policy, now_ms()) {
                return Some(placed);
            }
            if !logged {
                tracing::info!(request_id, "no host has room; holding the job in the queue");
                logged = true;
            }
            if self.shutdown.is_triggered() {
                return None;
            }
            tokio::time::sleep(retry).await;
        }
    }

    async fn dispatch(
        &self,
        envelope: &Envelope<Assessed>,
        request: &RequestRef,
        host: String,
        limits: crate::protocol::scheduler::Limits,
    ) -> Result<(), BusError> {
        let job = envelope.body.job.clone();
        let record = AuditRecord::Scheduled {
            limits: limits.clone(),
            host: host.clone(),
            trust: job.trust,
        };
        self.reporter.record(request, None, record).await?;
        let scheduled = envelope.reply(Scheduled {
            job,
            assessment: envelope.body.assessment.clone(),
            limits,
            host: host.clone(),
        });
        let msg_id = format!("{}.scheduled", request.request_id);
        let trace = request.trace.child(NAME);
        self.bus
            .publish_durable(
                &Subject::ExecScheduled { host },
                &msg_id,
                &trace,
                &scheduled,
            )
            .await
    }
}
