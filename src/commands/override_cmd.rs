//! `cordon override REQUEST_ID --reason TEXT --key FILE`: releases a held BLOCKED request.
//! Reads the held record (`cordon.v1.exec.held.<id>`) for the code's hash, signs a grant
//! bound to the request id and that hash with an expiry, publishes it on
//! `cordon.v1.exec.override`, waits for the Assessor's decision on
//! `cordon.v1.events.override`, then for the run's result: the same result subject
//! `cordon.v1.exec.result.<id>` carries it after the blocked one (and the results stream
//! keeps it as the request's latest result). Prints it as `cordon exec` does.
//!
//! Exit status: as `cordon exec` once the program ran; `77` when the grant is refused;
//! `2` bad usage, key file or nothing held; `69` NATS unreachable or no answer in time.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use super::exec::EXIT_BLOCKED;
use super::keygen::read_secret_key;
use super::{EXIT_UNAVAILABLE, EXIT_USAGE};
use crate::assessor::grant::sign;
use crate::bus::streams::StreamKind;
use crate::bus::trace::TraceContext;
use crate::bus::{Bus, BusError};
use crate::cli::OverrideArgs;
use crate::config::Settings;
use crate::protocol::exec::{ExecResult, Status};
use crate::protocol::grant::{GrantDecision, HeldRequest, OverrideGrant};
use crate::protocol::{decode, now_ms, CodecError, Envelope, Subject};

/// How long a freshly blocked request may take to appear as held.
const HELD_GRACE: Duration = Duration::from_secs(5);

/// What stopped an override, with the exit status it gets.
#[derive(Debug, thiserror::Error)]
enum OverrideError {
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("unreadable message about {request_id}: {source}")]
    Codec {
        request_id: String,
        source: CodecError,
    },
    #[error("grant refused ({decision}): {message}")]
    Refused { decision: String, message: String },
    #[error("no {what} within {waited:?}")]
    TimedOut {
        what: &'static str,
        waited: Duration,
    },
}

impl OverrideError {
    fn exit_code(&self) -> u8 {
        match self {
            OverrideError::Usage(_) => EXIT_USAGE,
            OverrideError::Refused { .. } => EXIT_BLOCKED,
            _ => EXIT_UNAVAILABLE,
        }
    }
}

pub async fn override_request(settings: Arc<Settings>, args: OverrideArgs) -> ExitCode {
    match run(&settings, &args).await {
        Ok(result) => super::exec::report(&result, args.json),
        Err(error) => {
            eprintln!("cordon: {error}");
            ExitCode::from(error.exit_code())
        }
    }
}

async fn run(settings: &Settings, args: &OverrideArgs) -> Result<ExecResult, OverrideError> {
    let key = read_secret_key(&args.key).map_err(|e| OverrideError::Usage(e.to_string()))?;
    let url = args
        .nats
        .clone()
        .or_else(|| Some(settings.nats.url.clone()).filter(|u| !u.is_empty()))
        .ok_or_else(|| OverrideError::Usage("no NATS server: pass --nats URL".into()))?;
    // The streams exist: something is held. Operators need not be able to create them.
    let operator = super::exec::local_user_settings(settings, "operator");
    let bus = Bus::connect_now(&url, "cordon-override", &operator.nats).await?;
    let held = wait_for_held(&bus, &args.request_id).await?;
    eprintln!(
        "cordon: {} of client {:?} is held: {} finding(s), level {}",
        args.request_id,
        held.client,
        held.body.assessment.findings.len(),
        held.body.assessment.level.as_str()
    );
    let mut grant = new_grant(args, &held.body);
    sign(&mut grant, &key);
    let wait = Duration::from_secs_f64(args.wait.max(1.0));
    let result_subject = Subject::ExecResult {
        client: held.client.clone(),
        request_id: args.request_id.clone(),
    };
    publish_and_wait(&bus, grant, &result_subject, wait).await
}

/// The held record of a request (its envelope names the client the result goes to),
/// allowing a moment for a fresh block to be stored.
async fn wait_for_held(
    bus: &Bus,
    request_id: &str,
) -> Result<Envelope<HeldRequest>, OverrideError> {
    if !crate::protocol::subjects::is_valid_token(request_id) {
        return Err(OverrideError::Usage(format!(
            "{request_id:?} is not a request id"
        )));
    }
    let subject = Subject::ExecHeld {
        request_id: request_id.to_string(),
    };
    let deadline = tokio::time::Instant::now() + HELD_GRACE;
    loop {
        if let Some((_, payload)) = bus.last_stored(StreamKind::Held, &subject).await? {
            let held = decode::<HeldRequest>(&payload).map_err(|source| OverrideError::Codec {
                request_id: request_id.to_string(),
                source,
            })?;
            return match &held.body.released {
                Some(r) => Err(OverrideError::Usage(format!(
                    "{request_id} was already released by {} (grant {})",
                    r.operator, r.grant_id
                ))),
                None => Ok(held),
            };
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(OverrideError::Usage(format!(
                "no BLOCKED request {request_id} is held (unknown id, not blocked, or older than the results retention)"
            )));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn new_grant(args: &OverrideArgs, held: &HeldRequest) -> OverrideGrant {
    let operator = args
        .operator
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "unknown".into());
    let issued_at_ms = now_ms();
    OverrideGrant {
        grant_id: ulid::Ulid::new().to_string(),
        request_id: args.request_id.clone(),
        code_sha256: held.job.code_sha256.clone(),
        operator,
        reason: args.reason.clone(),
        issued_at_ms,
        expires_at_ms: issued_at_ms.saturating_add(args.ttl.saturating_mul(1000)),
        public_key: String::new(),
        signature: String::new(),
    }
}

/// Publishes the grant, then waits for its decision and, if accepted, the run's result.
async fn publish_and_wait(
    bus: &Bus,
    grant: OverrideGrant,
    result_subject: &Subject,
    wait: Duration,
) -> Result<ExecResult, OverrideError> {
    let request_id = grant.request_id.clone();
    let mut results = bus.subscribe(result_subject.to_subject()).await?;
    let mut decisions = bus.subscribe(Subject::EventsOverride.to_subject()).await?;
    let grant_id = grant.grant_id.clone();
    let envelope = Envelope::new(request_id.clone(), 0, grant);
    let trace = TraceContext::for_request(&request_id);
    bus.publish_durable(&Subject::ExecOverride, &grant_id, &trace, &envelope)
        .await?;
    let deadline = tokio::time::Instant::now() + wait;
    let decision = tokio::time::timeout_at(deadline, next_decision(&mut decisions, &grant_id))
        .await
        .map_err(|_| OverrideError::TimedOut {
            what: "decision on the grant",
            waited: wait,
        })??;
    if !decision.accepted {
        return Err(OverrideError::Refused {
            decision: decision.decision,
            message: decision.message,
        });
    }
    eprintln!("cordon: grant {grant_id} accepted; waiting for the run");
    let target = (result_subject, request_id.as_str());
    wait_for_run(bus, &mut results, target, deadline, wait).await
}

async fn next_decision(
    decisions: &mut async_nats::Subscriber,
    grant_id: &str,
) -> Result<GrantDecision, OverrideError> {
    while let Some(message) = decisions.next().await {
        if let Ok(envelope) = decode::<GrantDecision>(&message.payload) {
            if envelope.body.grant_id == grant_id {
                return Ok(envelope.body);
            }
        }
    }
    Err(OverrideError::Bus(BusError::Subscribe {
        subject: Subject::EventsOverride.to_subject(),
        message: "subscription ended".into(),
    }))
}

/// The first result of the request that is not the blocked one: live, or from the stream.
async fn wait_for_run(
    bus: &Bus,
    results: &mut async_nats::Subscriber,
    (subject, request_id): (&Subject, &str),
    deadline: tokio::time::Instant,
    wait: Duration,
) -> Result<ExecResult, OverrideError> {
    loop {
        let poll_until = (tokio::time::Instant::now() + Duration::from_secs(2)).min(deadline);
        let payload = match tokio::time::timeout_at(poll_until, results.next()).await {
            Ok(Some(message)) => Some(message.payload.to_vec()),
            _ => bus.last_message(StreamKind::Results, subject).await?,
        };
        if let Some(result) = payload.map(|p| parse_result(request_id, &p)).transpose()? {
            if result.status != Status::Blocked {
                return Ok(result);
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(OverrideError::TimedOut {
                what: "run result",
                waited: wait,
            });
        }
    }
}

fn parse_result(request_id: &str, payload: &[u8]) -> Result<ExecResult, OverrideError> {
    decode::<ExecResult>(payload)
        .map(|envelope| envelope.body)
        .map_err(|source| OverrideError::Codec {
            request_id: request_id.to_string(),
            source,
        })
}
