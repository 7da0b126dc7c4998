//! The warm pool: sandboxes made ahead of their jobs, one job each, never reused. For each
//! pooled trust level it keeps up to `size` `WarmContainer`s of that level's exact shape.
//! A job whose spec has that shape takes one at once (`take` never waits); any other job,
//! or one finding none ready, runs cold. A background task refills after each take.
//!
//! Capacity: the Scheduler sees only jobs (in `HostLoad`), so the pool keeps warm
//! sandboxes only in room no job holds: jobs plus warm sandboxes, at their full limits,
//! never exceed the host's capacity minus the Scheduler's reserve. The actor reports the
//! jobs' limits through `jobs_changed`; when jobs grow into the pool's room, warm
//! sandboxes are evicted (removed) and the refill waits for room.
//!
//! Called by the supervisor actor (and the tests). Every warm sandbox is labelled
//! `cordon.managed=true`, `cordon.host` and `cordon.warm`, so `reap` removes it like any
//! other; dropping one unused removes it (`RemovalGuard`); `close` removes all.
//!
//! - `classes`: the pooled trust levels and the room, from the settings.
//! - `shape`: which specs a warm sandbox may serve.
//! - `room`: capacity arithmetic.
//! - `warm`: one warm sandbox.
//! - `refill`: the background task.

pub(crate) mod classes;
mod refill;
pub(crate) mod room;
pub(crate) mod shape;
pub(crate) mod warm;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bollard::Docker;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

pub use classes::{pool_classes, pool_room};
pub use room::{Held, Room};
pub use shape::Shape;
pub use warm::WarmContainer;

use super::spec::SandboxSpec;
use crate::docker::force_remove;

/// One pooled trust level: the spec its warm sandboxes are made from, and how many to keep.
#[derive(Debug, Clone)]
pub struct PoolClass {
    pub template: SandboxSpec,
    pub size: usize,
}

/// The pool. Dropping it stops the refill and removes the warm sandboxes in the
/// background; `close` does the same and waits for the removals.
pub struct WarmPool {
    inner: Arc<Inner>,
    refill: Mutex<Option<JoinHandle<()>>>,
}

struct Class {
    template: SandboxSpec,
    shape: Shape,
    size: usize,
}

struct Inner {
    docker: Docker,
    classes: Vec<Class>,
    room: Room,
    state: Mutex<State>,
    wake: Notify,
    closed: AtomicBool,
}

/// What the pool holds now.
struct State {
    /// Limits held by the host's jobs, as the actor last reported.
    jobs: Held,
    /// Ready sandboxes, per class (same order as `Inner::classes`).
    ready: Vec<VecDeque<WarmContainer>>,
    /// The class of the sandbox being made now, if any (it already counts as held).
    filling: Option<usize>,
}

impl WarmPool {
    /// Starts the pool and its refill task on the current runtime.
    pub fn start(docker: &Docker, classes: Vec<PoolClass>, room: Room) -> WarmPool {
        let classes: Vec<Class> = classes
            .into_iter()
            .filter(|c| c.size > 0)
            .map(|c| Class {
                shape: Shape::of(&c.template),
                template: c.template,
                size: c.size,
            })
            .collect();
        let ready = classes.iter().map(|_| VecDeque::new()).collect();
        let inner = Arc::new(Inner {
            docker: docker.clone(),
            classes,
            room,
            state: Mutex::new(State {
                jobs: Held::default(),
                ready,
                filling: None,
            }),
            wake: Notify::new(),
            closed: AtomicBool::new(false),
        });
        let refill = tokio::spawn(refill::run(inner.clone()));
        WarmPool {
            inner,
            refill: Mutex::new(Some(refill)),
        }
    }

    /// A fresh warm sandbox of `spec`'s shape, if one is ready; never waits. The pool
    /// starts making a replacement.
    pub fn take(&self, spec: &SandboxSpec) -> Option<WarmContainer> {
        let shape = Shape::of(spec);
        let Some(class) = self.inner.classes.iter().position(|c| c.shape == shape) else {
            tracing::debug!(?shape, "no warm sandboxes of this shape; the job runs cold");
            return None;
        };
        let (taken, stale) = {
            let mut state = self.inner.lock();
            let mut stale = Vec::new();
            let mut taken = None;
            while let Some(mut warm) = state.ready[class].pop_front() {
                if warm.is_fresh() {
                    taken = Some(warm);
                    break;
                }
                stale.push(warm);
            }
            (taken, stale)
        };
        for warm in stale {
            tracing::warn!(
                container = warm.id(),
                "a warm sandbox ended or spoke before its job; discarded"
            );
        }
        self.inner.wake.notify_one();
        taken
    }

    /// The host's jobs now hold `jobs`; warm sandboxes that no longer fit beside them are
    /// removed, and the refill uses whatever room is left.
    pub fn jobs_changed(&self, jobs: Held) {
        let evicted = self.inner.record_jobs(jobs);
        for warm in evicted {
            tracing::debug!(
                container = warm.id(),
                "evicting a warm sandbox to make room for jobs"
            );
        }
        self.inner.wake.notify_one();
    }

    /// Warm sandboxes ready now, over all classes.
    pub fn ready(&self) -> usize {
        self.inner.lock().ready.iter().map(VecDeque::len).sum()
    }

    /// Waits until at least `count` warm sandboxes are ready, or `within` passes; returns
    /// whether they are. For tests and benchmarks.
    pub async fn wait_ready(&self, count: usize, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while self.ready() < count {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }

    /// Stops the refill and removes every warm sandbox, waiting for the removals; `take`
    /// finds none afterwards.
    pub async fn close(&self) {
        self.inner.closed.store(true, Ordering::SeqCst);
        self.inner.wake.notify_one();
        let refill = self
            .refill
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(refill) = refill {
            let _ = refill.await;
        }
        let left: Vec<WarmContainer> = self.inner.drain();
        for warm in left {
            let (id, _image_id, _streams, mut guard) = warm.into_parts();
            match force_remove(&self.inner.docker, &id).await {
                Ok(()) => guard.disarm(),
                Err(error) => {
                    tracing::warn!(container = %id, %error, "cannot remove a warm sandbox; its guard retries")
                }
            }
        }
    }
}

impl Drop for WarmPool {
    fn drop(&mut self) {
        self.inner.closed.store(true, Ordering::SeqCst);
        self.inner.wake.notify_one();
        // Dropping them arms their guards' removals.
        drop(self.inner.drain());
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn is_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }

    fn drain(&self) -> Vec<WarmContainer> {
        let mut state = self.lock();
        state.ready.iter_mut().flat_map(|q| q.drain(..)).collect()
    }

    /// Limits held by warm sandboxes (ready and being made).
    fn warm_held(&self, state: &State) -> Held {
        let ready = state
            .ready
            .iter()
            .enumerate()
            .fold(Held::default(), |held, (i, q)| {
                let shape = &self.classes[i].shape;
                (0..q.len()).fold(held, |h, _| h.plus(shape.cpus(), shape.memory_bytes()))
            });
        match state.filling {
            Some(i) => ready.plus(
                self.classes[i].shape.cpus(),
                self.classes[i].shape.memory_bytes(),
            ),
            None => ready,
        }
    }

    /// Records the jobs' limits; returns the warm sandboxes that must go to make room,
    /// taken from the fullest classes first.
    fn record_jobs(&self, jobs: Held) -> Vec<WarmContainer> {
        let mut state = self.lock();
        state.jobs = jobs;
        let mut evicted = Vec::new();
        while !self.room.holds(jobs.and(self.warm_held(&state))) {
            let fullest = (0..state.ready.len()).max_by_key(|i| state.ready[*i].len());
            match fullest.and_then(|i| state.ready[i].pop_back()) {
                Some(warm) => evicted.push(warm),
                None => break,
            }
        }
        evicted
    }
}
