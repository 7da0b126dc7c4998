//! NATS and JetStream plumbing: connecting, declaring streams and consumers, publishing
//! enveloped messages with their headers, and the pull-and-acknowledge loop every actor
//! uses. Actors never touch async-nats directly for these; they call `Bus`.

pub mod auth;
pub mod consume;
pub mod dead_letter;
pub mod reporter;
pub mod streams;
pub mod trace;

use std::time::Duration;

use async_nats::jetstream;
use async_nats::HeaderMap;
use serde::Serialize;

use crate::config::NatsSettings;
use crate::protocol::{encode, CodecError, Envelope, Subject};
pub use consume::{run_pull_loop, Disposition, Incoming};
use trace::{TraceContext, TRACEPARENT};

/// Header naming the payload's encoding.
pub const CONTENT_TYPE: &str = "Content-Type";
/// The only encoding cordon speaks.
pub const MSGPACK: &str = "application/msgpack";
/// JetStream's deduplication header.
pub const MSG_ID: &str = "Nats-Msg-Id";
/// Room kept in every message for the envelope, headers and everything beside the code or
/// the output it carries (findings, limits, usage), bytes.
pub const MESSAGE_MARGIN: usize = 64 << 10;

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        url: String,
        source: async_nats::ConnectError,
    },
    #[error("NATS URL {url:?} is not usable: {message} (give nats://host:port, or several separated by commas)")]
    BadUrl { url: String, message: String },
    #[error(transparent)]
    Auth(#[from] auth::AuthError),
    #[error("cannot set up JetStream {what}: {message}")]
    Setup { what: String, message: String },
    #[error("cannot publish to {subject}: {message}")]
    Publish { subject: String, message: String },
    /// Permanent: the same message will never fit, so it must not be retried.
    #[error("a message of {bytes} bytes for {subject} is larger than the NATS server takes ({max} bytes, its max_payload)")]
    TooLarge {
        subject: String,
        bytes: usize,
        max: usize,
    },
    #[error("no stream takes {subject} yet (cordon is not up, or it is starting)")]
    NoStream { subject: String },
    #[error("cannot subscribe to {subject}: {message}")]
    Subscribe { subject: String, message: String },
    #[error("cannot read from consumer {consumer}: {message}")]
    Consume { consumer: String, message: String },
    #[error(transparent)]
    Codec(#[from] CodecError),
}

/// A connection to NATS with its JetStream context and the stream settings.
#[derive(Clone)]
pub struct Bus {
    pub client: async_nats::Client,
    pub js: jetstream::Context,
    pub settings: NatsSettings,
}

/// What a first connection does when no server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patience {
    /// Actors: the server may come up after them (a service manager starts both), so keep
    /// trying until it does.
    WaitForServer,
    /// Clients and commands: nobody listening is an error at once ("connection refused").
    FailFast,
}

impl Bus {
    /// Connects as `name` with the configured credentials (`nats.auth`), retrying while
    /// the server is not up yet, and keeps reconnecting for as long as the process lives.
    pub async fn connect(url: &str, name: &str, settings: &NatsSettings) -> Result<Bus, BusError> {
        Self::connect_as(url, name, settings, &settings.auth, Patience::WaitForServer).await
    }

    /// Like `connect`, but fails at once when the server does not answer (a person is
    /// waiting): `cordon exec --nats`, `cordon override`, the Rust client.
    pub async fn connect_now(
        url: &str,
        name: &str,
        settings: &NatsSettings,
    ) -> Result<Bus, BusError> {
        Self::connect_as(url, name, settings, &settings.auth, Patience::FailFast).await
    }

    /// Connects as `name` presenting `credentials` (an actor role's own). Once connected,
    /// it reconnects for as long as the process lives, whatever `patience` says.
    pub async fn connect_as(
        url: &str,
        name: &str,
        settings: &NatsSettings,
        credentials: &crate::config::Credentials,
        patience: Patience,
    ) -> Result<Bus, BusError> {
        let inbox_prefix = match settings.inbox_prefix.as_str() {
            "" => credentials.default_inbox_prefix(),
            configured => configured.to_string(),
        };
        let connection = name.to_string();
        let mut options = async_nats::ConnectOptions::new()
            .name(name)
            .event_callback(move |event| log_event(connection.clone(), event))
            .custom_inbox_prefix(inbox_prefix)
            .retain_servers_order()
            .max_reconnects(None)
            .connection_timeout(Duration::from_secs(5));
        if patience == Patience::WaitForServer {
            options = options.retry_on_initial_connect();
        }
        let servers = server_addrs(url)?;
        let client = credentials
            .apply(options)
            .await?
            .connect(servers)
            .await
            .map_err(|source| BusError::Connect {
                url: url.to_string(),
                source,
            })?;
        let js = jetstream::new(client.clone());
        Ok(Bus {
            client,
            js,
            settings: settings.clone(),
        })
    }

    /// Publishes into a JetStream stream and waits for the server to store it.
    /// `msg_id` deduplicates republication (after a crash) within the duplicate window.
    pub async fn publish_durable<T: Serialize>(
        &self,
        subject: &Subject,
        msg_id: &str,
        trace: &TraceContext,
        envelope: &Envelope<T>,
    ) -> Result<(), BusError> {
        self.store(subject, msg_id, trace, envelope, None)
            .await
            .map(|_| ())
    }

    /// Like `publish_durable`, but stored only if the last message on `subject` is still
    /// the one at stream sequence `last_subject_seq` (0: there is none). `Ok(false)` when
    /// another publisher got there first. nats-server 2.9 checks this atomically.
    pub async fn publish_durable_if_last<T: Serialize>(
        &self,
        subject: &Subject,
        msg_id: &str,
        trace: &TraceContext,
        envelope: &Envelope<T>,
        last_subject_seq: u64,
    ) -> Result<bool, BusError> {
        self.store(subject, msg_id, trace, envelope, Some(last_subject_seq))
            .await
    }

    /// The largest message the connected server takes (its `max_payload`).
    pub fn max_payload(&self) -> usize {
        self.client.server_info().max_payload
    }

    /// The most bytes of code or output one message may carry on this bus, beside the
    /// rest of its content (`MESSAGE_MARGIN`).
    pub fn content_room(&self) -> usize {
        self.max_payload().saturating_sub(MESSAGE_MARGIN)
    }

    /// Refuses, as permanent, a payload the server would refuse.
    fn check_size(&self, subject: &str, payload: &[u8]) -> Result<(), BusError> {
        let max = self.max_payload();
        if max > 0 && payload.len() > max {
            return Err(BusError::TooLarge {
                subject: subject.to_string(),
                bytes: payload.len(),
                max,
            });
        }
        Ok(())
    }

    /// Publishes to a stream and waits for the store; `Ok(false)` only when an expected
    /// last subject sequence was given and another message got there first.
    async fn store<T: Serialize>(
        &self,
        subject: &Subject,
        msg_id: &str,
        trace: &TraceContext,
        envelope: &Envelope<T>,
        expected_last_subject_seq: Option<u64>,
    ) -> Result<bool, BusError> {
        use async_nats::jetstream::context::PublishErrorKind;
        let subject = subject.to_subject();
        let mut headers = message_headers(trace);
        headers.insert(MSG_ID, msg_id);
        if let Some(sequence) = expected_last_subject_seq {
            let expected = async_nats::header::NATS_EXPECTED_LAST_SUBJECT_SEQUENCE;
            headers.insert(expected, sequence.to_string().as_str());
        }
        let payload = encode(envelope)?;
        self.check_size(&subject, &payload)?;
        let fail = |message: String| BusError::Publish {
            subject: subject.clone(),
            message,
        };
        let ack = self
            .js
            .publish_with_headers(subject.clone(), headers, payload.into())
            .await
            .map_err(|e| fail(e.to_string()))?;
        match ack.await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => Ok(false),
            Err(e) if e.kind() == PublishErrorKind::StreamNotFound => {
                Err(BusError::NoStream { subject })
            }
            Err(e) => Err(fail(e.to_string())),
        }
    }

    /// Publishes a core NATS message (at most once: samples, kill orders, load reports).
    pub async fn publish<T: Serialize>(
        &self,
        subject: &Subject,
        trace: &TraceContext,
        envelope: &Envelope<T>,
    ) -> Result<(), BusError> {
        let subject = subject.to_subject();
        let payload = encode(envelope)?;
        self.check_size(&subject, &payload)?;
        self.client
            .publish_with_headers(subject.clone(), message_headers(trace), payload.into())
            .await
            .map_err(|e| BusError::Publish {
                subject,
                message: e.to_string(),
            })
    }

    /// Answers a request on its reply subject (core NATS).
    pub async fn reply<T: Serialize>(
        &self,
        reply_to: &str,
        envelope: &Envelope<T>,
    ) -> Result<(), BusError> {
        let payload = encode(envelope)?;
        self.check_size(reply_to, &payload)?;
        self.client
            .publish(reply_to.to_string(), payload.into())
            .await
            .map_err(|e| BusError::Publish {
                subject: reply_to.to_string(),
                message: e.to_string(),
            })
    }

    /// Sends a request and waits up to `wait` for the one answer (core NATS).
    pub async fn request<T: Serialize>(
        &self,
        subject: &Subject,
        envelope: &Envelope<T>,
        wait: std::time::Duration,
    ) -> Result<Vec<u8>, BusError> {
        let subject = subject.to_subject();
        let payload = encode(envelope)?;
        let asked = self.client.request(subject.clone(), payload.into());
        match tokio::time::timeout(wait, asked).await {
            Ok(Ok(message)) => Ok(message.payload.to_vec()),
            Ok(Err(e)) => Err(BusError::Publish {
                subject,
                message: e.to_string(),
            }),
            Err(_) => Err(BusError::Publish {
                subject,
                message: format!("no answer within {wait:?}"),
            }),
        }
    }

    /// Subscribes to a subject or wildcard.
    pub async fn subscribe(&self, subject: String) -> Result<async_nats::Subscriber, BusError> {
        self.client
            .subscribe(subject.clone())
            .await
            .map_err(|e| BusError::Subscribe {
                subject,
                message: e.to_string(),
            })
    }

    /// Waits until everything published so far has reached the server.
    pub async fn flush(&self) -> Result<(), BusError> {
        self.client.flush().await.map_err(|e| BusError::Publish {
            subject: "(flush)".into(),
            message: e.to_string(),
        })
    }
}

/// The servers of `url`: one `nats://host:port`, or several separated by commas (the
/// servers of one cluster). They are tried in the order given, so each host lists its
/// nearest server first; when a server goes away the connection moves to another, and it
/// also learns the cluster's other servers from the one it reached.
fn server_addrs(url: &str) -> Result<Vec<async_nats::ServerAddr>, BusError> {
    let bad = |message: String| BusError::BadUrl {
        url: url.to_string(),
        message,
    };
    let servers: Vec<async_nats::ServerAddr> = url
        .split(',')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| part.parse().map_err(|e| bad(format!("{part:?}: {e}"))))
        .collect::<Result<_, _>>()?;
    if servers.is_empty() {
        return Err(bad("no server named".into()));
    }
    Ok(servers)
}

/// Logs what the server says about a connection. A permissions violation (which the server
/// answers with an error line rather than a reply, so the request itself only times out) is
/// a warning naming the refused subject, so the timeout can be understood.
async fn log_event(connection: String, event: async_nats::Event) {
    use async_nats::{Event, ServerError};
    match event {
        Event::ServerError(ServerError::Other(message)) if message.contains("Permissions") => {
            tracing::warn!(connection, %message, "the NATS server refused an operation");
        }
        Event::ServerError(error) => tracing::warn!(connection, %error, "NATS server error"),
        other => tracing::debug!(connection, event = %other, "NATS connection event"),
    }
}

/// Headers every cordon message carries.
fn message_headers(trace: &TraceContext) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, MSGPACK);
    headers.insert(TRACEPARENT, trace.to_header().as_str());
    headers
}

/// The trace context of a received message: its header, or one derived from the request.
pub fn trace_of(headers: Option<&HeaderMap>, request_id: &str) -> TraceContext {
    headers
        .and_then(|h| h.get(TRACEPARENT))
        .and_then(|v| TraceContext::parse(v.as_str()))
        .unwrap_or_else(|| TraceContext::for_request(request_id))
}

/// The `Nats-Msg-Id` a client put on a message, if any. async-nats keeps this header under
/// its standard name when it parses a received message but under the plain string when it is
/// inserted as one, and a lookup finds only the same form: both are tried.
pub fn msg_id_of(headers: Option<&HeaderMap>) -> Option<String> {
    let headers = headers?;
    headers
        .get(async_nats::header::NATS_MESSAGE_ID)
        .or_else(|| headers.get(MSG_ID))
        .map(|v| v.as_str().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_list_names_each_server_in_its_order() {
        let servers = server_addrs("nats://127.0.0.1:4222, nats://127.0.0.1:4223,").unwrap();
        let ports: Vec<u16> = servers.iter().map(|s| s.port()).collect();
        assert_eq!(ports, [4222, 4223]);
        assert_eq!(server_addrs("nats://127.0.0.1:4222").unwrap().len(), 1);
        for bad in ["", " , ", "nats://127.0.0.1:notaport"] {
            let err = server_addrs(bad).unwrap_err().to_string();
            assert!(err.contains("not usable"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn the_msg_id_a_client_set_is_found() {
        let mut headers = HeaderMap::new();
        headers.insert(MSG_ID, "01J9ZQ3V7Y8K2M4N6P8R0T2V4X");
        headers.insert(CONTENT_TYPE, MSGPACK);
        assert_eq!(
            msg_id_of(Some(&headers)).as_deref(),
            Some("01J9ZQ3V7Y8K2M4N6P8R0T2V4X")
        );
        let mut standard = HeaderMap::new();
        standard.insert(
            async_nats::header::NATS_MESSAGE_ID,
            "01J9ZQ3V7Y8K2M4N6P8R0T2V4Y",
        );
        assert_eq!(
            msg_id_of(Some(&standard)).as_deref(),
            Some("01J9ZQ3V7Y8K2M4N6P8R0T2V4Y")
        );
        assert_eq!(msg_id_of(Some(&HeaderMap::new())), None);
        assert_eq!(msg_id_of(None), None);
    }
}
