//! How any actor records what happened to a request: an `AuditEvent` published durably on
//! `cordon.v1.audit.append`. A request ends with a `Finished` record; the AuditChain
//! publishes its result once that record is appended, so no client sees an unaudited result.

use sha2::{Digest, Sha256};

use super::trace::TraceContext;
use super::{Bus, BusError};
use crate::protocol::audit::{AuditEvent, AuditRecord};
use crate::protocol::exec::{ErrorInfo, ExecResult};
use crate::protocol::{now_ms, Envelope, Subject};

/// Publishes audit events on behalf of one actor on one host.
#[derive(Clone)]
pub struct Reporter {
    bus: Bus,
    actor: &'static str,
    host: String,
}

/// Which request an event belongs to, whose it is, and the trace it travels in.
#[derive(Debug, Clone)]
pub struct RequestRef {
    pub request_id: String,
    /// The client the request was submitted by (empty when unknown).
    pub client: String,
    pub submitted_at_ms: u64,
    pub trace: TraceContext,
}

impl RequestRef {
    pub fn of<T>(envelope: &Envelope<T>, trace: TraceContext) -> RequestRef {
        RequestRef {
            request_id: envelope.request_id.clone(),
            client: envelope.client.clone(),
            submitted_at_ms: envelope.submitted_at_ms,
            trace,
        }
    }

    /// An envelope about this request carrying `body`.
    pub fn envelope<T>(&self, body: T) -> Envelope<T> {
        Envelope::new(self.request_id.clone(), self.submitted_at_ms, body)
            .with_client(self.client.clone())
    }
}

/// The client a message speaks for when it arrived on a client's submit subject: the
/// server let only that client publish there, so this (not the body) is who sent it.
/// The Assessor refuses a name that `is_valid_token` does not accept.
pub fn submitter_of(message: &super::Incoming) -> Option<String> {
    submitter_of_subject(&message.subject)
}

/// The client a submit subject names; `None` for any other subject.
pub fn submitter_of_subject(subject: &str) -> Option<String> {
    match Subject::parse(subject) {
        Ok(Subject::ExecSubmit { client }) => Some(client),
        _ => None,
    }
}

impl Reporter {
    pub fn new(bus: Bus, actor: &'static str, host: &str) -> Reporter {
        Reporter {
            bus,
            actor,
            host: host.to_string(),
        }
    }

    /// Records one event. `distinct` separates events of the same kind for one request
    /// (e.g. a container id); the event id is stable across redelivery so it is kept once.
    pub async fn record(
        &self,
        request: &RequestRef,
        distinct: Option<&str>,
        record: AuditRecord,
    ) -> Result<(), BusError> {
        let event_id = match distinct {
            Some(extra) => format!("{}.{}.{extra}", request.request_id, record.name()),
            None => format!("{}.{}", request.request_id, record.name()),
        };
        let event = AuditEvent {
            event_id: event_id.clone(),
            actor: self.actor.to_string(),
            host: self.host.clone(),
            at_ms: now_ms(),
            record,
        };
        let envelope = request.envelope(event);
        let trace = request.trace.child(self.actor);
        self.bus
            .publish_durable(&Subject::AuditAppend, &event_id, &trace, &envelope)
            .await
    }

    /// Ends a request: its result goes to the audit log and from there to the client.
    pub async fn finish(&self, request: &RequestRef, result: ExecResult) -> Result<(), BusError> {
        self.record(
            request,
            None,
            AuditRecord::Finished {
                result: Box::new(result),
            },
        )
        .await
    }

    /// Records a bad input. When it names a usable request id, the request is also finished
    /// with a `rejected` result so its sender hears why.
    pub async fn reject(
        &self,
        request: Option<&RequestRef>,
        payload: &[u8],
        error: ErrorInfo,
        fallback_key: &str,
    ) -> Result<(), BusError> {
        let record = AuditRecord::rejected(error.clone(), payload);
        match request {
            Some(request) => {
                self.record(request, None, record).await?;
                let result = ExecResult::rejected(request.request_id.clone(), error);
                self.finish(request, result).await
            }
            None => {
                let anonymous = RequestRef {
                    request_id: String::new(),
                    client: String::new(),
                    submitted_at_ms: 0,
                    trace: TraceContext::for_request(fallback_key),
                };
                self.record(&anonymous, Some(fallback_key), record).await
            }
        }
    }
}

impl Reporter {
    /// Answers a message that could not be decoded: audited always, and answered with a
    /// `rejected` result when a request id can be read from it or its `Nats-Msg-Id`.
    pub async fn reject_undecodable(
        &self,
        message: &super::Incoming,
        error: &crate::protocol::CodecError,
    ) -> Result<(), BusError> {
        use crate::protocol::exec::ErrorCode;
        use crate::protocol::CodecError;
        let code = match error {
            CodecError::InvalidMsgpack => ErrorCode::InvalidMsgpack,
            CodecError::UnsupportedSchema { .. } => ErrorCode::UnsupportedSchema,
            _ => ErrorCode::InvalidRequest,
        };
        let info = ErrorInfo::new(code, error.to_string());
        let request_id = error
            .request_id()
            .map(str::to_string)
            .or_else(|| super::msg_id_of(message.headers.as_ref()))
            .filter(|id| crate::protocol::subjects::is_valid_token(id));
        let fallback_key = unaddressed_key(message);
        tracing::warn!(actor = self.actor, subject = %message.subject, request_id = ?request_id, error = %error, "rejecting undecodable message");
        let request = request_id.map(|id| RequestRef {
            trace: super::trace_of(message.headers.as_ref(), &id),
            request_id: id,
            client: submitter_of(message).unwrap_or_default(),
            submitted_at_ms: 0,
        });
        self.reject(request.as_ref(), &message.payload, info, &fallback_key)
            .await
    }
}

impl Reporter {
    /// Opens a pulled message for an actor: its envelope and the request it is about, or,
    /// when it cannot be decoded, the rejection is published and the disposition to settle
    /// the message with is returned instead. On a client's submit subject the envelope's
    /// client is replaced by the one the subject names.
    pub async fn receive<T: serde::de::DeserializeOwned>(
        &self,
        message: &super::Incoming,
    ) -> Result<(Envelope<T>, RequestRef), super::Disposition> {
        match crate::protocol::decode::<T>(&message.payload) {
            Ok(mut envelope) => {
                if let Some(client) = submitter_of(message) {
                    envelope.client = client;
                }
                let trace = super::trace_of(message.headers.as_ref(), &envelope.request_id);
                let request = RequestRef::of(&envelope, trace);
                Ok((envelope, request))
            }
            Err(error) => Err(settle(
                self.reject_undecodable(message, &error).await,
                self.actor,
            )),
        }
    }
}

impl Reporter {
    /// Answers a message whose handler panicked: the request ends `failed` (`internal`),
    /// audited (the AuditChain raises an alert for it), and the message is acknowledged
    /// once that is published. A message with no readable request id is audited alone.
    pub async fn fail_after_panic(
        &self,
        message: &super::Incoming,
        panic: &str,
    ) -> super::Disposition {
        let why = format!(
            "cordon's {} failed on this request (a panic: {panic}); it was not completed, and operators are alerted",
            self.actor
        );
        let info = ErrorInfo::new(crate::protocol::exec::ErrorCode::Internal, why);
        self.fail_request(message, info).await
    }

    /// Ends the request a message is about as `failed` with `info` (audited), once; a
    /// message with no readable request id is audited alone. For what can never succeed
    /// however often the message is delivered.
    pub async fn fail_request(
        &self,
        message: &super::Incoming,
        info: ErrorInfo,
    ) -> super::Disposition {
        use crate::protocol::exec::Status;
        let header = crate::protocol::decode::<serde::de::IgnoredAny>(&message.payload).ok();
        let request_id = header
            .as_ref()
            .map(|envelope| envelope.request_id.clone())
            .or_else(|| super::msg_id_of(message.headers.as_ref()))
            .filter(|id| crate::protocol::subjects::is_valid_token(id));
        let Some(request_id) = request_id else {
            let key = unaddressed_key(message);
            return settle(
                self.reject(None, &message.payload, info, &key).await,
                self.actor,
            );
        };
        let request = RequestRef {
            trace: super::trace_of(message.headers.as_ref(), &request_id),
            client: submitter_of(message)
                .or_else(|| header.map(|envelope| envelope.client))
                .unwrap_or_default(),
            submitted_at_ms: 0,
            request_id,
        };
        let mut result = ExecResult::without_run(&request.request_id, Status::Failed);
        result.error = Some(info);
        settle(self.finish(&request, result).await, self.actor)
    }
}

/// A key that names a message with no usable request id, unique per stored message, so its
/// rejection is audited once even when redelivered.
pub fn unaddressed_key(message: &super::Incoming) -> String {
    match message.info() {
        Ok(info) => format!("bad-{}-{}", info.stream, info.stream_sequence),
        Err(_) => format!(
            "bad-{}",
            hex::encode(&Sha256::digest(&message.payload)[..8])
        ),
    }
}

/// Turns a handler's outcome into what the server is told: done, try again shortly, or
/// (for a message too large for the bus, which no retry can fix) answer it failed.
pub fn settle(outcome: Result<(), BusError>, actor: &str) -> super::Disposition {
    match outcome {
        Ok(()) => super::Disposition::Ack,
        Err(error @ BusError::TooLarge { .. }) => {
            tracing::error!(actor, %error, "a consequence is too large for the bus; the request fails once");
            let code = crate::protocol::exec::ErrorCode::MessageTooLarge;
            super::Disposition::Fail(ErrorInfo::new(code, error.to_string()))
        }
        Err(error) => {
            tracing::warn!(actor, %error, "could not publish consequences; message will be redelivered");
            super::Disposition::Retry(std::time::Duration::from_secs(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_submitter_is_read_from_the_submit_subject_only() {
        let submit = Subject::ExecSubmit {
            client: "alice".into(),
        };
        assert_eq!(
            submitter_of_subject(&submit.to_subject()).as_deref(),
            Some("alice")
        );
        assert_eq!(submitter_of_subject("cordon.v1.exec.assessed"), None);
        let result = Subject::ExecResult {
            client: "alice".into(),
            request_id: "r".into(),
        };
        assert_eq!(submitter_of_subject(&result.to_subject()), None);
    }

    #[test]
    fn a_request_ref_carries_its_client_into_every_envelope() {
        let first = Envelope::new("r1", 5, ()).with_client("alice");
        let request = RequestRef::of(&first, TraceContext::for_request("r1"));
        assert_eq!(request.client, "alice");
        assert_eq!(request.envelope(1u8).client, "alice");
        assert_eq!(first.reply(2u8).client, "alice");
    }
}
