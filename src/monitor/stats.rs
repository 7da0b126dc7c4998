//! Reads one container's counters: from its cgroup files when they are readable (see
//! `cgroup`), else from Docker's stats API (one-shot, so a reading costs what one stats
//! tick costs instead of Docker's two-sample wait). `None` means the container is gone.

use std::path::Path;
use std::time::{Duration, Instant};

use bollard::query_parameters::StatsOptionsBuilder;
use bollard::Docker;
use futures::StreamExt;

use super::gvisor::SentryCounter;
use crate::cgroup::counters::CgroupFiles;
use crate::cgroup::counters::RawSample;
use crate::docker::is_not_found;

/// Where one container's readings come from, and for a gVisor sandbox how its program's
/// processes are counted.
#[derive(Debug, Clone)]
pub struct Sampler {
    source: Source,
    gvisor: Option<GvisorPids>,
}

#[derive(Debug, Clone)]
enum Source {
    Cgroup(CgroupFiles),
    StatsApi,
}

/// The shortest time between two questions to one sandbox's Sentry.
const MIN_ASK_GAP: Duration = Duration::from_millis(100);

/// Under gVisor the host's count of tasks is the Sentry's, not the program's: the
/// program's process count comes from the Sentry (see `SentryCounter`). Each answer costs
/// a runsc process, so it is asked when the host task count has changed since the last
/// answer (a new program process adds host tasks; at most every `MIN_ASK_GAP`), and at
/// least every `every`; the answer is carried in between. With no counter (it could not be located), pids read 0: gVisor
/// still holds them to the limit itself (RLIMIT_NPROC), unseen.
#[derive(Debug, Clone)]
struct GvisorPids {
    sentry: Option<SentryCounter>,
    every: Duration,
    asked: Option<(Instant, u64)>,
    pids: u64,
    /// Whether a failed answer has been logged (once per sandbox).
    warned: bool,
}

impl Sampler {
    /// The cgroup files of `container_id` under `root` if readable, else the stats API;
    /// `gvisor` (the registered runsc, and how often to ask it at least) for a sandbox on
    /// runsc.
    pub fn for_container(
        root: &Path,
        container_id: &str,
        gvisor: Option<(Option<&Path>, Duration)>,
    ) -> Sampler {
        let files = CgroupFiles::locate(root, container_id);
        let gvisor = gvisor.map(|(binary, every)| {
            let sentry = match (&files, binary) {
                (Some(files), Some(binary)) => {
                    SentryCounter::locate(&files.procs_file(), binary, container_id)
                }
                _ => None,
            };
            if sentry.is_none() {
                tracing::warn!(
                    container = container_id,
                    "cannot ask gVisor for this sandbox's processes: they go unwatched (gVisor still holds them to the limit)"
                );
            }
            GvisorPids {
                sentry,
                every,
                asked: None,
                pids: 0,
                warned: false,
            }
        });
        let source = match files {
            Some(files) => Source::Cgroup(files),
            None => Source::StatsApi,
        };
        Sampler { source, gvisor }
    }

    /// Whether readings come from cgroup files (cheap: sampled often) or the stats API.
    pub fn reads_cgroup_files(&self) -> bool {
        matches!(self.source, Source::Cgroup(_))
    }

    pub async fn read(
        &mut self,
        docker: &Docker,
        container_id: &str,
    ) -> Result<Option<RawSample>, bollard::errors::Error> {
        let sample = match &self.source {
            Source::Cgroup(files) => files.read(),
            Source::StatsApi => read_sample(docker, container_id).await?,
        };
        let Some(mut sample) = sample else {
            return Ok(None);
        };
        if let Some(gvisor) = &mut self.gvisor {
            sample.pids = gvisor.program_pids(sample.pids).await;
        }
        Ok(Some(sample))
    }
}

impl GvisorPids {
    /// The program's process count, given the Sentry's host task count now.
    async fn program_pids(&mut self, host_tasks: u64) -> u64 {
        let Some(sentry) = &self.sentry else {
            return 0;
        };
        let stale = self.asked.is_none_or(|(at, tasks_then)| {
            let since = at.elapsed();
            (tasks_then != host_tasks && since >= MIN_ASK_GAP) || since >= self.every
        });
        if stale {
            self.asked = Some((Instant::now(), host_tasks));
            match sentry.pids().await {
                Some(pids) => self.pids = pids,
                None if !self.warned => {
                    self.warned = true;
                    tracing::warn!("gVisor did not say how many processes a sandbox holds; keeping the last count");
                }
                None => {}
            }
        }
        self.pids
    }
}

/// One reading, or `None` when the container no longer runs.
pub async fn read_sample(
    docker: &Docker,
    container_id: &str,
) -> Result<Option<RawSample>, bollard::errors::Error> {
    let options = StatsOptionsBuilder::default()
        .stream(false)
        .one_shot(true)
        .build();
    let mut readings = docker.stats(container_id, Some(options));
    let stats = match readings.next().await {
        Some(Ok(stats)) => stats,
        Some(Err(error)) if is_not_found(&error) => return Ok(None),
        Some(Err(error)) => return Err(error),
        None => return Ok(None),
    };
    let pids = stats
        .pids_stats
        .as_ref()
        .and_then(|p| p.current)
        .unwrap_or(0);
    let memory = stats.memory_stats.as_ref();
    let memory_bytes = memory.and_then(|m| m.usage);
    // A stopped container answers with empty counters.
    if pids == 0 && memory_bytes.is_none() {
        return Ok(None);
    }
    let cpu_ns = stats
        .cpu_stats
        .as_ref()
        .and_then(|c| c.cpu_usage.as_ref())
        .and_then(|u| u.total_usage)
        .unwrap_or(0);
    Ok(Some(RawSample {
        cpu_ns,
        memory_bytes: memory_bytes.unwrap_or(0),
        max_memory_bytes: memory.and_then(|m| m.max_usage).unwrap_or(0),
        pids,
    }))
}
