//! The Assessor's grant handler: pulls signed `OverrideGrant`s from
//! `cordon.v1.exec.override` (work queue), decides each one, and releases the held request
//! a valid grant names to the Scheduler on `cordon.v1.exec.assessed`.
//!
//! Invariants:
//! - Every grant, accepted or not, is audited (`override_grant`, with operator and
//!   reason) and answered with a `GrantDecision` on `cordon.v1.events.override`, before the
//!   grant message is acknowledged.
//! - A held request is released at most once: the release is written to its
//!   `cordon.v1.exec.held.<request_id>` record with an expected-last-sequence check, which
//!   nats-server applies atomically, before anything else happens. A redelivered grant
//!   whose release is already written resumes the hand-off; a new message carrying a used
//!   grant is `replayed`.
//! - A released job runs with the tightest limits: trust `untrusted` and level BLOCKED
//!   (the Scheduler cuts BLOCKED like HIGH, by `assessment.high_factor`).

use std::sync::Arc;

use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::reporter::{settle, Reporter, RequestRef};
use crate::bus::streams::StreamKind;
use crate::bus::trace::TraceContext;
use crate::bus::{run_pull_loop, trace_of, Bus, BusError, Disposition, Incoming};
use crate::config::Settings;
use crate::protocol::assessor::{Assessed, TrustLevel};
use crate::protocol::audit::AuditRecord;
use crate::protocol::grant::{GrantDecision, HeldRequest, OverrideGrant, Release};
use crate::protocol::subjects::is_valid_token;
use crate::protocol::{decode, now_ms, Envelope, Subject};

use super::grant::{check, Refusal};

const NAME: &str = Role::Assessor.name();
const CONSUMER: &str = "assessor-override";

/// Decides grants for one Assessor process.
struct GrantHandler {
    bus: Bus,
    settings: Arc<Settings>,
    reporter: Reporter,
}

/// A grant as far as it could be read, with the message it came in.
struct Arrival {
    grant: OverrideGrant,
    request: RequestRef,
    /// Stream sequence of the grant message: separates audit events of replays.
    sequence: u64,
    redelivered: bool,
}

/// The held record read for a grant, with its stream sequence.
struct Held {
    sequence: u64,
    record: Envelope<HeldRequest>,
}

/// Pulls grants until shutdown, one at a time.
pub async fn run(env: ActorEnv) -> Result<(), ActorError> {
    let consumer = env
        .bus
        .durable_consumer(StreamKind::Override, CONSUMER, None)
        .await?;
    let handler = Arc::new(GrantHandler {
        bus: env.bus.clone(),
        settings: env.settings.clone(),
        reporter: Reporter::new(env.bus.clone(), NAME, &env.settings.node.host_id),
    });
    run_pull_loop(
        consumer,
        (CONSUMER, &handler.reporter),
        1,
        env.progress_interval(),
        env.shutdown.clone(),
        |message| {
            let handler = handler.clone();
            async move { handler.handle(message).await }
        },
    )
    .await?;
    Ok(())
}

impl GrantHandler {
    async fn handle(&self, message: Incoming) -> Disposition {
        let (sequence, redelivered) = match message.info() {
            Ok(info) => (info.stream_sequence, info.delivered > 1),
            Err(_) => (0, false),
        };
        let outcome = match decode::<OverrideGrant>(&message.payload) {
            Ok(envelope) => {
                let arrival = arrival(envelope, &message, sequence, redelivered);
                self.decide(&arrival).await
            }
            Err(error) => self.refuse_unreadable(sequence, error.to_string()).await,
        };
        settle(outcome, CONSUMER)
    }

    /// Checks the grant against the held request; releases it or refuses the grant.
    async fn decide(&self, arrival: &Arrival) -> Result<(), BusError> {
        let grant = &arrival.grant;
        if let Err(refusal) = check(
            grant,
            &arrival.request.request_id,
            &self.settings.overrides,
            now_ms(),
        ) {
            return self.conclude(arrival, Err(refusal)).await;
        }
        let Some(held) = self.read_held(&grant.request_id).await? else {
            let refusal = Refusal::NotHeld(grant.request_id.clone());
            return self.conclude(arrival, Err(refusal)).await;
        };
        match &held.record.body.released {
            Some(release) if release.grant_id == grant.grant_id && arrival.redelivered => {
                // Our own release, interrupted before the hand-off: finish it.
                self.hand_off(arrival, &held).await
            }
            Some(release) if release.grant_id == grant.grant_id => {
                let refusal = Refusal::Replayed(grant.request_id.clone());
                self.conclude(arrival, Err(refusal)).await
            }
            Some(_) => {
                let refusal = Refusal::AlreadyReleased(grant.request_id.clone());
                self.conclude(arrival, Err(refusal)).await
            }
            None => self.release(arrival, held).await,
        }
    }

    /// Writes the release (once, atomically), then hands the job to the Scheduler.
    async fn release(&self, arrival: &Arrival, held: Held) -> Result<(), BusError> {
        let grant = &arrival.grant;
        let job = &held.record.body.job;
        if job.code_sha256 != grant.code_sha256 {
            let refusal = Refusal::CodeMismatch {
                grant: grant.code_sha256.clone(),
                held: job.code_sha256.clone(),
            };
            return self.conclude(arrival, Err(refusal)).await;
        }
        let mut released = held.record.body.clone();
        released.released = Some(Release {
            grant_id: grant.grant_id.clone(),
            operator: grant.operator.clone(),
            at_ms: now_ms(),
        });
        let envelope = held.record.reply(released);
        let subject = Subject::ExecHeld {
            request_id: grant.request_id.clone(),
        };
        let msg_id = format!("{}.released", grant.request_id);
        let trace = arrival.request.trace.child(NAME);
        let won = self
            .bus
            .publish_durable_if_last(&subject, &msg_id, &trace, &envelope, held.sequence)
            .await?;
        if !won {
            let refusal = Refusal::AlreadyReleased(grant.request_id.clone());
            return self.conclude(arrival, Err(refusal)).await;
        }
        let released = Held {
            sequence: held.sequence,
            record: envelope,
        };
        self.hand_off(arrival, &released).await
    }

    /// Audits the acceptance, then publishes the job with the tightest limits.
    async fn hand_off(&self, arrival: &Arrival, held: &Held) -> Result<(), BusError> {
        self.conclude(arrival, Ok(())).await?;
        let mut job = held.record.body.job.clone();
        job.trust = TrustLevel::Untrusted;
        let assessed = Assessed {
            job,
            assessment: held.record.body.assessment.clone(),
        };
        let body = held.record.reply(assessed);
        let msg_id = format!("{}.assessed", arrival.grant.request_id);
        let trace = arrival.request.trace.child(NAME);
        self.bus
            .publish_durable(&Subject::ExecAssessed, &msg_id, &trace, &body)
            .await
    }

    async fn read_held(&self, request_id: &str) -> Result<Option<Held>, BusError> {
        let subject = Subject::ExecHeld {
            request_id: request_id.to_string(),
        };
        let Some((sequence, payload)) = self.bus.last_stored(StreamKind::Held, &subject).await?
        else {
            return Ok(None);
        };
        match decode::<HeldRequest>(&payload) {
            Ok(record) => Ok(Some(Held { sequence, record })),
            Err(error) => {
                tracing::error!(request_id, %error, "held record is unreadable; treating as not held");
                Ok(None)
            }
        }
    }

    /// Audits the decision and announces it.
    async fn conclude(
        &self,
        arrival: &Arrival,
        outcome: Result<(), Refusal>,
    ) -> Result<(), BusError> {
        let grant = &arrival.grant;
        let (decision, message) = match &outcome {
            Ok(()) => (
                "accepted".to_string(),
                "the held request is released".to_string(),
            ),
            Err(refusal) => (refusal.code().to_string(), refusal.to_string()),
        };
        tracing::info!(request_id = %grant.request_id, grant_id = %grant.grant_id, operator = %grant.operator, %decision, "override grant decided");
        let record = AuditRecord::OverrideGrant {
            grant_id: grant.grant_id.clone(),
            operator: grant.operator.clone(),
            reason: grant.reason.clone(),
            public_key: grant.public_key.clone(),
            accepted: outcome.is_ok(),
            decision: decision.clone(),
            message: message.clone(),
        };
        let distinct = arrival.sequence.to_string();
        self.reporter
            .record(&arrival.request, Some(&distinct), record)
            .await?;
        let event = arrival.request.envelope(GrantDecision {
            grant_id: grant.grant_id.clone(),
            request_id: grant.request_id.clone(),
            operator: grant.operator.clone(),
            accepted: outcome.is_ok(),
            decision,
            message,
        });
        let msg_id = format!("{}.override.{distinct}", arrival.request.request_id);
        let trace = arrival.request.trace.child(NAME);
        self.bus
            .publish_durable(&Subject::EventsOverride, &msg_id, &trace, &event)
            .await
    }

    /// A grant message that cannot be read is audited and announced as `invalid`.
    async fn refuse_unreadable(&self, sequence: u64, why: String) -> Result<(), BusError> {
        let key = format!("bad-grant-{sequence}");
        let arrival = Arrival {
            grant: OverrideGrant {
                grant_id: String::new(),
                request_id: String::new(),
                code_sha256: String::new(),
                operator: String::new(),
                reason: String::new(),
                issued_at_ms: 0,
                expires_at_ms: 0,
                public_key: String::new(),
                signature: String::new(),
            },
            request: RequestRef {
                request_id: String::new(),
                client: String::new(),
                submitted_at_ms: 0,
                trace: TraceContext::for_request(&key),
            },
            sequence,
            redelivered: false,
        };
        self.conclude(&arrival, Err(Refusal::Invalid(why))).await
    }
}

/// The request a grant is filed under: the envelope's id when it can name a subject.
fn arrival(
    envelope: Envelope<OverrideGrant>,
    message: &Incoming,
    sequence: u64,
    redelivered: bool,
) -> Arrival {
    let request_id = if is_valid_token(&envelope.request_id) {
        envelope.request_id.clone()
    } else {
        String::new()
    };
    let trace = trace_of(message.headers.as_ref(), &request_id);
    Arrival {
        request: RequestRef {
            request_id,
            // A grant is about someone else's request; its events need no client.
            client: String::new(),
            submitted_at_ms: envelope.submitted_at_ms,
            trace,
        },
        grant: envelope.body,
        sequence,
        redelivered,
    }
}
