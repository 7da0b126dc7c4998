//! Where a container's cgroup lives, for the two actors that touch it: the monitor reads
//! its counters, the supervisor charges its socket buffers. Docker's cgroupfs driver puts
//! it at `<controller>/docker/<id>` (v1) or `docker/<id>` (v2), the systemd driver at
//! `system.slice/docker-<id>.scope`.
//!
//! `charge_tcp_memory`: on cgroup v1 the kernel charges TCP socket buffers to a memory
//! cgroup only once its `memory.kmem.tcp.limit_in_bytes` is written (Docker's
//! `KernelMemoryTCP` is ignored by runc 1.1), so without it a sandbox could queue far more
//! than its memory limit in loopback sockets, outside the limit and against the whole
//! host's `tcp_mem`. On cgroup v2 socket memory is always charged to `memory.max`.

pub mod counters;

use std::path::{Path, PathBuf};

/// Where cgroup file systems are mounted.
pub const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// The directories a container's cgroup may have, relative to a controller (v1) or the
/// unified root (v2), for Docker's cgroupfs and systemd drivers.
pub fn container_dirs(container_id: &str) -> [String; 2] {
    [
        format!("docker/{container_id}"),
        format!("system.slice/docker-{container_id}.scope"),
    ]
}

/// How a sandbox's socket buffers are charged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TcpCharge {
    /// cgroup v1: its TCP buffer limit is now set.
    Limited,
    /// cgroup v2: the kernel charges them to the memory limit by itself.
    ChargedByKernel,
}

/// Caps `container_id`'s TCP socket buffers at `limit_bytes` (cgroup v1), or checks that
/// the kernel charges them (v2). An error says why they cannot be charged here.
pub fn charge_tcp_memory(
    root: &Path,
    container_id: &str,
    limit_bytes: u64,
) -> Result<TcpCharge, String> {
    if container_id.is_empty() || !container_id.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("{container_id:?} is not a container id"));
    }
    for rel in container_dirs(container_id) {
        let v1 = root.join("memory").join(&rel);
        if v1.is_dir() {
            return limit_v1(&v1, limit_bytes);
        }
        if root.join(&rel).join("cgroup.controllers").is_file() {
            return Ok(TcpCharge::ChargedByKernel);
        }
    }
    Err(format!(
        "no cgroup of container {container_id} under {} (a supervisor in a container needs \
         the host's /sys/fs/cgroup mounted read-write)",
        root.display()
    ))
}

fn limit_v1(memory_dir: &Path, limit_bytes: u64) -> Result<TcpCharge, String> {
    let file: PathBuf = memory_dir.join("memory.kmem.tcp.limit_in_bytes");
    std::fs::write(&file, limit_bytes.to_string())
        .map(|()| TcpCharge::Limited)
        .map_err(|e| format!("cannot write {}: {e}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0123456789abcdef";

    #[test]
    fn v1_gets_its_tcp_limit_written_and_v2_is_charged_by_the_kernel() {
        let v1 = tempfile::tempdir().unwrap();
        let dir = v1.path().join("memory/docker").join(ID);
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(
            charge_tcp_memory(v1.path(), ID, 4096),
            Ok(TcpCharge::Limited)
        );
        let written = std::fs::read_to_string(dir.join("memory.kmem.tcp.limit_in_bytes"));
        assert_eq!(written.unwrap(), "4096");

        let v2 = tempfile::tempdir().unwrap();
        let dir = v2.path().join(format!("system.slice/docker-{ID}.scope"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cgroup.controllers"), "memory pids").unwrap();
        assert_eq!(
            charge_tcp_memory(v2.path(), ID, 4096),
            Ok(TcpCharge::ChargedByKernel)
        );
    }

    #[test]
    fn no_cgroup_or_a_bad_id_is_an_error_saying_why() {
        let empty = tempfile::tempdir().unwrap();
        let missing = charge_tcp_memory(empty.path(), ID, 1).unwrap_err();
        assert!(missing.contains("read-write"), "{missing}");
        assert!(charge_tcp_memory(empty.path(), "../etc", 1).is_err());
    }
}
