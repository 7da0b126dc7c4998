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

/// Where one container's readings come from.
#[derive(Debug, Clone)]
pub enum Sampler {
    Cgroup(CgroupFiles),
    /// A gVisor sandbox: CPU and memory from its cgroup files (the Sentry's usage is the
    /// program's), its program's process count from the Sentry (see `SentryCounter`).
    /// Each answer costs a runsc process, so it is asked when the Sentry's host task count
    /// has changed since the last answer (a new program process adds host tasks), and at
    /// least every `pids_every`; the answer is carried in between.
    Gvisor {
        files: CgroupFiles,
        sentry: SentryCounter,
        pids_every: Duration,
        asked: Option<(Instant, u64)>,
        pids: u64,
    },
    StatsApi,
}

impl Sampler {
    /// The cgroup files of `container_id` under `root` if readable (with the Sentry's
    /// counter when it runs under gVisor), else the stats API.
    pub fn for_container(root: &Path, container_id: &str, pids_every: Duration) -> Sampler {
        let Some(files) = CgroupFiles::locate(root, container_id) else {
            return Sampler::StatsApi;
        };
        match SentryCounter::locate(&files.procs_file(), container_id) {
            Some(sentry) => Sampler::Gvisor {
                files,
                sentry,
                pids_every,
                asked: None,
                pids: 0,
            },
            None => Sampler::Cgroup(files),
        }
    }

    pub async fn read(
        &mut self,
        docker: &Docker,
        container_id: &str,
    ) -> Result<Option<RawSample>, bollard::errors::Error> {
        match self {
            Sampler::Cgroup(files) => Ok(files.read()),
            Sampler::Gvisor {
                files,
                sentry,
                pids_every,
                asked,
                pids,
            } => {
                let Some(mut sample) = files.read() else {
                    return Ok(None);
                };
                let host_tasks = sample.pids;
                let stale = asked.is_none_or(|(at, tasks_then)| {
                    tasks_then != host_tasks || at.elapsed() >= *pids_every
                });
                if stale {
                    *asked = Some((Instant::now(), host_tasks));
                    *pids = sentry.pids().await.unwrap_or(*pids);
                }
                sample.pids = *pids;
                Ok(Some(sample))
            }
            Sampler::StatsApi => read_sample(docker, container_id).await,
        }
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
