//! Dead letters: when a message has been delivered `max_deliver` times without being
//! acknowledged, nats-server publishes a max-deliveries advisory. This watcher turns it into
//! an ending: the request gets a `failed` result (`undeliverable`, through the audit log), a
//! `DeadLetterEvent` goes out on `cordon.v1.events.dead_letter`, and the message is removed
//! from its work queue. Run by the process that runs the AuditChain (one per deployment).

use serde::Deserialize;

use super::reporter::{Reporter, RequestRef};
use super::{trace_of, Bus, BusError};
use crate::protocol::exec::{DeadLetterEvent, ErrorCode, ErrorInfo, ExecResult, Status};
use crate::protocol::subjects::is_valid_token;
use crate::protocol::{decode, Subject};
use crate::shutdown::Shutdown;

/// Where nats-server announces messages that ran out of deliveries (JetStream API, not ours).
const MAX_DELIVERIES_ADVISORIES: &str = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.>";

/// The fields of the advisory we use.
#[derive(Debug, Deserialize)]
struct MaxDeliveries {
    stream: String,
    consumer: String,
    stream_seq: u64,
    deliveries: u64,
}

/// Watches advisories until shutdown.
pub async fn watch_dead_letters(
    bus: Bus,
    reporter: Reporter,
    mut shutdown: Shutdown,
) -> Result<(), BusError> {
    use futures::StreamExt;
    let mut advisories = bus.subscribe(MAX_DELIVERIES_ADVISORIES.to_string()).await?;
    loop {
        let message = tokio::select! {
            Some(message) = advisories.next() => message,
            _ = shutdown.wait() => return Ok(()),
            else => return Ok(()),
        };
        match serde_json::from_slice::<MaxDeliveries>(&message.payload) {
            Ok(advisory) => {
                if let Err(error) = end_dead_letter(&bus, &reporter, advisory).await {
                    tracing::error!(%error, "could not end a dead letter");
                }
            }
            Err(error) => tracing::warn!(%error, "ignoring an unreadable max-deliveries advisory"),
        }
    }
}

async fn end_dead_letter(
    bus: &Bus,
    reporter: &Reporter,
    advisory: MaxDeliveries,
) -> Result<(), BusError> {
    let fail = |message: String| BusError::Consume {
        consumer: advisory.consumer.clone(),
        message,
    };
    let stream = bus
        .js
        .get_stream(&advisory.stream)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let stored = match stream.get_raw_message(advisory.stream_seq).await {
        Ok(stored) => stored,
        Err(error) => {
            return Err(fail(format!(
                "message {} is gone: {error}",
                advisory.stream_seq
            )))
        }
    };
    let envelope = decode::<serde::de::IgnoredAny>(&stored.payload).ok();
    let request_id = envelope.as_ref().map(|e| e.request_id.clone());
    tracing::warn!(stream = %advisory.stream, consumer = %advisory.consumer, seq = advisory.stream_seq, ?request_id, "giving up on a message after its maximum deliveries");
    if let Some(envelope) = envelope.filter(|e| is_valid_token(&e.request_id)) {
        let is_audit = advisory.stream == bus.settings.audit_stream;
        if !is_audit {
            let request = RequestRef {
                client: client_of(&stored.subject, &envelope.client),
                trace: trace_of(Some(&stored.headers), &envelope.request_id),
                request_id: envelope.request_id,
                submitted_at_ms: 0,
            };
            announce(bus, reporter, &advisory, &request).await?;
        }
    }
    stream
        .delete_message(advisory.stream_seq)
        .await
        .map_err(|e| fail(e.to_string()))?;
    Ok(())
}

/// Whose request a stored message is about: on a submit subject, the client the subject
/// names (its body was written by the client); elsewhere, what the actor that wrote it said.
fn client_of(subject: &str, envelope_client: &str) -> String {
    super::reporter::submitter_of_subject(subject).unwrap_or_else(|| envelope_client.to_string())
}

/// Publishes the dead-letter event and ends the request as `failed`.
async fn announce(
    bus: &Bus,
    reporter: &Reporter,
    advisory: &MaxDeliveries,
    request: &RequestRef,
) -> Result<(), BusError> {
    let request_id = request.request_id.as_str();
    let event = request.envelope(DeadLetterEvent {
        stream: advisory.stream.clone(),
        consumer: advisory.consumer.clone(),
        stream_sequence: advisory.stream_seq,
        deliveries: advisory.deliveries,
    });
    let msg_id = format!("{request_id}.dead_letter");
    bus.publish_durable(&Subject::EventsDeadLetter, &msg_id, &request.trace, &event)
        .await?;
    let why = format!(
        "given up after {} deliveries to {} (each attempt was cut short, e.g. by a crash)",
        advisory.deliveries, advisory.consumer
    );
    let mut result = ExecResult::without_run(request_id, Status::Failed);
    result.error = Some(ErrorInfo::new(ErrorCode::Undeliverable, why));
    reporter.finish(request, result).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_submission_belongs_to_the_client_its_subject_names() {
        let submit = Subject::ExecSubmit {
            client: "alice".into(),
        };
        // A client's own envelope cannot make its dead letter someone else's.
        assert_eq!(client_of(&submit.to_subject(), "bob"), "alice");
        assert_eq!(client_of("cordon.v1.exec.assessed", "bob"), "bob");
    }
}
