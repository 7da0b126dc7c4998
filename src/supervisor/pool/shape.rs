//! `Shape`: what a container is made with, as opposed to what a job adds at run time. Two
//! specs of the same shape get byte-identical create requests (apart from the request id
//! label), so a warm sandbox made from one may serve the other. The wall-clock deadline,
//! CPU-time budget and output caps are not part of it: the supervisor's cell and the
//! ResourceMonitor apply them per job. Pure.

use crate::supervisor::spec::SandboxSpec;

/// The container-level half of a `SandboxSpec`. Equality is exact (CPUs included): a job
/// whose limits the Scheduler scaled down by any amount does not match.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    host_id: String,
    image: String,
    runtime: crate::docker::runtime::SandboxRuntime,
    user: String,
    workdir: String,
    cpus: f64,
    memory_bytes: u64,
    pids: u64,
    tmpfs_bytes: u64,
    nofile: u64,
    fsize_bytes: u64,
    /// An allowlist sandbox is made on its own request's network, so none is ever warm.
    network: crate::protocol::scheduler::Network,
    /// A packages directory is another mount.
    packages_dir: bool,
}

impl Shape {
    pub fn of(spec: &SandboxSpec) -> Shape {
        let limits = &spec.limits;
        Shape {
            host_id: spec.host_id.clone(),
            image: spec.image.clone(),
            runtime: spec.runtime,
            user: spec.user.clone(),
            workdir: spec.workdir.clone(),
            cpus: limits.cpus,
            memory_bytes: limits.memory_bytes,
            pids: limits.pids,
            tmpfs_bytes: limits.tmpfs_bytes,
            nofile: spec.nofile,
            fsize_bytes: spec.fsize_bytes,
            network: limits.network,
            packages_dir: spec.packages_dir,
        }
    }

    pub fn cpus(&self) -> f64 {
        self.cpus
    }

    pub fn memory_bytes(&self) -> u64 {
        self.memory_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::scheduler::{Limits, Network};

    fn spec() -> SandboxSpec {
        SandboxSpec {
            request_id: "a".into(),
            host_id: "h".into(),
            owner: crate::owner::OwnerTag::unlocked("test"),
            uids: None,
            image: "img".into(),
            runtime: crate::docker::runtime::SandboxRuntime::Runc,
            user: "1000:1000".into(),
            workdir: "/work".into(),
            limits: Limits {
                cpus: 0.5,
                memory_bytes: 1 << 28,
                pids: 64,
                timeout_ms: 10_000,
                network: Network::None,
                cpu_time_ms: 5_000,
                stdout_bytes: 10,
                stderr_bytes: 10,
                tmpfs_bytes: 1 << 20,
            },
            nofile: 256,
            fsize_bytes: 1 << 20,
            egress: None,
            record_fs_changes: true,
            packages_dir: false,
            live: None,
        }
    }

    #[test]
    fn per_job_limits_do_not_change_the_shape() {
        let mut job = spec();
        job.request_id = "b".into();
        job.limits.timeout_ms = 2_000;
        job.limits.cpu_time_ms = 1;
        job.limits.stdout_bytes = 99;
        assert_eq!(Shape::of(&job), Shape::of(&spec()));
    }

    #[test]
    fn any_container_level_difference_is_another_shape() {
        let mut scaled = spec();
        scaled.limits.cpus = 0.49;
        let mut smaller = spec();
        smaller.limits.memory_bytes -= 1;
        let mut fewer_pids = spec();
        fewer_pids.limits.pids = 63;
        let mut tmpfs = spec();
        tmpfs.limits.tmpfs_bytes *= 2;
        let mut files = spec();
        files.nofile = 255;
        let mut runtime = spec();
        runtime.runtime = crate::docker::runtime::SandboxRuntime::Runsc;
        for other in [scaled, smaller, fewer_pids, tmpfs, files, runtime] {
            assert_ne!(Shape::of(&other), Shape::of(&spec()), "{other:?}");
        }
    }
}
