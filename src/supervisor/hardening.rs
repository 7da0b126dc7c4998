//! The container configuration every sandbox gets: no capabilities, no new privileges, a
//! read-only root with size-capped tmpfs scratch space, no network (or, for `allowlist`,
//! only the request's own internal network and the proxy variables), cgroup limits, ulimits,
//! an init as PID 1, no log files, and an environment made only of constants.
//! Pure: `container_config` builds the request body, `run_sandbox` sends it; a warm
//! sandbox gets the very same body with only its labels changed (`warm_container_config`).

use std::collections::HashMap;

use bollard::models::{
    ContainerCreateBody, HostConfig, HostConfigCgroupnsModeEnum, HostConfigLogConfig,
    ResourcesUlimits,
};

use super::spec::SandboxSpec;
use super::uids::{UidLease, PER_SANDBOX};
use super::SandboxError;

/// Label every cordon container carries; `reap` looks for it.
use crate::docker::labels;
pub use crate::docker::labels::HOST as LABEL_HOST;
pub use crate::docker::labels::MANAGED as LABEL_MANAGED;
pub use crate::docker::labels::REQUEST_ID as LABEL_REQUEST_ID;

/// Label of a warm sandbox (created ahead of its job). It carries no CPU-time label, so a
/// restarted ResourceMonitor does not adopt an idle one.
pub const LABEL_WARM: &str = "cordon.warm";
/// The request id label of a warm sandbox: its job is not known when it is created.
pub const WARM_REQUEST_ID: &str = "warm";

/// The sandbox's PATH; nothing of the service's own environment goes in.
const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Docker refuses less memory than this.
const MIN_MEMORY_BYTES: u64 = 6 << 20;
/// Docker's smallest CPU quota.
const MIN_CPUS: f64 = 0.01;

/// Refuses a spec that would fail open: Docker reads 0 as "unlimited" for memory, CPUs,
/// pids and tmpfs size, and an empty user as root.
pub fn validate_limits(spec: &SandboxSpec) -> Result<(), SandboxError> {
    let limits = &spec.limits;
    let why = if limits.memory_bytes < MIN_MEMORY_BYTES {
        format!(
            "memory_bytes {} is below Docker's minimum of {MIN_MEMORY_BYTES}",
            limits.memory_bytes
        )
    } else if !(limits.cpus.is_finite() && limits.cpus >= MIN_CPUS) {
        format!("cpus {} must be at least {MIN_CPUS}", limits.cpus)
    } else if limits.pids == 0 || limits.timeout_ms == 0 || limits.tmpfs_bytes == 0 {
        "pids, timeout_ms and tmpfs_bytes must not be 0 (Docker reads 0 as unlimited)".to_string()
    } else if runs_as_root(&spec.user) {
        format!("user {:?} would run the sandbox as root", spec.user)
    } else if !spec.workdir.starts_with('/') {
        format!("workdir {:?} must be an absolute path", spec.workdir)
    } else {
        return Ok(());
    };
    Err(SandboxError::InvalidLimits {
        request_id: spec.request_id.clone(),
        why,
    })
}

fn runs_as_root(user: &str) -> bool {
    let uid = user.split(':').next().unwrap_or("");
    matches!(uid.trim(), "" | "0" | "root")
}

/// A fresh, unique container name: `cordon-<request id, lowercased and cleaned>-<random>`.
pub fn container_name(request_id: &str) -> String {
    crate::docker::unique_name("cordon", request_id)
}

/// The labels that tie a container to its request, host and owner.
pub fn labels(spec: &SandboxSpec) -> HashMap<String, String> {
    let mut labels = HashMap::from([
        (LABEL_MANAGED.to_string(), "true".to_string()),
        (LABEL_REQUEST_ID.to_string(), spec.request_id.clone()),
        (LABEL_HOST.to_string(), spec.host_id.clone()),
        (labels::PIDS_LIMIT.to_string(), spec.limits.pids.to_string()),
        (labels::RUNTIME.to_string(), spec.runtime.name().to_string()),
        (
            labels::CPU_TIME_MS.to_string(),
            spec.limits.cpu_time_ms.to_string(),
        ),
    ]);
    spec.owner.label(&mut labels);
    labels
}

/// `spec` with its user made concrete: for `auto`, a uid of its own (and gid of the same
/// number), held by the returned lease.
pub fn with_own_uid(spec: &SandboxSpec) -> Result<(SandboxSpec, Option<UidLease>), SandboxError> {
    if spec.user != PER_SANDBOX {
        return Ok((spec.clone(), None));
    }
    let Some(range) = &spec.uids else {
        return Err(SandboxError::NoUid {
            why: "user is \"auto\" but no uid range is configured".into(),
        });
    };
    let lease = range.claim()?;
    let concrete = SandboxSpec {
        user: format!("{uid}:{uid}", uid = lease.uid),
        ..spec.clone()
    };
    Ok((concrete, Some(lease)))
}

/// The full create request for one sandbox.
pub fn container_config(spec: &SandboxSpec) -> ContainerCreateBody {
    crate::docker::with_attached_stdio(ContainerCreateBody {
        image: Some(spec.image.clone()),
        cmd: Some(super::runner::runner_command()),
        entrypoint: Some(Vec::new()),
        user: Some(spec.user.clone()),
        working_dir: Some(spec.workdir.clone()),
        hostname: Some("sandbox".to_string()),
        env: Some(environment(spec)),
        labels: Some(labels(spec)),
        network_disabled: Some(spec.egress.is_none()),
        host_config: Some(host_config(spec)),
        ..Default::default()
    })
}

/// The create request of a warm sandbox: `container_config` of the pool's template, with
/// the job-specific CPU-time label replaced by `cordon.warm=true`. Nothing else differs.
pub fn warm_container_config(template: &SandboxSpec) -> ContainerCreateBody {
    let mut body = container_config(template);
    if let Some(labels) = body.labels.as_mut() {
        labels.remove(labels::CPU_TIME_MS);
        labels.insert(LABEL_WARM.to_string(), "true".to_string());
        labels.insert(LABEL_REQUEST_ID.to_string(), WARM_REQUEST_ID.to_string());
    }
    body
}

/// The environment: constants only, never the service's own; an allowlist sandbox also
/// gets its proxy (both spellings, which pip and urllib read) and pip settings. These are
/// conveniences: without them the sandbox still reaches nothing but the proxy.
fn environment(spec: &SandboxSpec) -> Vec<String> {
    let mut env = vec![
        format!("PATH={SANDBOX_PATH}"),
        "LANG=C.UTF-8".to_string(),
        format!("HOME={}", spec.workdir),
    ];
    if let Some(egress) = &spec.egress {
        for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] {
            env.push(format!("{name}={}", egress.proxy_url));
        }
        env.extend(PIP_ENVIRONMENT.iter().map(|v| v.to_string()));
    }
    env
}

/// pip in a throwaway sandbox: no prompts, no self-update check, and installs into a
/// tmpfs (`--user` or `--target`) allowed although Debian marks the system as managed
/// (its root is read-only anyway).
const PIP_ENVIRONMENT: [&str; 3] = [
    "PIP_NO_INPUT=1",
    "PIP_DISABLE_PIP_VERSION_CHECK=1",
    "PIP_BREAK_SYSTEM_PACKAGES=1",
];

/// An allowlist sandbox speaks IPv4 to its proxy only: IPv6 is switched off explicitly
/// (Docker 20.10 already does so on IPv4-only networks), so no link-local IPv6 address of
/// the host's bridge can be reached.
fn egress_sysctls(spec: &SandboxSpec) -> Option<HashMap<String, String>> {
    spec.egress.as_ref().map(|_| {
        HashMap::from([(
            "net.ipv6.conf.all.disable_ipv6".to_string(),
            "1".to_string(),
        )])
    })
}

/// Upstream DNS for an allowlist sandbox: its proxy's responder, which answers every name
/// NXDOMAIN at once and forwards nothing. Docker's embedded resolver on the request's
/// internal network would otherwise forward outside names to the host's resolvers on
/// engines before 23.0.11 (CVE-2024-29018), a channel out that bypasses the proxy. The
/// sandbox needs no DNS: its proxy is named by address and resolves names itself.
fn egress_dns(spec: &SandboxSpec) -> Option<Vec<String>> {
    spec.egress
        .as_ref()
        .map(|egress| vec![egress.dns_server.clone()])
}

/// What of /proc and /sys a sandbox reads as empty: Docker's default list, and what tells
/// the host's shape (memory, load, uptime and boot time, kernel command line and symbols,
/// boot id, interrupts, disks, crash-dump layout) that no Python module needs. What Python
/// and its libraries read (cpuinfo, self/, the cgroup's own files) stays.
pub const MASKED_PATHS: [&str; 27] = [
    // Docker's defaults.
    "/proc/asound",
    "/proc/acpi",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    // The host's shape.
    "/proc/meminfo",
    "/proc/loadavg",
    "/proc/uptime",
    "/proc/stat",
    "/proc/cmdline",
    "/proc/sys/kernel/random/boot_id",
    "/proc/interrupts",
    "/proc/softirqs",
    "/proc/vmcoreinfo",
    "/proc/kallsyms",
    "/proc/modules",
    "/proc/diskstats",
    "/proc/partitions",
    "/proc/swaps",
    "/proc/vmstat",
    "/proc/zoneinfo",
    "/proc/slabinfo",
];

/// `none`, or the request's own network.
fn network_mode(spec: &SandboxSpec) -> String {
    match &spec.egress {
        Some(egress) => egress.network.clone(),
        None => "none".to_string(),
    }
}

fn host_config(spec: &SandboxSpec) -> HostConfig {
    let limits = &spec.limits;
    let memory = clamp_i64(limits.memory_bytes);
    HostConfig {
        cap_drop: Some(vec!["ALL".to_string()]),
        // cordon's own seccomp profile (stricter than Docker's default; see `seccomp`).
        security_opt: Some(vec![
            "no-new-privileges".to_string(),
            format!("seccomp={}", super::seccomp::profile_json(spec.runtime)),
        ]),
        masked_paths: Some(MASKED_PATHS.iter().map(|p| p.to_string()).collect()),
        privileged: Some(false),
        readonly_rootfs: Some(true),
        tmpfs: Some(tmpfs_mounts(spec)),
        shm_size: Some(clamp_i64(limits.tmpfs_bytes)),
        network_mode: Some(network_mode(spec)),
        sysctls: egress_sysctls(spec),
        dns: egress_dns(spec),
        memory: Some(memory),
        memory_swap: Some(memory),
        nano_cpus: Some((limits.cpus * 1e9).round() as i64),
        pids_limit: Some(clamp_i64(spec.runtime.host_pids_limit(limits.pids))),
        ulimits: Some(ulimits(spec)),
        init: Some(true),
        ipc_mode: Some("private".to_string()),
        cgroupns_mode: Some(HostConfigCgroupnsModeEnum::PRIVATE),
        binds: Some(Vec::new()),
        mounts: Some(Vec::new()),
        devices: Some(Vec::new()),
        // No json-file: a flood of output must not reach the host's disk. Output is read
        // through the attach stream instead, which does not need a log driver.
        log_config: Some(HostConfigLogConfig {
            typ: Some("none".to_string()),
            config: None,
        }),
        runtime: Some(spec.runtime.name().to_string()),
        auto_remove: Some(false),
        ..Default::default()
    }
}

/// `/tmp` (noexec) and the working directory (owned by the sandbox user), both size-capped;
/// and, for a request with packages, the packages directory.
fn tmpfs_mounts(spec: &SandboxSpec) -> HashMap<String, String> {
    let size = spec.limits.tmpfs_bytes;
    let tmp = format!("rw,nosuid,nodev,noexec,size={size},mode=1777");
    let mut work = format!("rw,nosuid,nodev,size={size},mode=0700");
    if let Some((uid, gid)) = numeric_user(&spec.user) {
        work.push_str(&format!(",uid={uid},gid={gid}"));
    }
    let mut mounts = HashMap::from([("/tmp".to_string(), tmp), (spec.workdir.clone(), work)]);
    if spec.packages_dir {
        // Owned by root: only the install (run as root, with no capabilities) writes it;
        // the program imports from it, compiled extensions included (no noexec).
        let packages = format!("rw,exec,nosuid,nodev,size={size},mode=0755");
        mounts.insert(super::spec::PACKAGES_DIR.to_string(), packages);
    }
    mounts
}

/// `uid:gid` when the user is given by number, as tmpfs ownership needs numbers.
fn numeric_user(user: &str) -> Option<(u32, u32)> {
    let (uid, gid) = user.split_once(':')?;
    Some((uid.parse().ok()?, gid.parse().ok()?))
}

/// Open files, file size and no core dumps; under runsc also the program's process and
/// thread count (see `SandboxRuntime::nproc_limit`; under runc RLIMIT_NPROC would count
/// every process of the uid on the whole host, and the pids cgroup holds the count).
fn ulimits(spec: &SandboxSpec) -> Vec<ResourcesUlimits> {
    let mut ulimits = vec![
        ulimit("nofile", spec.nofile),
        ulimit("fsize", spec.fsize_bytes),
        ulimit("core", 0),
    ];
    if let Some(nproc) = spec.runtime.nproc_limit(spec.limits.pids) {
        ulimits.push(ulimit("nproc", nproc));
    }
    ulimits
}

fn ulimit(name: &str, value: u64) -> ResourcesUlimits {
    let value = clamp_i64(value);
    ResourcesUlimits {
        name: Some(name.to_string()),
        soft: Some(value),
        hard: Some(value),
    }
}

fn clamp_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docker::runtime::SandboxRuntime;
    use crate::protocol::scheduler::{Limits, Network};

    fn spec() -> SandboxSpec {
        SandboxSpec {
            request_id: "01HZX/Req".into(),
            host_id: "h1".into(),
            owner: crate::owner::OwnerTag::unlocked("test"),
            uids: None,
            image: "img".into(),
            runtime: SandboxRuntime::Runc,
            user: "1000:1000".into(),
            workdir: "/work".into(),
            limits: Limits {
                cpus: 0.5,
                memory_bytes: 1 << 28,
                pids: 64,
                timeout_ms: 1000,
                network: Network::None,
                cpu_time_ms: 1000,
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
    fn under_runsc_nproc_holds_the_program_and_the_cgroup_only_the_host() {
        let runc = container_config(&spec()).host_config.unwrap();
        assert!(!runc
            .ulimits
            .unwrap()
            .iter()
            .any(|u| u.name.as_deref() == Some("nproc")));
        let mut gvisor = spec();
        gvisor.runtime = SandboxRuntime::Runsc;
        let body = container_config(&gvisor);
        assert_eq!(body.labels.unwrap()[labels::RUNTIME], "runsc");
        let host = body.host_config.unwrap();
        assert_eq!(host.runtime.as_deref(), Some("runsc"));
        let nproc = host
            .ulimits
            .unwrap()
            .into_iter()
            .find(|u| u.name.as_deref() == Some("nproc"));
        assert_eq!(nproc.and_then(|u| u.hard), Some(64));
        assert!(host.pids_limit.unwrap() > 64);
    }

    #[test]
    fn names_are_fresh_lowercase_and_docker_safe() {
        let a = container_name("01HZX/Req");
        assert!(a.starts_with("cordon-01hzxreq-"), "{a}");
        assert_ne!(a, container_name("01HZX/Req"));
        assert!(a
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'));
    }

    #[test]
    fn the_environment_is_constants_only() {
        let env = container_config(&spec()).env.unwrap();
        assert_eq!(
            env,
            [
                "PATH=/usr/local/bin:/usr/bin:/bin",
                "LANG=C.UTF-8",
                "HOME=/work"
            ]
        );
    }

    #[test]
    fn an_allowlist_sandbox_is_on_its_network_with_the_proxy_named() {
        let mut allowlist = spec();
        allowlist.egress = Some(super::super::SandboxEgress {
            network: "cordon-net-x".into(),
            proxy_url: "http://10.213.0.2:3128".into(),
            dns_server: "10.213.0.2".into(),
        });
        let body = container_config(&allowlist);
        assert_eq!(body.network_disabled, Some(false));
        let host = body.host_config.unwrap();
        assert_eq!(host.network_mode.as_deref(), Some("cordon-net-x"));
        assert_eq!(host.cap_drop, Some(vec!["ALL".to_string()]));
        assert_eq!(host.sysctls.unwrap()["net.ipv6.conf.all.disable_ipv6"], "1");
        // Docker's resolver forwards names only to the proxy's responder.
        assert_eq!(host.dns, Some(vec!["10.213.0.2".to_string()]));
        let env = body.env.unwrap();
        assert!(env.contains(&"HTTPS_PROXY=http://10.213.0.2:3128".to_string()));
        assert!(env.contains(&"http_proxy=http://10.213.0.2:3128".to_string()));
        let none = container_config(&spec());
        assert_eq!(none.network_disabled, Some(true));
        assert_eq!(
            none.host_config.unwrap().network_mode.as_deref(),
            Some("none")
        );
    }

    #[test]
    fn memory_and_swap_are_equal_and_cpus_become_nano_cpus() {
        let host = container_config(&spec()).host_config.unwrap();
        assert_eq!(host.memory, Some(1 << 28));
        assert_eq!(host.memory_swap, host.memory);
        assert_eq!(host.nano_cpus, Some(500_000_000));
        assert_eq!(host.pids_limit, Some(64));
    }

    #[test]
    fn limits_docker_would_read_as_unlimited_are_refused() {
        assert!(validate_limits(&spec()).is_ok());
        let mut zero_memory = spec();
        zero_memory.limits.memory_bytes = 0;
        let mut no_cpu = spec();
        no_cpu.limits.cpus = f64::NAN;
        let mut no_tmpfs_cap = spec();
        no_tmpfs_cap.limits.tmpfs_bytes = 0;
        let mut root = spec();
        root.user = "0:0".into();
        let mut nobody = spec();
        nobody.user = String::new();
        for bad in [zero_memory, no_cpu, no_tmpfs_cap, root, nobody] {
            assert!(validate_limits(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_warm_sandbox_differs_from_a_cold_one_in_its_labels_only() {
        let mut cold = container_config(&spec());
        let mut warm = warm_container_config(&spec());
        let warm_labels = warm.labels.take().unwrap();
        let cold_labels = cold.labels.take().unwrap();
        assert_eq!(
            cold, warm,
            "same image, command, user, host config and limits"
        );
        assert_eq!(warm_labels[LABEL_MANAGED], "true");
        assert_eq!(warm_labels[LABEL_HOST], "h1");
        assert_eq!(warm_labels[LABEL_WARM], "true");
        assert!(!warm_labels.contains_key(labels::CPU_TIME_MS));
        assert_eq!(
            warm_labels[labels::PIDS_LIMIT],
            cold_labels[labels::PIDS_LIMIT]
        );
    }

    #[test]
    fn the_workdir_tmpfs_is_owned_by_the_numeric_user() {
        let tmpfs = tmpfs_mounts(&spec());
        assert!(tmpfs["/work"].ends_with(",uid=1000,gid=1000"));
        assert!(tmpfs["/tmp"].contains("noexec"));
        assert!(tmpfs["/tmp"].contains("size=1048576"));
        assert_eq!(numeric_user("nobody"), None);
    }
}
