//! Reads one container's counters: from its cgroup files when they are readable (see
//! `cgroup`), else from Docker's stats API (one-shot, so a reading costs what one stats
//! tick costs instead of Docker's two-sample wait). `None` means the container is gone.

use std::path::Path;

use bollard::query_parameters::StatsOptionsBuilder;
use bollard::Docker;
use futures::StreamExt;

use crate::cgroup::counters::CgroupFiles;
use crate::cgroup::counters::RawSample;
use crate::docker::is_not_found;

/// Where one container's readings come from.
#[derive(Debug, Clone)]
pub enum Sampler {
    Cgroup(CgroupFiles),
    StatsApi,
}

impl Sampler {
    /// The cgroup files of `container_id` under `root` if readable, else the stats API.
    pub fn for_container(root: &Path, container_id: &str) -> Sampler {
        match CgroupFiles::locate(root, container_id) {
            Some(files) => Sampler::Cgroup(files),
            None => Sampler::StatsApi,
        }
    }

    pub async fn read(
        &self,
        docker: &Docker,
        container_id: &str,
    ) -> Result<Option<RawSample>, bollard::errors::Error> {
        match self {
            Sampler::Cgroup(files) => Ok(files.read()),
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
