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
use crate::protocol::assessor::{Assessed, TrustLevel};
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{ErrorCode, ErrorInfo, ExecResult, Status};
use crate::protocol::interpreter::{host_of_session, SessionAction};
use crate::protocol::scheduler::{Scheduled, SessionList};
use crate::protocol::subjects::wildcard;
use crate::protocol::supervisor::HostLoad;
use crate::protocol::{decode, now_ms, Envelope, Subject};
use crate::shutdown::Shutdown;

/// Jobs this Scheduler considers at once: more than one, so that while one client's jobs
/// wait for room, another client's are seen and can be given the next free slot (the
/// fair-share rule in `placement`). The pull loop asks for no more than it holds, so a
/// job waiting here is always kept from redelivery by in-progress acks.
const HELD_AT_ONCE: usize = 64;
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
    let lists = env.bus.subscribe(wildcard::session_list_all()).await?;
    tokio::spawn(answer_session_lists(state.clone(), lists));
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

/// Answers each client's `session.list` request with its open sessions (the server lets a
/// client ask only under its own name).
async fn answer_session_lists(state: Arc<State>, mut asks: async_nats::Subscriber) {
    let mut shutdown = state.shutdown.clone();
    loop {
        let message = tokio::select! {
            Some(message) = asks.next() => message,
            _ = shutdown.wait() => return,
            else => return,
        };
        let (Ok(Subject::SessionList { client }), Some(reply)) =
            (Subject::parse(&message.subject), message.reply.as_ref())
        else {
            continue;
        };
        let policy = &state.settings.scheduler;
        let sessions = state.lock_capacity().sessions_of(&client, policy, now_ms());
        let answer = Envelope::new("", now_ms(), SessionList { sessions });
        if let Err(error) = state.bus.reply(reply, &answer).await {
            tracing::warn!(%error, "cannot answer a session list");
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
        let session = job.interpreter.as_ref().and_then(|i| i.session.clone());
        match session {
            Some(SessionAction::Open) => {
                if let Err(error) = self.may_open_session(job.trust, &request.client) {
                    let result = ExecResult::rejected(&request.request_id, error);
                    return settle(self.reporter.finish(&request, result).await, NAME);
                }
                // The session's CPU budget covers all its cells; the deadline stays per cell.
                let level_limits = self.settings.limits.for_trust(job.trust);
                wanted.cpu_time_ms = level_limits.session_cpu_time_ms;
            }
            Some(SessionAction::Cell(id) | SessionAction::Close(id)) => {
                let outcome = self.to_session_host(&envelope, &request, &id, wanted).await;
                return settle(outcome, NAME);
            }
            None => {}
        }
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

    /// Whether `client` may open one more session at `trust`.
    fn may_open_session(&self, trust: TrustLevel, client: &str) -> Result<(), ErrorInfo> {
        let allowed = self.settings.limits.for_trust(trust).sessions_per_client as usize;
        let policy = &self.settings.scheduler;
        let open = self
            .lock_capacity()
            .sessions_of(client, policy, now_ms())
            .len();
        if open < allowed {
            return Ok(());
        }
        Err(ErrorInfo::new(
            ErrorCode::SessionLimit,
            format!(
                "client {client:?} has {open} sessions open; trust level {} allows {allowed} (close one with `cordon session close`)",
                trust.as_str()
            ),
        ))
    }

    /// A cell of an open session goes to the host holding the session, whatever its load
    /// (the session already holds its memory there); a host that is gone lost the session.
    async fn to_session_host(
        &self,
        envelope: &Envelope<Assessed>,
        request: &RequestRef,
        session: &str,
        limits: crate::protocol::scheduler::Limits,
    ) -> Result<(), BusError> {
        let host = host_of_session(session).unwrap_or_default().to_string();
        let live = self
            .lock_capacity()
            .host_is_live(&host, &self.settings.scheduler, now_ms());
        if live {
            return self.dispatch(envelope, request, host, limits).await;
        }
        let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
        result.error = Some(ErrorInfo::new(
            ErrorCode::SessionLost,
            format!("session {session} was lost with its host {host:?}, which no longer reports"),
        ));
        result.assessment = Some(envelope.body.assessment.clone());
        self.reporter.finish(request, result).await
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
