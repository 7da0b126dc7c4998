//! The ResourceMonitor actor: for each `ContainerStarted` on `cordon.v1.container.started.<host>`
//! it samples the container every `monitor.sample_ms`, publishes `UsageSample`s on
//! `cordon.v1.container.usage.<request_id>` (at most every `monitor.sample_ms`; limits are
//! checked at every reading, every `monitor.cgroup_sample_ms` when the container's cgroup
//! files are readable) and, on a broken limit, a `KillOrder` on
//! `cordon.v1.container.kill.<host>`. A `ContainerExited` ends the watch at once with a last
//! sample. On start it adopts the sandboxes already running (their limits are in their
//! labels), so a restarted monitor leaves none unwatched. It runs on the host whose Docker
//! engine it watches.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bollard::Docker;
use futures::StreamExt;
use tokio::sync::oneshot;

use super::stats::Sampler;
use super::watch::{Watch, WatchLimits};
use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::reporter::RequestRef;
use crate::bus::{trace_of, Bus};
use crate::cgroup::CGROUP_ROOT;
use crate::docker::runtime::SandboxRuntime;
use crate::protocol::monitor::{KillOrder, UsageSample};
use crate::protocol::supervisor::{ContainerExited, ContainerStarted};
use crate::protocol::{decode, Subject};
use crate::shutdown::Shutdown;

const NAME: &str = Role::Monitor.name();

crate::actor::task_actor!(
    /// The ResourceMonitor as an actix actor: its life is the loop below.
    ResourceMonitor,
    NAME,
    run
);

/// What one follower task needs.
#[derive(Clone)]
struct Follower {
    docker: Docker,
    bus: Bus,
    host: String,
    /// Sampling and publishing period through the stats API; usage is published at most
    /// this often on either source.
    every: Duration,
    /// Sampling period when reading cgroup files.
    cgroup_every: Duration,
    /// Period of asking a gVisor sandbox's Sentry for its program's task count.
    runsc_every: Duration,
    shutdown: Shutdown,
    /// Stop signals of the watches running now, by container id.
    stops: Arc<Mutex<HashMap<String, oneshot::Sender<()>>>>,
}

async fn run(env: ActorEnv) -> Result<(), ActorError> {
    let docker = crate::docker::connect()
        .await
        .map_err(|e| ActorError::Fatal(e.to_string()))?;
    let host = env.settings.node.host_id.clone();
    let mut started = env
        .bus
        .subscribe(Subject::ContainerStarted { host: host.clone() }.to_subject())
        .await?;
    let mut exited = env
        .bus
        .subscribe(Subject::ContainerExited { host: host.clone() }.to_subject())
        .await?;
    let follower = Follower {
        docker,
        bus: env.bus.clone(),
        host,
        every: Duration::from_millis(env.settings.monitor.sample_ms.max(10)),
        cgroup_every: Duration::from_millis(env.settings.monitor.cgroup_sample_ms.max(5)),
        runsc_every: Duration::from_millis(env.settings.monitor.runsc_sample_ms.max(50)),
        shutdown: env.shutdown.clone(),
        stops: Arc::default(),
    };
    follower.adopt_running().await;
    let mut shutdown = env.shutdown.clone();
    loop {
        tokio::select! {
            Some(message) = started.next() => follower.start_watch(message),
            Some(message) = exited.next() => follower.end_watch(&message.payload),
            _ = shutdown.wait() => return Ok(()),
            else => return Err(ActorError::Fatal("NATS subscriptions closed".into())),
        }
    }
}

impl Follower {
    fn start_watch(&self, message: async_nats::Message) {
        let envelope = match decode::<ContainerStarted>(&message.payload) {
            Ok(envelope) => envelope,
            Err(error) => return tracing::warn!(%error, "ignoring bad ContainerStarted"),
        };
        let request = RequestRef::of(
            &envelope,
            trace_of(message.headers.as_ref(), &envelope.request_id),
        );
        let limits = WatchLimits::from(&envelope.body.limits);
        self.spawn_watch(request, &envelope.body.container_id, limits);
    }

    fn spawn_watch(&self, request: RequestRef, container_id: &str, limits: WatchLimits) {
        let mut stops = self.lock_stops();
        if stops.contains_key(container_id) {
            return;
        }
        let (stop, stopped) = oneshot::channel();
        stops.insert(container_id.to_string(), stop);
        let watch = Watch::new(container_id, limits);
        tokio::spawn(self.clone().follow(request, watch, stopped));
    }

    /// Starts watching every sandbox already running on this host (after a restart).
    async fn adopt_running(&self) {
        let running = match crate::docker::list_sandboxes(&self.docker, &self.host, true).await {
            Ok(running) => running,
            Err(error) => return tracing::warn!(%error, "cannot list running sandboxes to adopt"),
        };
        for sandbox in running {
            let (Some(id), Some(labels)) = (sandbox.id, sandbox.labels) else {
                continue;
            };
            let Some((request_id, limits)) = watch_from_labels(&labels) else {
                continue;
            };
            tracing::info!(container = %id, %request_id, "adopting a running sandbox");
            let request = RequestRef {
                trace: crate::bus::trace::TraceContext::for_request(&request_id),
                request_id,
                client: String::new(),
                submitted_at_ms: 0,
            };
            self.spawn_watch(request, &id, limits);
        }
    }

    fn end_watch(&self, payload: &[u8]) {
        if let Ok(envelope) = decode::<ContainerExited>(payload) {
            if let Some(stop) = self.lock_stops().remove(&envelope.body.container_id) {
                let _ = stop.send(());
            }
        }
    }

    fn lock_stops(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<()>>> {
        self.stops
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Samples one container until it is gone, told to stop, or shutdown.
    async fn follow(
        self,
        request: RequestRef,
        mut watch: Watch,
        mut stopped: oneshot::Receiver<()>,
    ) {
        let root = std::path::Path::new(CGROUP_ROOT);
        let gvisor = self.gvisor_of(&watch.container_id).await;
        let gvisor = gvisor
            .as_ref()
            .map(|(binary, every)| (binary.as_deref(), *every));
        let mut sampler = Sampler::for_container(root, &watch.container_id, gvisor);
        let period = if sampler.reads_cgroup_files() {
            self.cgroup_every
        } else {
            self.every
        };
        let mut ticks = tokio::time::interval(period);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut shutdown = self.shutdown.clone();
        let mut published_at: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                _ = ticks.tick() => {},
                _ = &mut stopped => break,
                _ = shutdown.wait() => break,
            }
            match sampler.read(&self.docker, &watch.container_id).await {
                Ok(Some(raw)) => {
                    let (usage, violation) = watch.observe(raw);
                    if published_at.is_none_or(|at| at.elapsed() >= self.every) {
                        published_at = Some(tokio::time::Instant::now());
                        self.publish_usage(&request, usage).await;
                    }
                    if let Some(violation) = violation {
                        self.order_kill(&request, &watch.container_id, violation)
                            .await;
                    }
                }
                Ok(None) => break,
                Err(error) => {
                    tracing::warn!(container = %watch.container_id, %error, "cannot read stats");
                }
            }
        }
        self.lock_stops().remove(&watch.container_id);
        self.publish_usage(&request, watch.last_sample()).await;
    }

    /// For a sandbox on runsc: the runsc the engine registers now (looked up for each such
    /// sandbox, so one registered after the monitor started is found), and how often at
    /// least to ask it for the program's process count.
    async fn gvisor_of(&self, container_id: &str) -> Option<(Option<PathBuf>, Duration)> {
        if !self.on_runsc(container_id).await {
            return None;
        }
        Some((registered_runsc(&self.docker).await, self.runsc_every))
    }

    /// Whether a sandbox runs on runsc, by its label. One that cannot be inspected counts
    /// as runsc: its pids are then not read from the host's cgroup, which under runsc
    /// counts the Sentry's tasks and would kill a sandbox within its limits (its pids are
    /// held all the same, by the cgroup under runc and by the Sentry under runsc).
    async fn on_runsc(&self, container_id: &str) -> bool {
        let options = None::<bollard::query_parameters::InspectContainerOptions>;
        let Ok(inspected) = self.docker.inspect_container(container_id, options).await else {
            return true;
        };
        let labels = inspected.config.and_then(|c| c.labels).unwrap_or_default();
        labels
            .get(crate::docker::labels::RUNTIME)
            .map(String::as_str)
            == Some(SandboxRuntime::Runsc.name())
    }

    async fn publish_usage(&self, request: &RequestRef, usage: UsageSample) {
        let subject = Subject::ContainerUsage {
            request_id: request.request_id.clone(),
        };
        let envelope = request.envelope(usage);
        if let Err(error) = self
            .bus
            .publish(&subject, &request.trace.child(NAME), &envelope)
            .await
        {
            tracing::warn!(%error, "cannot publish a usage sample");
        }
    }

    async fn order_kill(
        &self,
        request: &RequestRef,
        container_id: &str,
        violation: crate::protocol::exec::Violation,
    ) {
        tracing::info!(request_id = %request.request_id, kind = violation.kind.as_str(), "ordering a kill");
        let order = KillOrder {
            container_id: container_id.to_string(),
            violation,
        };
        let envelope = request.envelope(order);
        let subject = Subject::ContainerKill {
            host: self.host.clone(),
        };
        if let Err(error) = self
            .bus
            .publish(&subject, &request.trace.child(NAME), &envelope)
            .await
        {
            tracing::error!(%error, "cannot publish a kill order; the deadline still applies");
        }
    }
}

/// The path of the runsc the engine has registered as `runsc`, if any.
async fn registered_runsc(docker: &Docker) -> Option<PathBuf> {
    let runtimes = docker.info().await.ok()?.runtimes?;
    let path = runtimes.get(SandboxRuntime::Runsc.name())?.path.clone()?;
    Some(PathBuf::from(path))
}

/// The request id and watched limits a sandbox's labels name, if they are all there.
fn watch_from_labels(labels: &HashMap<String, String>) -> Option<(String, WatchLimits)> {
    use crate::docker::labels::{CPU_TIME_MS, PIDS_LIMIT, REQUEST_ID};
    let request_id = labels.get(REQUEST_ID)?.clone();
    let pids = labels.get(PIDS_LIMIT)?.parse().ok()?;
    let cpu_time_ms = labels.get(CPU_TIME_MS)?.parse().ok()?;
    Some((request_id, WatchLimits { pids, cpu_time_ms }))
}
