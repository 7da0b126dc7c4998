//! The pull-and-acknowledge loop every JetStream-fed actor runs. It asks the server for
//! only as many messages as it has free handler slots, so no message waits unseen in a
//! client buffer while handlers are busy (where it would be redelivered to another worker
//! after the ack wait while still queued here; a request dropped at shutdown, or given up
//! by the client's own timer, still leaves its messages to come back after the ack wait). A message is acknowledged only after its handler
//! returns, i.e. after everything it caused is published; while a handler runs,
//! in-progress acks keep the server from redelivering it. On shutdown the loop stops
//! pulling and drops unfinished handlers: their messages are redelivered. A handler that
//! panics fails only its message: the request is answered `failed` (`internal`) and
//! audited through the actor's `Reporter`, and the loop goes on.

use std::future::Future;
use std::time::Duration;

use async_nats::jetstream::consumer::PullConsumer;
use async_nats::jetstream::{AckKind, Message};
use futures::stream::{BoxStream, FuturesUnordered, SelectAll};
use futures::StreamExt;
use tracing::Instrument;

use super::reporter::Reporter;
use super::BusError;
use crate::shutdown::Shutdown;

/// How long one pull request waits on the server for messages before it is renewed.
const PULL_WAIT: Duration = Duration::from_secs(1);

/// A message as a handler receives it.
pub type Incoming = Message;

/// What to tell the server once a handler is done with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposition {
    /// Done: everything it caused is published.
    Ack,
    /// Not done: deliver it again after this long (counts toward max deliveries).
    Retry(Duration),
    /// Never deliver it again (it was answered some other way).
    Term,
    /// Its consequences can never be published (too large for the bus): answer the
    /// request `failed` with this error once, then acknowledge it.
    Fail(crate::protocol::exec::ErrorInfo),
}

/// Pulls messages from `consumer` and runs `handler` on up to `concurrency` at a time until
/// `shutdown` fires. `progress_every` should be well inside the consumer's ack wait.
/// Free slots are always covered by outstanding pull requests, and only free slots, so a
/// message is handled as soon as it arrives and none arrives without a slot. Handlers run
/// all along, also while a request is being made. A request the server refuses (a leader
/// election, too many waiting requests) is not renewed before a growing pause.
pub async fn run_pull_loop<F, Fut>(
    consumer: PullConsumer,
    (name, reporter): (&str, &Reporter),
    concurrency: usize,
    progress_every: Duration,
    mut shutdown: Shutdown,
    handler: F,
) -> Result<(), BusError>
where
    F: Fn(Incoming) -> Fut,
    Fut: Future<Output = Disposition>,
{
    let concurrency = concurrency.max(1);
    let mut running = FuturesUnordered::new();
    let mut requests = SelectAll::new();
    // Messages asked for and neither delivered nor expired yet.
    let mut asked = 0;
    let mut backoff = Backoff::default();
    let handle = |message: Message| {
        let span = message_span(name, &message);
        handle_one(message, (&handler, reporter), progress_every).instrument(span)
    };
    loop {
        let free = concurrency - running.len() - asked;
        if free > 0 && backoff.over() {
            let request = pull(&consumer, free);
            tokio::pin!(request);
            let made = loop {
                tokio::select! {
                    made = &mut request => break Some(made),
                    Some(()) = running.next(), if !running.is_empty() => {}
                    _ = shutdown.wait() => break None,
                }
            };
            match made {
                None => break,
                Some(Ok(request)) => {
                    asked += free;
                    requests.push(request);
                }
                Some(Err(e)) => {
                    tracing::warn!(consumer = name, error = %e, "pull request failed; retrying");
                    backoff.failed();
                }
            }
        }
        tokio::select! {
            Some(pulled) = requests.next() => match pulled {
                Pulled::Message(message) => {
                    asked -= 1;
                    backoff.reset();
                    running.push(handle(*message));
                }
                Pulled::Broken(e) => {
                    tracing::warn!(consumer = name, error = %e, "pull consumer hiccup; pausing");
                    backoff.failed();
                }
                Pulled::Over { undelivered } => asked -= undelivered,
            },
            Some(()) = running.next(), if !running.is_empty() => {}
            () = backoff.wait(), if !backoff.over() => {}
            _ = shutdown.wait() => break,
        }
    }
    tracing::debug!(consumer = name, "stopping on shutdown");
    Ok(())
}

/// The pause before the next pull request after the server refused one: 200 ms, doubling
/// to 2 s, gone once a message arrives.
#[derive(Default)]
struct Backoff {
    pause: Option<Duration>,
    until: Option<tokio::time::Instant>,
}

impl Backoff {
    fn failed(&mut self) {
        let pause = self.pause.map_or(Duration::from_millis(200), |p| {
            (p * 2).min(Duration::from_secs(2))
        });
        self.pause = Some(pause);
        self.until = Some(tokio::time::Instant::now() + pause);
    }

    fn reset(&mut self) {
        *self = Backoff::default();
    }

    fn over(&self) -> bool {
        self.until
            .is_none_or(|until| tokio::time::Instant::now() >= until)
    }

    async fn wait(&self) {
        if let Some(until) = self.until {
            tokio::time::sleep_until(until).await;
        }
    }
}

/// What one pull request yields: messages, a broken request, and at its end how many of
/// the messages it asked for never came.
enum Pulled {
    Message(Box<Message>),
    Broken(String),
    Over { undelivered: usize },
}

/// One pull request for `count` messages, waiting at most `PULL_WAIT` on the server.
async fn pull(
    consumer: &PullConsumer,
    count: usize,
) -> Result<BoxStream<'static, Pulled>, async_nats::Error> {
    let batch = consumer
        .batch()
        .max_messages(count)
        .expires(PULL_WAIT)
        .messages()
        .await?;
    let pulled = futures::stream::unfold(Some((batch, count)), |state| async move {
        let (mut batch, left) = state?;
        match batch.next().await {
            Some(Ok(message)) => {
                Some((Pulled::Message(Box::new(message)), Some((batch, left - 1))))
            }
            Some(Err(e)) => Some((Pulled::Broken(e.to_string()), Some((batch, left)))),
            None => Some((Pulled::Over { undelivered: left }, None)),
        }
    });
    Ok(pulled.boxed())
}

/// The span a message is handled in: its trace id (from `traceparent`) ties together the
/// logs of every process that handles the same request.
fn message_span(consumer: &str, message: &Message) -> tracing::Span {
    let request_id = super::msg_id_of(message.headers.as_ref()).unwrap_or_default();
    let trace = super::trace_of(message.headers.as_ref(), &request_id);
    tracing::info_span!("message", consumer, subject = %message.subject, trace_id = %trace.trace_id_hex())
}

/// A message whose handler has not finished. If the handler is dropped (shutdown), the
/// message is handed back at once (nak) instead of waiting out the ack wait.
struct Unsettled(Option<Message>);

impl Unsettled {
    fn settle(mut self) -> Message {
        self.0.take().expect("settled once")
    }
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        let Some(message) = self.0.take() else { return };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = message.ack_with(AckKind::Nak(None)).await;
            });
        }
    }
}

/// Runs the handler on one message, sending in-progress acks while it works, then settles it.
async fn handle_one<F, Fut>(
    message: Message,
    (handler, reporter): (&F, &Reporter),
    progress_every: Duration,
) where
    F: Fn(Incoming) -> Fut,
    Fut: Future<Output = Disposition>,
{
    let started = std::time::Instant::now();
    let unsettled = Unsettled(Some(message.clone()));
    let work = crate::panics::Caught::new(handler(message.clone()));
    tokio::pin!(work);
    let mut progress =
        tokio::time::interval_at(tokio::time::Instant::now() + progress_every, progress_every);
    let disposition = loop {
        tokio::select! {
            outcome = &mut work => match outcome {
                Ok(Disposition::Fail(error)) => break reporter.fail_request(&message, error).await,
                Ok(disposition) => break disposition,
                Err(panic) => break reporter.fail_after_panic(&message, &panic).await,
            },
            _ = progress.tick() => {
                if let Err(e) = message.ack_with(AckKind::Progress).await {
                    tracing::warn!(subject = %message.subject, error = %e, "in-progress ack failed");
                }
            }
        }
    };
    let message = unsettled.settle();
    let kind = match disposition {
        Disposition::Ack => AckKind::Ack,
        Disposition::Retry(delay) => AckKind::Nak(Some(delay)),
        Disposition::Term | Disposition::Fail(_) => AckKind::Term,
    };
    let elapsed_ms = started.elapsed().as_millis() as u64;
    tracing::info!(?disposition, elapsed_ms, "handled");
    if let Err(e) = message.ack_with(kind).await {
        tracing::warn!(subject = %message.subject, error = %e, "settling a message failed; it will be redelivered");
    }
}
