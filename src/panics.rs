//! What a panic does. Inside `catch` (one program's analysis) or a `Caught` future (one
//! message's handler in `bus::run_pull_loop`), a panic is logged and returned as an error:
//! that one request fails or is held, and the process goes on with the next. Anywhere
//! else the panic hook ends the process, so a process manager restarts it and
//! unacknowledged work is redelivered: no actor limps on with a dead task.

use std::cell::Cell;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Longest panic message kept (it goes into a result and an alert).
const MAX_MESSAGE_CHARS: usize = 300;

thread_local! {
    /// How many `catch` calls this thread is inside.
    static CAUGHT_HERE: Cell<u32> = const { Cell::new(0) };
}

/// Installs the hook: log every panic; end the process unless a `catch` will take it.
pub fn install_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if CAUGHT_HERE.with(Cell::get) > 0 {
            tracing::error!(panic = %info, "panic while handling one request; it fails, the process goes on");
            return;
        }
        tracing::error!(panic = %info, "panic; ending the process");
        default(info);
        std::process::abort();
    }));
}

/// Runs `work`, turning a panic into `Err(its message)`.
pub fn catch<R>(work: impl FnOnce() -> R) -> Result<R, String> {
    CAUGHT_HERE.with(|depth| depth.set(depth.get() + 1));
    let outcome = catch_unwind(AssertUnwindSafe(work));
    CAUGHT_HERE.with(|depth| depth.set(depth.get() - 1));
    outcome.map_err(|payload| message_of(payload.as_ref()))
}

/// A future whose panics become `Err(message)`; once it has panicked it is dropped (its
/// destructors run: a sandbox's removal guard still removes the sandbox).
pub struct Caught<F> {
    inner: Option<Pin<Box<F>>>,
}

impl<F: Future> Caught<F> {
    pub fn new(inner: F) -> Caught<F> {
        Caught {
            inner: Some(Box::pin(inner)),
        }
    }
}

impl<F: Future> Future for Caught<F> {
    type Output = Result<F::Output, String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(Err("polled after it panicked".into()));
        };
        match catch(|| inner.as_mut().poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(message) => {
                this.inner = None;
                Poll::Ready(Err(message))
            }
        }
    }
}

fn message_of(payload: &(dyn std::any::Any + Send)) -> String {
    let text = if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with no message".to_string()
    };
    text.chars().take(MAX_MESSAGE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caught_panic_is_its_message_and_the_depth_is_restored() {
        assert_eq!(catch(|| 7), Ok(7));
        let caught = catch(|| -> u8 { panic!("bad input {}", 3) });
        assert_eq!(caught, Err("bad input 3".to_string()));
        assert_eq!(CAUGHT_HERE.with(Cell::get), 0);
    }

    #[tokio::test]
    async fn a_panicking_future_becomes_an_error_and_is_dropped() {
        struct Dropped(std::sync::Arc<std::sync::atomic::AtomicBool>);
        impl Drop for Dropped {
            fn drop(&mut self) {
                self.0.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let guard = Dropped(flag.clone());
        let outcome = Caught::new(async move {
            let _held = guard;
            tokio::task::yield_now().await;
            panic!("mid-run");
        })
        .await;
        assert_eq!(outcome, Err::<(), _>("mid-run".to_string()));
        assert!(
            flag.load(std::sync::atomic::Ordering::SeqCst),
            "destructors ran"
        );
        assert_eq!(Caught::new(async { 5 }).await, Ok(5));
    }
}
