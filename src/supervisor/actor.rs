//! The ContainerSupervisor actor: pulls `Scheduled` jobs for its host from
//! `cordon.v1.exec.scheduled.<host>`, runs each in a fresh sandbox, and ends the request
//! with its result (through the audit log). Around each run it reports lifecycle events to
//! the audit log, tells the ResourceMonitor (`container.started` / `container.exited`),
//! obeys its `KillOrder`s, publishes `ViolationEvent`s, and reports its load every second
//! on `cordon.v1.host.load.<host>`. On start it removes sandboxes a dead predecessor left,
//! then keeps a warm pool (`[pool]`): a job whose limits are exactly a pooled level's takes
//! a warm sandbox, any other starts cold. The pool only uses room its jobs leave, and is
//! closed (every warm sandbox removed) before the actor ends. A job granted
//! `network: allowlist` always starts cold on its own network behind the host's egress
//! proxy (`proxy::Egress`); each connection attempt it makes is audited, and each denial
//! is also a `network` violation (the connection is refused; the program runs on).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::Docker;
use futures::StreamExt;
use tokio::sync::{mpsc, watch, Notify};

use super::pool::{pool_classes, pool_room, Held};
use super::reaper::{reap_orphans, remove_own};
use super::result::result_of_run;
use super::runner::{cell_frame, OutputCaps};
use super::sessions::Sessions;
use super::spec::LiveOutput;
use super::uids::{check_range, range_of, UidRange};
use super::CellLimits;
use super::{run_program, Lifecycle, Packages, Program, SandboxError, SandboxOutcome, SandboxSpec};
use super::{WarmContainer, WarmPool};
use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::reporter::{settle, Reporter, RequestRef};
use crate::bus::streams::StreamKind;
use crate::bus::{run_pull_loop, Bus, BusError, Disposition, Incoming};
use crate::config::Settings;
use crate::docker::HostCapacity;
use crate::job_limits::clamped_to_ceiling;
use crate::owner::{Instance, Liveness};
use crate::protocol::assessor::Job;
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{
    ErrorCode, ErrorInfo, ExecResult, OutputChunk, Status, Violation, ViolationKind,
};
use crate::protocol::interpreter::NetworkDenial;
use crate::protocol::monitor::{KillOrder, UsageSample};
use crate::protocol::scheduler::Scheduled;
use crate::protocol::scheduler::{Limits, Network};
use crate::protocol::supervisor::{
    ContainerExited, ContainerStarted, HostLoad, RunningJob, ViolationEvent,
};
use crate::protocol::{decode, Envelope, Subject};
use crate::proxy::control::Attempt;
use crate::proxy::{Egress, Lease};

mod cells;

const NAME: &str = Role::Supervisor.name();
/// How often a supervisor looks for sandboxes whose owner died since it started.
const ORPHAN_SWEEP: Duration = Duration::from_secs(5);
/// How long to wait for the monitor's last sample after a sandbox ends.
const LAST_SAMPLE_WAIT: Duration = Duration::from_millis(500);
/// Output chunks waiting to be published; past it a chunk is dropped from the live
/// stream (never from the result).
const LIVE_QUEUE: usize = 256;
/// Refused connections listed in a result (every one is in the audit log).
const MAX_DENIALS_LISTED: usize = 32;

crate::actor::task_actor!(
    /// The ContainerSupervisor as an actix actor: its life is the pull loop below.
    ContainerSupervisor,
    NAME,
    run
);

/// A job running on this host: what it holds and how to kill it.
struct Running {
    cpus: f64,
    memory_bytes: u64,
    client: String,
    kill: mpsc::Sender<Violation>,
}

struct State {
    bus: Bus,
    docker: Docker,
    settings: Arc<Settings>,
    reporter: Reporter,
    host: String,
    capacity: HostCapacity,
    max_jobs: u32,
    running: Mutex<HashMap<String, Running>>,
    load_changed: Notify,
    /// `None` when no trust level is pooled.
    pool: Option<WarmPool>,
    /// The host's egress proxy, started on the first allowlist job.
    egress: Egress,
    /// This process as the owner of its sandboxes.
    instance: Instance,
    /// Where each sandbox's own uid comes from (`None`: a fixed user).
    uids: Option<UidRange>,
    /// The sessions this instance holds.
    sessions: Sessions,
    shutdown: crate::shutdown::Shutdown,
}

async fn run(env: ActorEnv) -> Result<(), ActorError> {
    let fatal = |e: String| ActorError::Fatal(e);
    crate::proxy::check_settings(&env.settings.network)
        .map_err(|why| fatal(format!("setting network is invalid: {why}")))?;
    let docker = crate::docker::connect()
        .await
        .map_err(|e| fatal(e.to_string()))?;
    let host = env.settings.node.host_id.clone();
    let owner_dir = env.settings.node.owner_dir();
    let instance = Instance::claim(&owner_dir).map_err(|e| fatal(e.to_string()))?;
    tracing::info!(instance = instance.id(), dir = %owner_dir.display(), "supervisor instance");
    reap_orphans_of_host(&docker, &host, &instance, true).await?;
    let capacity = crate::docker::host_capacity(&docker)
        .await
        .map_err(|e| fatal(e.to_string()))?;
    let max_jobs = match env.settings.scheduler.max_jobs {
        0 => (capacity.cpus * 2.0).ceil().max(1.0) as u32,
        n => n,
    };
    for runtime in env.settings.sandbox.runtimes_in_use() {
        crate::docker::runtime::check_registered(&docker, runtime)
            .await
            .map_err(|e| fatal(format!("[sandbox] {e}")))?;
    }
    let uids = range_of(&env.settings.sandbox, &owner_dir);
    if let Some(range) = &uids {
        check_range(range.first, range.count).map_err(|e| fatal(format!("[sandbox] {e}")))?;
    }
    let classes = pool_classes(&env.settings, &host, (instance.tag(), &uids));
    let pool = (!classes.is_empty())
        .then(|| WarmPool::start(&docker, classes, pool_room(&env.settings, capacity)));
    let state = Arc::new(State {
        bus: env.bus.clone(),
        docker: docker.clone(),
        settings: env.settings.clone(),
        reporter: Reporter::new(env.bus.clone(), NAME, &host),
        host: host.clone(),
        capacity,
        max_jobs,
        running: Mutex::default(),
        load_changed: Notify::new(),
        pool,
        egress: Egress::new(
            &docker,
            (&host, instance.tag()),
            &env.settings.sandbox.image,
            &env.settings.network,
        ),
        instance,
        uids,
        sessions: Sessions::default(),
        shutdown: env.shutdown.clone(),
    });
    let kills = env
        .bus
        .subscribe(Subject::ContainerKill { host: host.clone() }.to_subject())
        .await?;
    tokio::spawn(route_kills(state.clone(), kills, env.shutdown.clone()));
    tokio::spawn(report_load(state.clone(), env.shutdown.clone()));
    tokio::spawn(sweep_orphans(state.clone(), env.shutdown.clone()));
    let filter = Subject::ExecScheduled { host: host.clone() }.to_subject();
    let consumer = env
        .bus
        .durable_consumer(
            StreamKind::Scheduled,
            &format!("supervisor-{host}"),
            Some(filter),
        )
        .await?;
    let pulled = run_pull_loop(
        consumer,
        (NAME, &state.reporter),
        max_jobs as usize,
        env.progress_interval(),
        env.shutdown.clone(),
        |message| {
            let state = state.clone();
            async move { state.handle(message).await }
        },
    )
    .await;
    if let Some(pool) = &state.pool {
        pool.close().await;
    }
    // Sandboxes of unfinished jobs are removed by their guards; make sure before leaving.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let instance = &state.instance;
    match remove_own(&docker, &host, instance).await {
        // Nothing of this instance is left: no later reaper needs its lock file.
        Ok(_) => instance.retire(),
        Err(error) => tracing::warn!(%error, "final clean-up of sandboxes failed"),
    }
    reap_networks(&docker, &host, |l| {
        instance.liveness_of(l) == Liveness::Mine
    })
    .await;
    pulled.map_err(ActorError::from)
}

/// Removes what supervisors that are provably gone left on this host (containers, then
/// networks), and says what it left because its owner's liveness cannot be told. At start
/// and every `ORPHAN_SWEEP`.
async fn reap_orphans_of_host(
    docker: &Docker,
    host: &str,
    instance: &Instance,
    at_start: bool,
) -> Result<(), ActorError> {
    let reaped = reap_orphans(docker, host, instance)
        .await
        .map_err(|e| ActorError::Fatal(e.to_string()))?;
    if !reaped.removed.is_empty() {
        tracing::warn!(
            count = reaped.removed.len(),
            owners = ?reaped.gone_owners,
            "removed sandboxes whose supervisor is gone"
        );
    }
    if at_start && !reaped.unknown.is_empty() {
        tracing::warn!(
            containers = ?reaped.unknown,
            "left sandboxes whose owner cannot be told alive or gone (its lock is not in this \
             node.owner_dir); remove them by hand if no cordon made them"
        );
    }
    let gone = |l: &HashMap<String, String>| matches!(instance.liveness_of(l), Liveness::Gone(_));
    reap_networks(docker, host, gone).await;
    // A dead owner's lock file stays: a create it had in flight may still land, and only
    // the free lock proves that container an orphan too (/run is emptied at boot).
    Ok(())
}

/// Every `ORPHAN_SWEEP`, removes what a supervisor of this host that died since left
/// (a peer beside this one, an instance replaced in a rolling restart): its sandboxes run
/// unwatched until then.
async fn sweep_orphans(state: Arc<State>, mut shutdown: crate::shutdown::Shutdown) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(ORPHAN_SWEEP) => {},
            _ = shutdown.wait() => return,
        }
        let (docker, host) = (&state.docker, &state.host);
        if let Err(error) = reap_orphans_of_host(docker, host, &state.instance, false).await {
            tracing::warn!(%error, "cannot sweep orphaned sandboxes");
        }
    }
}

/// Removes the request networks of this host that `pick` chooses (their containers must
/// be gone first).
async fn reap_networks(
    docker: &Docker,
    host: &str,
    pick: impl Fn(&HashMap<String, String>) -> bool,
) {
    match crate::proxy::network::reap_networks(docker, host, pick).await {
        Ok(removed) if !removed.is_empty() => {
            tracing::warn!(?removed, "removed request networks left behind")
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "cannot remove leftover request networks"),
    }
}

/// Delivers the monitor's kill orders to the runs they name.
async fn route_kills(
    state: Arc<State>,
    mut orders: async_nats::Subscriber,
    mut shutdown: crate::shutdown::Shutdown,
) {
    loop {
        let message = tokio::select! {
            Some(message) = orders.next() => message,
            _ = shutdown.wait() => return,
            else => return,
        };
        let Ok(envelope) = decode::<KillOrder>(&message.payload) else {
            tracing::warn!(subject = %message.subject, "ignoring bad kill order");
            continue;
        };
        let kill = state
            .lock_running()
            .get(&envelope.request_id)
            .map(|r| r.kill.clone());
        match kill {
            Some(kill) => {
                let _ = kill.try_send(envelope.body.violation);
            }
            None => {
                state
                    .sessions
                    .kill(&envelope.request_id, envelope.body.violation);
            }
        }
    }
}

/// Publishes this host's load every second and whenever it changes.
async fn report_load(state: Arc<State>, mut shutdown: crate::shutdown::Shutdown) {
    loop {
        let load = state.current_load();
        let envelope = Envelope::new("", 0, load);
        let trace = crate::bus::trace::TraceContext::for_request(&state.host);
        if let Err(error) = state
            .bus
            .publish(
                &Subject::HostLoad {
                    host: state.host.clone(),
                },
                &trace,
                &envelope,
            )
            .await
        {
            tracing::warn!(%error, "cannot publish host load");
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(1)) => {},
            _ = state.load_changed.notified() => {},
            _ = shutdown.wait() => return,
        }
    }
}

impl State {
    fn lock_running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn current_load(&self) -> HostLoad {
        let running = self.lock_running();
        HostLoad {
            host: self.host.clone(),
            instance: self.instance.id().to_string(),
            cpus_total: self.capacity.cpus,
            memory_total_bytes: self.capacity.memory_bytes,
            max_jobs: self.max_jobs,
            running: running
                .iter()
                .map(|(id, r)| RunningJob {
                    request_id: id.clone(),
                    cpus: r.cpus,
                    memory_bytes: r.memory_bytes,
                    client: r.client.clone(),
                })
                .collect(),
            sessions: self.sessions.listed(),
        }
    }

    async fn handle(self: &Arc<Self>, message: Incoming) -> Disposition {
        fail::fail_point!("supervisor::handle");
        let (mut envelope, request) = match self.reporter.receive::<Scheduled>(&message).await {
            Ok(opened) => opened,
            Err(disposition) => return disposition,
        };
        // Whatever the message says, never more than cordon would ever grant.
        envelope.body.limits = clamped_to_ceiling(&self.settings, &envelope.body.limits);
        let (kill, kills) = mpsc::channel(4);
        let limits = &envelope.body.limits;
        let running = Running {
            cpus: limits.cpus,
            memory_bytes: limits.memory_bytes,
            client: request.client.clone(),
            kill,
        };
        let spec = match self.sandbox_spec(&request, &envelope.body) {
            Ok(spec) => spec,
            Err(result) => return settle(self.reporter.finish(&request, *result).await, NAME),
        };
        let session = envelope
            .body
            .job
            .interpreter
            .as_ref()
            .and_then(|i| i.session.clone());
        if let Some(action) = session {
            let outcome = self
                .run_session_job(&request, envelope.body, spec, action)
                .await;
            return settle(outcome, NAME);
        }
        // Taken before the job counts as held, so its own warm sandbox is not evicted.
        let warm = self.pool.as_ref().and_then(|pool| pool.take(&spec));
        self.lock_running()
            .insert(request.request_id.clone(), running);
        self.jobs_changed();
        let outcome = self
            .run_job(&request, envelope.body, (spec, warm), kills)
            .await;
        self.lock_running().remove(&request.request_id);
        self.jobs_changed();
        settle(outcome, NAME)
    }

    /// The running jobs changed: tell the Scheduler (load report) and the pool.
    fn jobs_changed(&self) {
        self.load_changed.notify_one();
        if let Some(pool) = &self.pool {
            let held = self
                .lock_running()
                .values()
                .fold(Held::default(), |held, r| held.plus(r.cpus, r.memory_bytes));
            pool.jobs_changed(held);
        }
    }

    /// Runs one job and publishes everything it caused, ending with its result.
    async fn run_job(
        &self,
        request: &RequestRef,
        job: Scheduled,
        (mut spec, warm): (SandboxSpec, Option<WarmContainer>),
        kills: mpsc::Receiver<Violation>,
    ) -> Result<(), BusError> {
        if let Some(refused) = packages_without_network(request, &job) {
            return self.reporter.finish(request, refused).await;
        }
        let mut lease = match self.open_egress(request, &job, &mut spec).await {
            Ok(lease) => lease,
            Err(result) => return self.reporter.finish(request, *result).await,
        };
        let attempts = lease
            .as_mut()
            .and_then(|l| Some((l.network.clone(), l.take_attempts()?)));
        // The sandbox running now, for violation records (set when one is created).
        let (container_seen, container) = watch::channel(String::new());
        let violations = self.violations(request, container);
        let attempts = attempts.map(|(tag, attempts)| {
            tokio::spawn(forward_attempts(violations.clone(), tag, attempts))
        });
        let usage_subject = Subject::ContainerUsage {
            request_id: request.request_id.clone(),
        };
        let usage = self.bus.subscribe(usage_subject.to_subject()).await?;
        let (lifecycle, events) = mpsc::channel(8);
        let forwarder = tokio::spawn(forward_lifecycle(
            self.reporter.clone(),
            self.bus.clone(),
            self.host.clone(),
            request.clone(),
            job.limits.clone(),
            (events, container_seen),
        ));
        let (live, publishing) = follow_live(&self.bus, request);
        spec.live = Some(live);
        let outcome = self
            .run_program(request, (&spec, warm), &job.job, kills, lifecycle)
            .await;
        spec.live = None;
        finish_live(publishing).await;
        close_egress(lease).await;
        let denied = match attempts {
            Some(attempts) => attempts.await.unwrap_or(Ok(Vec::new()))?,
            None => Vec::new(),
        };
        let forwarded = forwarder.await.unwrap_or(Ok(()));
        forwarded?;
        let result = match outcome {
            Ok(mut outcome) => {
                let recorded = outcome.runtime.take();
                let install = outcome.install.take();
                let container = outcome.container_id.clone();
                let usage = last_usage(usage).await;
                let room = self.bus.content_room();
                let judged = (job.assessment, job.limits);
                let mut result = result_of_run(&request.request_id, outcome, usage, judged, room);
                self.record_runtime(request, &container, recorded, &mut result)
                    .await?;
                self.record_install(request, install, &mut result).await?;
                result
            }
            Err(error) => failed_result(&request.request_id, &error),
        };
        let result = ExecResult {
            network_denied: denied,
            ..result
        };
        if let Some(violation) = &result.violation {
            violations.report(violation.clone(), None).await?;
        }
        self.reporter.finish(request, result).await
    }

    /// Runs the program, as the one cell of a runner sandbox. A sandbox lost before the
    /// whole program reached it (a warm one killed while idle, an engine restarting) never
    /// ran it: the job gets one more, cold sandbox, and the audit log shows both. A program
    /// that may have started never runs again.
    async fn run_program(
        &self,
        request: &RequestRef,
        (spec, warm): (&SandboxSpec, Option<WarmContainer>),
        job: &Job,
        kills: mpsc::Receiver<Violation>,
        lifecycle: mpsc::Sender<Lifecycle>,
    ) -> Result<SandboxOutcome, SandboxError> {
        let program = || self.program_of(job, &spec.limits);
        lose_warm_sandbox_when_testing(&self.docker, warm.as_ref()).await;
        let first = run_program(
            &self.docker,
            (warm, spec),
            program(),
            kills,
            lifecycle.clone(),
        )
        .await;
        match &first {
            Ok(outcome) if outcome.lost.is_some() && !outcome.code_delivered => {}
            _ => return first,
        }
        tracing::warn!(request_id = %request.request_id, "sandbox lost before its program arrived; running the job once more");
        let (kill, kills) = mpsc::channel(4);
        if let Some(running) = self.lock_running().get_mut(&request.request_id) {
            running.kill = kill;
        }
        run_program(&self.docker, (None, spec), program(), kills, lifecycle).await
    }

    /// A job as the runner takes it: its code with its files and stdin, under its limits
    /// and the runtime rules of its trust level, killed at its deadline (only a session's
    /// cells are interrupted first). Files come back when the request used the
    /// interpreter's features (files, stdin, packages, `return_files`).
    fn program_of(&self, job: &Job, limits: &Limits) -> Program {
        let input = job.interpreter.clone().unwrap_or_default();
        let caps = match job.interpreter.is_some() {
            true => self.output_caps(),
            false => OutputCaps::NONE,
        };
        let packages = (!input.packages.is_empty()).then(|| Packages {
            requirements: input.packages.clone(),
            index: self.settings.network.package_index.clone(),
        });
        Program {
            frame: cell_frame(&job.code, &input, caps),
            limits: CellLimits {
                files: caps,
                grace: Duration::ZERO,
                ..self.cell_limits(limits, job.trust)
            },
            packages,
        }
    }

    /// For an allowlist job: its own network behind the proxy, named in `spec`. A job that
    /// cannot get one ends `failed` (it never runs with more or less network than granted).
    async fn open_egress(
        &self,
        request: &RequestRef,
        job: &Scheduled,
        spec: &mut SandboxSpec,
    ) -> Result<Option<Lease>, Box<ExecResult>> {
        if job.limits.network != Network::Allowlist {
            return Ok(None);
        }
        match self.egress.open(&request.request_id).await {
            Ok(lease) => {
                spec.egress = Some(super::SandboxEgress {
                    network: lease.network.clone(),
                    proxy_url: lease.proxy_url.clone(),
                    dns_server: lease.proxy_ip.to_string(),
                });
                Ok(Some(lease))
            }
            Err(error) => {
                tracing::error!(request_id = %request.request_id, %error, "no egress for an allowlist job");
                let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
                result.error = Some(ErrorInfo::new(ErrorCode::Docker, error.to_string()));
                result.assessment = Some(job.assessment.clone());
                result.limits = Some(job.limits.clone());
                Err(Box::new(result))
            }
        }
    }

    fn violations(
        &self,
        request: &RequestRef,
        container: watch::Receiver<String>,
    ) -> ViolationReporter {
        ViolationReporter {
            bus: self.bus.clone(),
            reporter: self.reporter.clone(),
            host: self.host.clone(),
            request: request.clone(),
            container,
        }
    }

    /// The sandbox a job gets, in the image it named (resolved with this host's own
    /// `[sandbox.images]`: a name it does not have ends the job `failed` / `image_missing`).
    /// Only the default image can match a warm sandbox, so any other runs cold.
    fn sandbox_spec(
        &self,
        request: &RequestRef,
        job: &Scheduled,
    ) -> Result<SandboxSpec, Box<ExecResult>> {
        let sandbox = &self.settings.sandbox;
        let named = job.job.image.as_deref();
        let Some(image) = sandbox.image_named(named) else {
            let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
            let message = format!(
                "host {} has no image named {:?} in [sandbox.images]",
                self.host,
                named.unwrap_or_default()
            );
            result.error = Some(ErrorInfo::new(ErrorCode::ImageMissing, message));
            result.assessment = Some(job.assessment.clone());
            result.limits = Some(job.limits.clone());
            return Err(Box::new(result));
        };
        Ok(SandboxSpec {
            request_id: request.request_id.clone(),
            host_id: self.host.clone(),
            owner: self.instance.tag().clone(),
            uids: self.uids.clone(),
            image: image.to_string(),
            runtime: sandbox.runtime_for(job.job.trust),
            user: sandbox.user.clone(),
            workdir: sandbox.workdir.clone(),
            limits: job.limits.clone(),
            nofile: self.settings.caps.nofile,
            fsize_bytes: self.settings.caps.fsize_bytes,
            egress: None,
            record_fs_changes: self.settings.sandbox.record_fs_changes,
            packages_dir: job
                .job
                .interpreter
                .as_ref()
                .is_some_and(|i| !i.packages.is_empty()),
            live: None,
        })
    }
}

/// Fault injection for the tests (fail point `supervisor::lose_warm_sandbox`, compiled only
/// with the `failpoints` feature): the warm sandbox a job took dies before its code is fed,
/// as one killed from outside while idle would.
async fn lose_warm_sandbox_when_testing(docker: &Docker, warm: Option<&WarmContainer>) {
    fn armed() -> bool {
        fail::fail_point!("supervisor::lose_warm_sandbox", |_| true);
        false
    }
    if let (true, Some(warm)) = (armed(), warm) {
        super::ending::kill(docker, warm.id()).await;
        super::ending::wait_stopped(docker, warm.id()).await;
    }
}

/// Publishes one request's violations (`events.violation`) and records them, naming the
/// sandbox they happened in.
#[derive(Clone)]
struct ViolationReporter {
    bus: Bus,
    reporter: Reporter,
    host: String,
    request: RequestRef,
    container: watch::Receiver<String>,
}

impl ViolationReporter {
    /// `distinct` separates several violations of one request (network denials).
    async fn report(&self, violation: Violation, distinct: Option<&str>) -> Result<(), BusError> {
        let request = &self.request;
        let container_id = self.container.borrow().clone();
        let event = ViolationEvent {
            host: self.host.clone(),
            container_id: container_id.clone(),
            violation: violation.clone(),
        };
        let envelope = request.envelope(event);
        let msg_id = match distinct {
            Some(extra) => format!("{}.violation.{extra}", request.request_id),
            None => format!("{}.violation", request.request_id),
        };
        self.bus
            .publish_durable(
                &Subject::EventsViolation {
                    client: request.client.clone(),
                },
                &msg_id,
                &request.trace.child(NAME),
                &envelope,
            )
            .await?;
        let record = AuditRecord::Violation {
            container_id,
            violation,
        };
        self.reporter.record(request, distinct, record).await
    }
}

/// Audits each connection attempt of one run (tagged with its network's unique name, so
/// a redelivered job's new run is not taken for a duplicate); a denial is also a
/// `network` violation. Ends when the lease is closed.
async fn forward_attempts(
    audit: ViolationReporter,
    tag: String,
    mut attempts: mpsc::Receiver<Attempt>,
) -> Result<Vec<NetworkDenial>, BusError> {
    let mut number = 0u32;
    let mut denied = Vec::new();
    while let Some(attempt) = attempts.recv().await {
        number += 1;
        let distinct = format!("{tag}-{number}");
        if !attempt.allowed && denied.len() < MAX_DENIALS_LISTED {
            denied.push(NetworkDenial {
                host: attempt.host.clone(),
                reason: attempt.reason.clone(),
            });
        }
        let denial = (!attempt.allowed).then(|| Violation {
            kind: ViolationKind::Network,
            detail: format!(
                "{} {}:{} refused: {}",
                attempt.method, attempt.host, attempt.port, attempt.reason
            ),
        });
        let record = AuditRecord::NetworkConnection {
            method: attempt.method,
            host: attempt.host,
            port: attempt.port,
            address: attempt.address,
            allowed: attempt.allowed,
            reason: attempt.reason,
            bytes_sent: attempt.bytes_sent,
            bytes_received: attempt.bytes_received,
        };
        audit
            .reporter
            .record(&audit.request, Some(&distinct), record)
            .await?;
        if let Some(violation) = denial {
            audit.report(violation, Some(&distinct)).await?;
        }
    }
    Ok(denied)
}

/// Revokes the grant and removes the request's network (after the sandbox is gone).
async fn close_egress(lease: Option<Lease>) {
    if let Some(lease) = lease {
        if let Err(error) = lease.close().await {
            tracing::warn!(%error, "cannot close a request's egress cleanly; reap will finish it");
        }
    }
}

/// Turns lifecycle events into audit records and monitor notices, in order.
async fn forward_lifecycle(
    reporter: Reporter,
    bus: Bus,
    host: String,
    request: RequestRef,
    limits: crate::protocol::scheduler::Limits,
    (mut events, container_seen): (mpsc::Receiver<Lifecycle>, watch::Sender<String>),
) -> Result<(), BusError> {
    let trace = request.trace.child(NAME);
    while let Some(event) = events.recv().await {
        let (container_id, record) = match event {
            Lifecycle::Created {
                container_id,
                image,
                image_id,
                runtime,
            } => (
                {
                    container_seen.send_replace(container_id.clone());
                    container_id.clone()
                },
                AuditRecord::ContainerCreated {
                    container_id,
                    image,
                    image_id,
                    runtime,
                },
            ),
            Lifecycle::Started { container_id } => {
                let started = request.envelope(ContainerStarted {
                    container_id: container_id.clone(),
                    limits: limits.clone(),
                });
                bus.publish(
                    &Subject::ContainerStarted { host: host.clone() },
                    &trace,
                    &started,
                )
                .await?;
                (
                    container_id.clone(),
                    AuditRecord::ContainerStarted { container_id },
                )
            }
            Lifecycle::Exited {
                container_id,
                exit_code,
                oom_killed,
            } => {
                let exited = request.envelope(ContainerExited {
                    container_id: container_id.clone(),
                });
                bus.publish(
                    &Subject::ContainerExited { host: host.clone() },
                    &trace,
                    &exited,
                )
                .await?;
                (
                    container_id.clone(),
                    AuditRecord::ContainerExited {
                        container_id,
                        exit_code,
                        oom_killed,
                    },
                )
            }
            Lifecycle::Removed {
                container_id,
                changes,
            } => (
                container_id.clone(),
                AuditRecord::ContainerRemoved {
                    container_id,
                    changes,
                },
            ),
        };
        reporter
            .record(&request, Some(&container_id), record)
            .await?;
    }
    Ok(())
}

/// Publishes a run's output as it arrives (`OutputChunk`s on the request's output
/// subject) until every sender of the returned tap is dropped; await the task to know
/// all were sent.
fn follow_live(bus: &Bus, request: &RequestRef) -> (LiveOutput, tokio::task::JoinHandle<()>) {
    let (tap, mut chunks) = mpsc::channel::<(bool, Vec<u8>)>(LIVE_QUEUE);
    let (bus, request) = (bus.clone(), request.clone());
    let task = tokio::spawn(async move {
        let subject = Subject::ExecOutput {
            client: request.client.clone(),
            request_id: request.request_id.clone(),
        };
        let trace = request.trace.child(NAME);
        let mut seq = 0;
        while let Some((stderr, data)) = chunks.recv().await {
            let chunk = OutputChunk {
                seq,
                stream: if stderr { "stderr" } else { "stdout" }.to_string(),
                data: data.into(),
            };
            seq += 1;
            if let Err(error) = bus
                .publish(&subject, &trace, &request.envelope(chunk))
                .await
            {
                tracing::debug!(%error, "cannot publish live output");
            }
        }
        let _ = bus.flush().await;
    });
    (LiveOutput(tap), task)
}

/// Waits (briefly) for a run's live output to be published, so it reaches the client
/// before the result does.
async fn finish_live(task: tokio::task::JoinHandle<()>) {
    let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
}

/// The monitor's last sample for this run (or the latest one seen, if it is slow).
async fn last_usage(mut samples: async_nats::Subscriber) -> Option<UsageSample> {
    let deadline = tokio::time::Instant::now() + LAST_SAMPLE_WAIT;
    let mut latest = None;
    while let Ok(Some(message)) = tokio::time::timeout_at(deadline, samples.next()).await {
        if let Ok(envelope) = decode::<UsageSample>(&message.payload) {
            let last = envelope.body.last;
            latest = Some(envelope.body);
            if last {
                break;
            }
        }
    }
    latest
}

/// A job that lists packages but was not granted network cannot install them: it ends
/// `failed` / `packages_need_network` without running.
fn packages_without_network(request: &RequestRef, job: &Scheduled) -> Option<ExecResult> {
    let lists_packages = job
        .job
        .interpreter
        .as_ref()
        .is_some_and(|i| !i.packages.is_empty());
    if !lists_packages || job.limits.network == Network::Allowlist {
        return None;
    }
    let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
    result.error = Some(ErrorInfo::new(
        ErrorCode::PackagesNeedNetwork,
        "installing packages needs network \"allowlist\" (at a trust level that allows it, for code not assessed HIGH)",
    ));
    result.assessment = Some(job.assessment.clone());
    result.limits = Some(job.limits.clone());
    Some(result)
}

fn failed_result(request_id: &str, error: &SandboxError) -> ExecResult {
    let code = match error {
        SandboxError::ImageMissing { .. } => ErrorCode::ImageMissing,
        _ => ErrorCode::Docker,
    };
    tracing::error!(request_id, %error, "sandbox failed");
    let mut result = ExecResult::without_run(request_id, Status::Failed);
    result.error = Some(ErrorInfo::new(code, error.to_string()));
    result
}
