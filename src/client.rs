//! The typed client: submit an `ExecRequest` and wait for its `ExecResult`. `cordon exec`
//! uses it; so can any Rust program. It submits on `cordon.v1.exec.submit.<client>`
//! (`nats.client`), subscribes to `cordon.v1.exec.result.<client>.<request_id>` before
//! submitting, and falls back to the results stream (a direct get of that one subject) if
//! the live message was missed. It never creates streams: a permissioned server lets a
//! client do nothing but submit and read its own results.

use std::time::Duration;

use futures::StreamExt;

use crate::bus::streams::StreamKind;
use crate::bus::trace::TraceContext;
use crate::bus::{Bus, BusError};
use crate::config::NatsSettings;
use crate::protocol::exec::{ExecRequest, ExecResult, OutputChunk};
use crate::protocol::scheduler::SessionList;
use crate::protocol::supervisor::OpenSession;
use crate::protocol::{decode, now_ms, CodecError, Envelope, Subject};

/// How long `sessions` waits for the Scheduler's answer.
const LIST_WAIT: Duration = Duration::from_secs(5);
/// How long `submit` waits for a stream to take submissions (cordon starting up).
const SUBMIT_PATIENCE: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Bus(#[from] BusError),
    #[error("result of {request_id} is unreadable: {source}")]
    BadResult {
        request_id: String,
        source: CodecError,
    },
    #[error("no result for {request_id} within {waited:?}; it may still be queued or running")]
    TimedOut {
        request_id: String,
        waited: Duration,
    },
}

/// A connection that submits requests and waits for results.
pub struct Client {
    bus: Bus,
    /// The client name requests are submitted under.
    name: String,
}

impl Client {
    /// Connects with the configured credentials, as client `settings.client`. A server
    /// that does not answer is an error at once (it keeps reconnecting once connected).
    pub async fn connect(url: &str, settings: &NatsSettings) -> Result<Client, ClientError> {
        let bus = Bus::connect_now(url, "cordon-client", settings).await?;
        let name = settings.client_name();
        Ok(Client { bus, name })
    }

    /// The client name requests are submitted under.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A fresh request id (a ULID).
    pub fn new_request_id() -> String {
        ulid::Ulid::new().to_string()
    }

    /// Submits a request; resubmitting the same id within the duplicate window is a no-op.
    /// While no stream takes submissions yet (cordon starting), it tries again for up to
    /// `SUBMIT_PATIENCE`.
    pub async fn submit(&self, request_id: &str, request: &ExecRequest) -> Result<(), ClientError> {
        let envelope = Envelope::new(request_id, now_ms(), request.clone());
        let trace = TraceContext::for_request(request_id);
        let subject = self.submit_subject();
        let deadline = tokio::time::Instant::now() + SUBMIT_PATIENCE;
        loop {
            let outcome = self
                .bus
                .publish_durable(&subject, request_id, &trace, &envelope)
                .await;
            match outcome {
                Err(BusError::NoStream { .. }) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                outcome => return Ok(outcome?),
            }
        }
    }

    /// Submits a request and waits up to `wait` for its result.
    pub async fn run(
        &self,
        request_id: &str,
        request: &ExecRequest,
        wait: Duration,
    ) -> Result<ExecResult, ClientError> {
        self.run_following(request_id, request, wait, None).await
    }

    /// Like `run`, and hands each piece of output to `on_output` while the program runs
    /// (best effort: the result holds the whole output either way).
    pub async fn run_following(
        &self,
        request_id: &str,
        request: &ExecRequest,
        wait: Duration,
        mut on_output: Option<&mut (dyn FnMut(OutputChunk) + Send)>,
    ) -> Result<ExecResult, ClientError> {
        let subject = self.result_subject(request_id);
        let mut live = self.bus.subscribe(subject.to_subject()).await?;
        let mut output = match on_output.is_some() {
            true => Some(self.bus.subscribe(self.output_subject(request_id)).await?),
            false => None,
        };
        self.submit(request_id, request).await?;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let poll_until = (tokio::time::Instant::now() + Duration::from_secs(2)).min(deadline);
            let next_output = async {
                match output.as_mut() {
                    Some(output) => output.next().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(message) = next_output => {
                    if let (Ok(chunk), Some(deliver)) = (decode::<OutputChunk>(&message.payload), on_output.as_mut()) {
                        deliver(chunk.body);
                    }
                }
                arrived = tokio::time::timeout_at(poll_until, live.next()) => match arrived {
                    Ok(Some(message)) => return self.parse(request_id, &message.payload),
                    Ok(None) | Err(_) => {
                        // Missed the live message (reconnect)? The results stream keeps it.
                        if let Some(result) = self.stored_result(request_id).await? {
                            return Ok(result);
                        }
                    }
                },
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ClientError::TimedOut {
                    request_id: request_id.into(),
                    waited: wait,
                });
            }
        }
    }

    /// The stored result of a request, if it has finished.
    pub async fn stored_result(&self, request_id: &str) -> Result<Option<ExecResult>, ClientError> {
        let subject = self.result_subject(request_id);
        match self.bus.last_direct(StreamKind::Results, &subject).await? {
            Some(payload) => self.parse(request_id, &payload).map(Some),
            None => Ok(None),
        }
    }

    /// The sessions this client holds open, as the Scheduler knows them.
    pub async fn sessions(&self) -> Result<Vec<OpenSession>, ClientError> {
        let subject = Subject::SessionList {
            client: self.name.clone(),
        };
        let ask = Envelope::new("", now_ms(), ());
        let answer = self.bus.request(&subject, &ask, LIST_WAIT).await?;
        let list = decode::<SessionList>(&answer).map_err(|source| ClientError::BadResult {
            request_id: "session list".into(),
            source,
        })?;
        Ok(list.body.sessions)
    }

    fn submit_subject(&self) -> Subject {
        Subject::ExecSubmit {
            client: self.name.clone(),
        }
    }

    fn output_subject(&self, request_id: &str) -> String {
        let subject = Subject::ExecOutput {
            client: self.name.clone(),
            request_id: request_id.to_string(),
        };
        subject.to_subject()
    }

    fn result_subject(&self, request_id: &str) -> Subject {
        Subject::ExecResult {
            client: self.name.clone(),
            request_id: request_id.to_string(),
        }
    }

    fn parse(&self, request_id: &str, payload: &[u8]) -> Result<ExecResult, ClientError> {
        decode::<ExecResult>(payload)
            .map(|envelope| envelope.body)
            .map_err(|source| ClientError::BadResult {
                request_id: request_id.into(),
                source,
            })
    }
}
