//! The Assessor actor: pulls `ExecRequest`s from `cordon.v1.exec.submit.<client>`, takes
//! the request's client from that subject (never from the body), validates them,
//! assesses the code and hands the job to the Scheduler on `cordon.v1.exec.assessed`.
//! Bad input ends as `rejected`. BLOCKED code ends as `blocked` (with an event on
//! `cordon.v1.events.blocked.<client>`) and is then HELD in JetStream on
//! `cordon.v1.exec.held.<request_id>`, where an operator's signed grant can release it
//! (`override_grant`, run beside the submission loop). Either way the submission is
//! acknowledged only after.
//!
//! A released request finishes a second time, with its run: its blocked `Finished` record
//! carries the event id `<request_id>.finished.blocked` so the run's own
//! `<request_id>.finished` is not taken for a redelivery.

use std::sync::Arc;
use std::time::Duration;

use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::reporter::{settle, Reporter, RequestRef};
use crate::bus::streams::StreamKind;
use crate::bus::{run_pull_loop, Bus, BusError, Disposition, Incoming};
use crate::config::Settings;
use crate::protocol::assessor::{AnalyserRun, Assessed, Assessment, BlockedEvent, Job, Level};
use crate::protocol::audit::AuditRecord;
use crate::protocol::exec::{ErrorCode, ErrorInfo, ExecRequest, ExecResult, Status};
use crate::protocol::grant::HeldRequest;
use crate::protocol::{now_ms, Envelope, Subject};

use super::validate::{
    check_image, check_network, check_trust, validate_client, validate_request, validate_request_id,
};

const NAME: &str = Role::Assessor.name();

crate::actor::task_actor!(
    /// The Assessor as an actix actor: its life is the pull loop below.
    Assessor,
    NAME,
    run
);

struct State {
    bus: Bus,
    settings: Arc<Settings>,
    reporter: Reporter,
}

async fn run(env: ActorEnv) -> Result<(), ActorError> {
    tokio::try_join!(run_submissions(env.clone()), super::overrides::run(env))?;
    Ok(())
}

async fn run_submissions(env: ActorEnv) -> Result<(), ActorError> {
    let consumer = env
        .bus
        .durable_consumer(StreamKind::Submit, NAME, None)
        .await?;
    let state = Arc::new(State {
        bus: env.bus.clone(),
        settings: env.settings.clone(),
        reporter: Reporter::new(env.bus.clone(), NAME, &env.settings.node.host_id),
    });
    let progress = env.progress_interval();
    run_pull_loop(
        consumer,
        (NAME, &state.reporter),
        4,
        progress,
        env.shutdown.clone(),
        |message| {
            let state = state.clone();
            async move { state.handle(message).await }
        },
    )
    .await?;
    Ok(())
}

impl State {
    async fn handle(&self, message: Incoming) -> Disposition {
        let (envelope, request) = match self.reporter.receive::<ExecRequest>(&message).await {
            Ok(opened) => opened,
            Err(disposition) => return disposition,
        };
        let unaddressable = validate_request_id(&envelope.request_id)
            .and_then(|()| validate_client(&request.client));
        if let Err(error) = unaddressable {
            let key = crate::bus::reporter::unaddressed_key(&message);
            return settle(
                self.reporter
                    .reject(None, &message.payload, error, &key)
                    .await,
                NAME,
            );
        }
        // Code must fit the messages that carry it on (with the findings beside it).
        let mut caps = self.settings.caps.clone();
        caps.max_code_bytes = caps.max_code_bytes.min(self.bus.content_room() as u64);
        let validated = validate_request(envelope.body.clone(), &caps)
            .and_then(|job| check_trust(job, &request.client, &self.settings.clients))
            .and_then(|job| check_network(job, &self.settings.network))
            .and_then(|job| check_image(job, &self.settings.sandbox));
        let outcome = match validated {
            Ok(job) => self.assess_and_forward(&envelope, &request, job).await,
            Err(error) => {
                self.reporter
                    .reject(Some(&request), &message.payload, error, "")
                    .await
            }
        };
        settle(outcome, NAME)
    }

    async fn assess_and_forward(
        &self,
        envelope: &Envelope<ExecRequest>,
        request: &RequestRef,
        job: Job,
    ) -> Result<(), BusError> {
        let received = AuditRecord::Received {
            code_sha256: job.code_sha256.clone(),
            code_bytes: job.code.len() as u64,
            trust: job.trust,
            origin: job.origin,
            client: job.client.clone(),
            submitter: request.client.clone(),
            code: Some(job.code.clone()),
            input: job.interpreter.clone(),
        };
        self.reporter.record(request, None, received).await?;
        let (assessment, analysers) = match self.assess_off_thread(&job).await {
            Ok(assessed) => assessed,
            Err(error) => return self.fail(request, error).await,
        };
        let assessed = AuditRecord::Assessed {
            assessment: assessment.clone(),
            analysers: analysers.clone(),
        };
        self.reporter.record(request, None, assessed).await?;
        if assessment.level == Level::Blocked {
            let blocked = BlockedEvent {
                code_sha256: job.code_sha256.clone(),
                assessment,
                analysers,
            };
            return self.hold_blocked(envelope, request, job, blocked).await;
        }
        let body = envelope.reply(Assessed { job, assessment });
        let msg_id = format!("{}.assessed", request.request_id);
        let trace = request.trace.child(NAME);
        self.bus
            .publish_durable(&Subject::ExecAssessed, &msg_id, &trace, &body)
            .await
    }

    /// BLOCKED code does not run: an event goes out, the request finishes `blocked`, and
    /// only then is it held for an operator (so a release always follows the blocked
    /// result). Holding is first-writer-wins: a redelivery never re-holds a released one.
    async fn hold_blocked(
        &self,
        envelope: &Envelope<ExecRequest>,
        request: &RequestRef,
        job: Job,
        blocked: BlockedEvent,
    ) -> Result<(), BusError> {
        let trace = request.trace.child(NAME);
        let msg_id = format!("{}.blocked", request.request_id);
        self.bus
            .publish_durable(
                &Subject::EventsBlocked {
                    client: request.client.clone(),
                },
                &msg_id,
                &trace,
                &envelope.reply(blocked.clone()),
            )
            .await?;
        let mut result = ExecResult::without_run(request.request_id.clone(), Status::Blocked);
        result.assessment = Some(blocked.assessment.clone());
        let finished = AuditRecord::Finished {
            result: Box::new(result),
        };
        self.reporter
            .record(request, Some("blocked"), finished)
            .await?;
        let held = envelope.reply(HeldRequest {
            job,
            assessment: blocked.assessment,
            held_at_ms: now_ms(),
            released: None,
        });
        let subject = Subject::ExecHeld {
            request_id: request.request_id.clone(),
        };
        let msg_id = format!("{}.held", request.request_id);
        let stored = self
            .bus
            .publish_durable_if_last(&subject, &msg_id, &trace, &held, 0)
            .await?;
        if !stored {
            tracing::info!(request_id = %request.request_id, "already held (redelivery)");
        }
        Ok(())
    }

    async fn fail(&self, request: &RequestRef, error: ErrorInfo) -> Result<(), BusError> {
        let mut result = ExecResult::without_run(request.request_id.clone(), Status::Failed);
        result.error = Some(error);
        self.reporter.finish(request, result).await
    }
}

impl State {
    /// Runs the analysis (and any enabled external analysers) on a blocking thread so a
    /// large program cannot stall the bus loop.
    async fn assess_off_thread(
        &self,
        job: &Job,
    ) -> Result<(Assessment, Vec<AnalyserRun>), ErrorInfo> {
        let code = job.code.clone();
        let origin = job.origin;
        let analysers = self.settings.analysers.clone();
        let policy = super::Policy::new(self.settings.security.clone());
        let external = analysers.bandit || analysers.semgrep;
        let task = tokio::task::spawn_blocking(move || {
            super::report::external::assess(&code, origin, &policy, &analysers)
        });
        match tokio::time::timeout(Duration::from_secs(30), task).await {
            // Only worth recording when external analysers took part.
            Ok(Ok((assessment, runs))) if external => Ok((assessment, runs)),
            Ok(Ok((assessment, _))) => Ok((assessment, Vec::new())),
            Ok(Err(join_error)) => {
                tracing::error!(error = %join_error, "assessment failed");
                Err(ErrorInfo::new(
                    ErrorCode::Internal,
                    "the assessor failed on this program",
                ))
            }
            Err(_) => Err(ErrorInfo::new(
                ErrorCode::Internal,
                "assessment took longer than 30 s",
            )),
        }
    }
}
