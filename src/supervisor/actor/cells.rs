//! The supervisor's interpreter jobs: a one-off run with files or stdin (a runner sandbox
//! opened for one cell), and session jobs (open a session, run a cell in one, close one).
//! A session is one task holding one sandbox (`sessions::serve`); its cells reach it from
//! the pull loop through the registry, so cells of one session run one at a time.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot, watch};

use super::{failed_result, finish_live, follow_live, forward_lifecycle, Running, State};
use crate::bus::reporter::RequestRef;
use crate::bus::BusError;
use crate::protocol::assessor::Level;
use crate::protocol::assessor::TrustLevel;
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{ErrorCode, ErrorInfo, ExecResult, Status, ViolationKind};
use crate::protocol::interpreter::{session_id, SessionAction};
use crate::protocol::monitor::UsageSample;
use crate::protocol::scheduler::{Limits, Network, Scheduled};
use crate::supervisor::interpreter::{CellLimits, InterpreterSandbox};
use crate::supervisor::policy::{summary_of, RuntimePolicy};
use crate::supervisor::result::result_of_run;
use crate::supervisor::runner::{cell_frame, OutputCaps};
use crate::supervisor::sandbox::sandbox_outcome;
use crate::supervisor::sessions::{serve, CellOrder, Lookup, SessionHandle, SessionTimes};
use crate::supervisor::spec::{PackageInstall, RecordedRun};
use crate::supervisor::SandboxSpec;

impl State {
    pub(super) fn output_caps(&self) -> OutputCaps {
        OutputCaps {
            max_files: self.settings.caps.max_output_files,
            max_file_bytes: self.settings.caps.max_output_file_bytes,
        }
    }

    /// What one cell of `job` runs under: its deadline and caps, and the runtime policy of
    /// its trust level.
    pub(super) fn cell_limits(&self, limits: &Limits, trust: TrustLevel) -> CellLimits {
        let workdir = &self.settings.sandbox.workdir;
        let policy = RuntimePolicy::new(&self.settings.runtime, trust, workdir);
        let grace = Duration::from_millis(self.settings.sessions.interrupt_grace_ms);
        CellLimits {
            policy: Some(Arc::new(policy)),
            ..CellLimits::of_program(limits, grace, self.output_caps())
        }
    }

    /// Audits a run's runtime record (one `runtime` entry) and puts its summary in the
    /// result, marking a `policy` stop of code the Assessor judged LOW as its miss.
    pub(super) async fn record_runtime(
        &self,
        request: &RequestRef,
        container_id: &str,
        recorded: Option<RecordedRun>,
        result: &mut ExecResult,
    ) -> Result<(), BusError> {
        let Some(RecordedRun { events, dropped }) = recorded else {
            return Ok(());
        };
        let workdir = &self.settings.sandbox.workdir;
        let mut summary = summary_of(&events, dropped, workdir);
        let stopped_by_policy = result
            .violation
            .as_ref()
            .is_some_and(|v| v.kind == ViolationKind::Policy);
        let judged_low = result.assessment.as_ref().map(|a| a.level) == Some(Level::Low);
        summary.assessor_missed = stopped_by_policy && judged_low;
        result.runtime = Some(summary);
        let record = AuditRecord::Runtime {
            container_id: container_id.to_string(),
            events,
            dropped,
        };
        self.reporter.record(request, Some("runtime"), record).await
    }

    /// Audits a request's package install; a failed one makes the result `failed` /
    /// `package_install_failed`, with pip's output as its stderr.
    pub(super) async fn record_install(
        &self,
        request: &RequestRef,
        install: Option<PackageInstall>,
        result: &mut ExecResult,
    ) -> Result<(), BusError> {
        let Some(install) = install else {
            return Ok(());
        };
        if !install.succeeded() {
            result.status = Status::Failed;
            result.error = Some(ErrorInfo::new(
                ErrorCode::PackageInstallFailed,
                format!(
                    "pip could not install {} (exit code {:?}); its output is in stderr",
                    install.requirements.join(", "),
                    install.exit_code
                ),
            ));
            result.stderr = install.output.clone();
        }
        let record = AuditRecord::PackagesInstalled {
            requirements: install.requirements,
            index: install.index,
            exit_code: install.exit_code,
            output: install.output,
            took_ms: install.took_ms,
        };
        self.reporter
            .record(request, Some("packages"), record)
            .await
    }

    /// Opens a session, runs a cell in one, or closes one; ends the request with its
    /// result either way.
    pub(super) async fn run_session_job(
        self: &Arc<Self>,
        request: &RequestRef,
        job: Scheduled,
        spec: SandboxSpec,
        action: SessionAction,
    ) -> Result<(), BusError> {
        let handle = match &action {
            SessionAction::Open => self.open_session(request, &job, spec).await,
            SessionAction::Cell(id) | SessionAction::Close(id) => self.session_of(request, id),
        };
        let result = match handle {
            Ok(handle) => {
                let closing = matches!(action, SessionAction::Close(_));
                self.run_cell_in(request, &job, &handle, closing).await?
            }
            Err(refused) => *refused,
        };
        let result = ExecResult {
            assessment: result.assessment.or(Some(job.assessment)),
            ..result
        };
        self.reporter.finish(request, result).await
    }

    /// The open session `id`, if it is this client's.
    fn session_of(&self, request: &RequestRef, id: &str) -> Result<SessionHandle, Box<ExecResult>> {
        let refused = |status, code, message: String| {
            let mut result = ExecResult::without_run(&request.request_id, status);
            result.error = Some(ErrorInfo::new(code, message));
            Err(Box::new(result))
        };
        match self.sessions.find(id) {
            Lookup::Open(handle) if handle.client == request.client => Ok(handle),
            Lookup::Open(_) => refused(
                Status::Rejected,
                ErrorCode::UnknownSession,
                format!("session {id} is not one of client {:?}'s sessions", request.client),
            ),
            Lookup::Ended { why, lost: true } => refused(
                Status::Failed,
                ErrorCode::SessionLost,
                format!("session {id} was lost: {why}; its variables are gone (open a new one)"),
            ),
            Lookup::Ended { why, lost: false } => refused(
                Status::Failed,
                ErrorCode::SessionClosed,
                format!("session {id} has ended: {why}"),
            ),
            Lookup::Unknown => refused(
                Status::Failed,
                ErrorCode::SessionLost,
                format!(
                    "host {} holds no session {id}: it was lost with the supervisor that held it (or never existed)",
                    self.host
                ),
            ),
        }
    }

    /// Makes the session's sandbox and starts the task that serves it.
    async fn open_session(
        self: &Arc<Self>,
        request: &RequestRef,
        job: &Scheduled,
        spec: SandboxSpec,
    ) -> Result<SessionHandle, Box<ExecResult>> {
        let rejected = |code, message: String| {
            Box::new(ExecResult::rejected(
                &request.request_id,
                ErrorInfo::new(code, message),
            ))
        };
        if job.limits.network != Network::None {
            return Err(rejected(
                ErrorCode::NetworkNotAllowed,
                "sessions run without network (network \"none\"); run networked code as a one-off request".into(),
            ));
        }
        let most = self.settings.sessions.max_per_host as usize;
        if self.sessions.count() >= most {
            return Err(rejected(
                ErrorCode::SessionLimit,
                format!(
                    "host {} holds its most sessions ({most}); close one or try later",
                    self.host
                ),
            ));
        }
        let (lifecycle, events) = mpsc::channel(8);
        let (container_seen, container) = watch::channel(String::new());
        tokio::spawn(forward_lifecycle(
            self.reporter.clone(),
            self.bus.clone(),
            self.host.clone(),
            request.clone(),
            job.limits.clone(),
            (events, container_seen),
        ));
        let warm = self.pool.as_ref().and_then(|pool| pool.take(&spec));
        let sandbox = match InterpreterSandbox::open(&self.docker, warm, &spec, lifecycle).await {
            Ok(sandbox) => sandbox,
            Err(error) => return Err(Box::new(failed_result(&request.request_id, &error))),
        };
        let random = format!("{:020x}", ulid::Ulid::new().random());
        let id = session_id(&random, &self.host);
        let (handle, inbox) = self.sessions.register(
            &id,
            (&request.client, &request.request_id),
            sandbox.container_id(),
            spec.limits.memory_bytes,
        );
        let level = self.settings.limits.for_trust(job.job.trust);
        let asked_idle = job.job.interpreter.as_ref().and_then(|i| i.idle_secs);
        let idle_secs = asked_idle.map_or(level.session_idle_secs, |asked| {
            asked.min(level.session_idle_secs)
        });
        let times = SessionTimes {
            idle: Duration::from_secs(idle_secs),
            lifetime: Duration::from_secs(level.session_lifetime_secs),
            between_cells: self.cell_limits(&job.limits, job.job.trust),
        };
        let violations = self.violations(request, container);
        let state = self.clone();
        tokio::spawn(async move {
            let mut sandbox = sandbox;
            let end = serve(&id, &mut sandbox, inbox, times, state.shutdown.clone()).await;
            tracing::info!(session = %id, why = %end.why, "session ended");
            if let Some(violation) = end.violation {
                if let Err(error) = violations.report(violation, Some("session")).await {
                    tracing::warn!(%error, "cannot report a session's violation");
                }
            }
            state.sessions.forget(&id, &end.why, end.lost);
            state.jobs_changed();
            if let Err(error) = sandbox.close().await {
                tracing::warn!(session = %id, %error, "cannot remove a session's sandbox; its guard will");
            }
        });
        self.jobs_changed();
        Ok(handle)
    }

    /// Sends one cell to its session and turns what came back into the request's result.
    async fn run_cell_in(
        &self,
        request: &RequestRef,
        job: &Scheduled,
        handle: &SessionHandle,
        closing: bool,
    ) -> Result<ExecResult, BusError> {
        let code = job.job.code.as_str();
        let input = job.job.interpreter.clone().unwrap_or_default();
        let (reply, answer) = oneshot::channel();
        let (live, publishing) = follow_live(&self.bus, request);
        let order = CellOrder {
            live: Some(live),
            frame: cell_frame(code, &input, self.output_caps()),
            limits: self.cell_limits(&job.limits, job.job.trust),
            close_after: closing,
            has_code: !code.trim().is_empty(),
            reply,
        };
        let (kill, _) = mpsc::channel(1);
        let running = Running {
            cpus: job.limits.cpus,
            memory_bytes: 0,
            client: request.client.clone(),
            kill,
        };
        self.lock_running()
            .insert(request.request_id.clone(), running);
        self.jobs_changed();
        let answered = match handle.send(order).await {
            Some(()) => answer.await.ok(),
            None => None,
        };
        self.lock_running().remove(&request.request_id);
        self.jobs_changed();
        finish_live(publishing).await;
        let Some((outcome, info)) = answered else {
            let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
            let why = format!("session {} ended before this cell ran", handle.id);
            result.error = Some(ErrorInfo::new(ErrorCode::SessionLost, why));
            return Ok(result);
        };
        let usage = UsageSample {
            cpu_ms: outcome.usage.cpu_ms,
            peak_memory_bytes: outcome.usage.peak_memory_bytes,
            peak_pids: outcome.usage.peak_pids,
            ..UsageSample::default()
        };
        let mut ran = sandbox_outcome(String::new(), outcome);
        let recorded = ran.runtime.take();
        let room = self.bus.content_room();
        let judged = (job.assessment.clone(), job.limits.clone());
        let mut result = result_of_run(&request.request_id, ran, Some(usage), judged, room);
        result.session = Some(info);
        self.record_runtime(request, &handle.container_id, recorded, &mut result)
            .await?;
        if let Some(violation) = &result.violation {
            self.violations(request, watch::channel(handle.container_id.clone()).1)
                .report(violation.clone(), None)
                .await?;
        }
        Ok(result)
    }
}
