//! The JetStream streams and durable consumers cordon declares. Everything here must work
//! on nats-server 2.9: work-queue retention, pull consumers with one filter subject,
//! explicit acks and the duplicate window; no KV and no 2.10 consumer features.

use std::time::Duration;

use async_nats::jetstream::consumer::{pull, AckPolicy, DeliverPolicy, PullConsumer};
use async_nats::jetstream::stream::{self, DiscardPolicy, RetentionPolicy, StorageType};

use super::{Bus, BusError};
use crate::protocol::subjects::wildcard;
use crate::protocol::Subject;

/// How long a role waits for a stream it may not create itself.
const STREAM_WAIT: Duration = Duration::from_secs(60);

/// Which stream a consumer reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamKind {
    Submit,
    Assessed,
    Scheduled,
    Audit,
    Results,
    Events,
    /// Held BLOCKED requests, the last record per request.
    Held,
    /// Override grants waiting for the Assessor (work queue).
    Override,
}

impl Bus {
    /// The configured name of a stream.
    pub fn stream_name(&self, kind: StreamKind) -> &str {
        let s = &self.settings;
        match kind {
            StreamKind::Submit => &s.submit_stream,
            StreamKind::Assessed => &s.assessed_stream,
            StreamKind::Scheduled => &s.scheduled_stream,
            StreamKind::Audit => &s.audit_stream,
            StreamKind::Results => &s.results_stream,
            StreamKind::Events => &s.events_stream,
            StreamKind::Held => &s.held_stream,
            StreamKind::Override => &s.override_stream,
        }
    }

    /// Creates every stream that does not exist yet (idempotent; any role may call it).
    pub async fn ensure_streams(&self) -> Result<(), BusError> {
        for kind in [
            StreamKind::Submit,
            StreamKind::Assessed,
            StreamKind::Scheduled,
            StreamKind::Audit,
            StreamKind::Results,
            StreamKind::Events,
            StreamKind::Held,
            StreamKind::Override,
        ] {
            self.ensure_stream(kind).await?;
        }
        Ok(())
    }

    /// Creates one stream if it does not exist. Another process may create it at the same
    /// moment (nats-server then answers the loser "subjects overlap"), and on a permissioned
    /// server only some credentials may create streams (the audit role, an admin): either
    /// way the stream is then waited for, up to `STREAM_WAIT`.
    async fn ensure_stream(&self, kind: StreamKind) -> Result<(), BusError> {
        let name = self.stream_name(kind);
        let error = match self.js.get_or_create_stream(self.stream_config(kind)).await {
            Ok(stream) => return self.reconcile(kind, stream).await,
            Err(error) => error,
        };
        tracing::info!(stream = name, %error, "cannot create the stream; waiting for a role allowed to");
        let deadline = tokio::time::Instant::now() + STREAM_WAIT;
        loop {
            if self.js.get_stream(name).await.is_ok() {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(BusError::Setup {
                    what: format!("stream {name}"),
                    message: format!(
                        "{error}; nor did another process create it within {STREAM_WAIT:?}"
                    ),
                });
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// A stream made by an older cordon or other settings is updated to what these settings
    /// ask for: direct reads on the results stream (which a server can allow per subject,
    /// so clients read only their own) and `nats.replicas` copies (a stream made on one
    /// server grows to the cluster's count).
    async fn reconcile(&self, kind: StreamKind, stream: stream::Stream) -> Result<(), BusError> {
        let wanted = self.stream_config(kind);
        let info = stream.cached_info();
        let have = &info.config;
        if have.allow_direct == wanted.allow_direct && have.num_replicas == wanted.num_replicas {
            return Ok(());
        }
        tracing::info!(
            stream = %have.name,
            replicas = wanted.num_replicas,
            allow_direct = wanted.allow_direct,
            "updating the stream to the settings"
        );
        let config = stream::Config {
            allow_direct: wanted.allow_direct,
            num_replicas: wanted.num_replicas,
            ..have.clone()
        };
        match self.js.update_stream(config).await {
            Ok(_) => Ok(()),
            Err(error) => Err(BusError::Setup {
                what: format!("stream {} (replicas, allow_direct)", self.stream_name(kind)),
                message: error.to_string(),
            }),
        }
    }

    fn stream_config(&self, kind: StreamKind) -> stream::Config {
        let s = &self.settings;
        let (subject, kept_per_subject) = match kind {
            StreamKind::Submit => (wildcard::exec_submit_all(), None),
            StreamKind::Assessed => (Subject::ExecAssessed.to_subject(), None),
            StreamKind::Scheduled => (wildcard::exec_scheduled_all(), None),
            StreamKind::Audit => (Subject::AuditAppend.to_subject(), None),
            StreamKind::Results => (wildcard::exec_result_all(), Some(1)),
            StreamKind::Events => (wildcard::events_all(), Some(-1)),
            StreamKind::Held => (wildcard::exec_held_all(), Some(1)),
            StreamKind::Override => (Subject::ExecOverride.to_subject(), None),
        };
        let base = stream::Config {
            name: self.stream_name(kind).to_string(),
            subjects: vec![subject],
            storage: StorageType::File,
            // Consumers take their stream's count (their own is left at 0).
            num_replicas: s.replicas,
            duplicate_window: Duration::from_secs(s.duplicate_window_secs),
            max_messages: s.max_queued_messages,
            // Clients read their own results by direct get, which names the subject, so a
            // server can allow it for `cordon.v1.exec.result.<client>.>` only.
            allow_direct: kind == StreamKind::Results,
            ..Default::default()
        };
        match kept_per_subject {
            // Work to be done: each message until one consumer acknowledges it; when full,
            // publishers are told so rather than old work being dropped.
            None => stream::Config {
                retention: RetentionPolicy::WorkQueue,
                discard: DiscardPolicy::New,
                ..base
            },
            // Results, events and held requests: kept for a while for whoever looks them up.
            Some(per_subject) => stream::Config {
                retention: RetentionPolicy::Limits,
                max_age: Duration::from_secs(s.results_max_age_secs),
                max_messages_per_subject: per_subject,
                discard: DiscardPolicy::Old,
                ..base
            },
        }
    }

    /// The durable pull consumer `durable` on a stream, created if missing. Every process of
    /// one role shares it, so each message goes to exactly one of them at a time.
    pub async fn durable_consumer(
        &self,
        kind: StreamKind,
        durable: &str,
        filter_subject: Option<String>,
    ) -> Result<PullConsumer, BusError> {
        let fail = |message: String| BusError::Setup {
            what: format!("consumer {durable} on {}", self.stream_name(kind)),
            message,
        };
        let stream = self.stream(kind).await.map_err(fail)?;
        let config = pull::Config {
            durable_name: Some(durable.to_string()),
            filter_subject: filter_subject.unwrap_or_default(),
            ack_policy: AckPolicy::Explicit,
            deliver_policy: DeliverPolicy::All,
            ack_wait: Duration::from_secs(self.settings.ack_wait_secs),
            max_deliver: self.settings.max_deliver,
            ..Default::default()
        };
        stream
            .get_or_create_consumer(durable, config)
            .await
            .map_err(|e| fail(e.to_string()))
    }

    async fn stream(
        &self,
        kind: StreamKind,
    ) -> Result<async_nats::jetstream::stream::Stream, String> {
        self.js
            .get_stream(self.stream_name(kind))
            .await
            .map_err(|e| e.to_string())
    }

    /// The last message stored for `subject` in a kept stream (results), if any.
    pub async fn last_message(
        &self,
        kind: StreamKind,
        subject: &Subject,
    ) -> Result<Option<Vec<u8>>, BusError> {
        Ok(self
            .last_stored(kind, subject)
            .await?
            .map(|(_, payload)| payload))
    }

    /// The last message on one subject of the results stream, read by direct get
    /// (`$JS.API.DIRECT.GET.<stream>.<subject>`): what a client may read of its own results
    /// without being able to read anyone else's or even the stream's info.
    pub async fn last_direct(
        &self,
        kind: StreamKind,
        subject: &Subject,
    ) -> Result<Option<Vec<u8>>, BusError> {
        use async_nats::jetstream::stream::DirectGetErrorKind;
        let fail = |message: String| BusError::Consume {
            consumer: format!("{} (direct get)", self.stream_name(kind)),
            message,
        };
        let stream = self
            .js
            .get_stream_no_info(self.stream_name(kind))
            .await
            .map_err(|e| fail(e.to_string()))?;
        match stream
            .direct_get_last_for_subject(subject.to_subject())
            .await
        {
            Ok(message) => Ok(Some(message.payload.to_vec())),
            Err(e) if e.kind() == DirectGetErrorKind::NotFound => Ok(None),
            Err(e) => Err(fail(e.to_string())),
        }
    }

    /// The stream sequence and payload of the last message stored for `subject`, if any.
    pub async fn last_stored(
        &self,
        kind: StreamKind,
        subject: &Subject,
    ) -> Result<Option<(u64, Vec<u8>)>, BusError> {
        let fail = |message: String| BusError::Consume {
            consumer: format!("{} (direct read)", self.stream_name(kind)),
            message,
        };
        let stream = self.stream(kind).await.map_err(fail)?;
        match stream
            .get_last_raw_message_by_subject(&subject.to_subject())
            .await
        {
            Ok(message) => Ok(Some((message.sequence, message.payload.to_vec()))),
            Err(e)
                if e.kind()
                    == async_nats::jetstream::stream::LastRawMessageErrorKind::NoMessageFound =>
            {
                Ok(None)
            }
            Err(e) => Err(fail(e.to_string())),
        }
    }
}
