//! The pool's background task: makes one warm sandbox at a time for the class furthest
//! below its size that fits in the room left by jobs and other warm sandboxes, and sleeps
//! until a take, a change in jobs, or a retry tick. Ends when the pool closes. A sandbox
//! that no longer fits when finished is dropped, so its guard removes it.

use std::sync::Arc;
use std::time::Duration;

use super::{Inner, WarmContainer};
use crate::supervisor::SandboxError;

/// How long to wait after Docker refused to make a warm sandbox.
const RETRY_AFTER_ERROR: Duration = Duration::from_secs(2);
/// How often to look again without being woken.
const IDLE_TICK: Duration = Duration::from_secs(1);

pub(super) async fn run(inner: Arc<Inner>) {
    while !inner.is_closed() {
        let Some(class) = inner.choose_class() else {
            tokio::select! {
                () = inner.wake.notified() => {},
                () = tokio::time::sleep(IDLE_TICK) => {},
            }
            continue;
        };
        let made = super::warm::prepare(&inner.docker, &inner.classes[class].template).await;
        if let Err(error) = inner.finish_filling(class, made) {
            tracing::warn!(%error, "cannot make a warm sandbox; jobs start cold meanwhile");
            tokio::time::sleep(RETRY_AFTER_ERROR).await;
        }
    }
}

impl Inner {
    /// The class to make a sandbox for next (marked as being filled), if any is short and
    /// fits.
    fn choose_class(&self) -> Option<usize> {
        let mut state = self.lock();
        let held = state.jobs.and(self.warm_held(&state));
        let class = (0..self.classes.len())
            .filter(|i| state.ready[*i].len() < self.classes[*i].size)
            .filter(|i| {
                let shape = &self.classes[*i].shape;
                self.room
                    .holds(held.plus(shape.cpus(), shape.memory_bytes()))
            })
            .min_by_key(|i| state.ready[*i].len())?;
        state.filling = Some(class);
        Some(class)
    }

    /// Puts a freshly made sandbox in its queue, unless jobs took its room meanwhile (then
    /// it is dropped and its guard removes it). After `close` it is queued all the same:
    /// `close` removes what is queued once this task has ended, and waits for it.
    fn finish_filling(
        &self,
        class: usize,
        made: Result<WarmContainer, SandboxError>,
    ) -> Result<(), SandboxError> {
        let mut state = self.lock();
        state.filling = None;
        let warm = made?;
        let held = state.jobs.and(self.warm_held(&state));
        let shape = &self.classes[class].shape;
        let fits = self
            .room
            .holds(held.plus(shape.cpus(), shape.memory_bytes()));
        if !fits && !self.is_closed() {
            drop(state);
            drop(warm);
            return Ok(());
        }
        state.ready[class].push_back(warm);
        Ok(())
    }
}
