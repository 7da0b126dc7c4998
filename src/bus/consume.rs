//! The pull-and-acknowledge loop every JetStream-fed actor runs. It asks the server for
//! only as many messages as it has free handler slots, so no message ever waits in a
//! client buffer unseen (where it would be redelivered to another worker after the ack
//! wait while still queued here). A message is acknowledged only after its handler
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
/// Every free slot is covered by exactly one outstanding pull request (a slot that frees
/// while others are asked for gets a request of its own), so a message is handled as soon
/// as it arrives and none arrives without a slot.
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
    let handle = |message: Message| {
        let span = message_span(name, &message);
        handle_one(message, (&handler, reporter), progress_every).instrument(span)
    };
    loop {
        let free = concurrency - running.len() - asked;
        if free > 0 {
            match pull(&consumer, free).await {
                Ok(request) => {
                    asked += free;
                    requests.push(request);
                }
                Err(e) => {
                    tracing::warn!(consumer = name, error = %e, "pull request failed; retrying");
                    tokio::select! {
                        () = run_for(&mut running, Duration::from_millis(200)) => {}
                        _ = shutdown.wait() => break,
                    }
                    continue;
                }
            }
        }
        tokio::select! {
            Some(pulled) = requests.next() => match pulled {
                Pulled::Message(message) => {
                    asked -= 1;
                    running.push(handle(*message));
                }
                Pulled::Broken(e) => {
                    tracing::warn!(consumer = name, error = %e, "pull consumer hiccup; continuing");
                }
                Pulled::Over { undelivered } => asked -= undelivered,
            },
            Some(()) = running.next(), if !running.is_empty() => {}
            _ = shutdown.wait() => break,
        }
    }
    tracing::debug!(consumer = name, "stopping on shutdown");
    Ok(())
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

/// Runs the handlers in `running` for `pause`.
async fn run_for<S>(running: &mut S, pause: Duration)
where
    S: futures::Stream<Item = ()> + Unpin,
{
    let until = tokio::time::sleep(pause);
    tokio::pin!(until);
    loop {
        tokio::select! {
            () = &mut until => return,
            Some(()) = running.next() => {}
        }
    }
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
