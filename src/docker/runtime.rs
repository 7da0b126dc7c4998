//! The OCI runtimes a sandbox may run on, and what differs between them: runc shares the
//! host's kernel; gVisor's runsc puts a user-space kernel (the Sentry) between the program
//! and the host. Everything else in the hardening is the same body for both.

/// Where a sandbox runs. Docker knows each by the name it was registered under, which
/// cordon requires to be exactly `runc` or `runsc` (see `doctor` for how runsc must be
/// registered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxRuntime {
    Runc,
    /// gVisor, registered with `--platform=ptrace --network=none --oci-seccomp`.
    Runsc,
}

/// The arguments runsc must be registered with for cordon's hardening to hold: the ptrace
/// platform (KVM is not available inside a VM without nesting), no network stack at all
/// (only `none` sandboxes run on it), and the OCI seccomp profile enforced by the Sentry
/// (without it runsc silently ignores cordon's profile).
pub const RUNSC_ARGS: [&str; 3] = ["--platform=ptrace", "--network=none", "--oci-seccomp"];

/// The host's pids cgroup limit of a runsc sandbox: the Sentry, the gofer and the ptrace
/// platform's stub threads, which grow with the program's processes times the Sentry's busy
/// threads (15 busy processes of 3 threads, 61 tasks inside, held 640 host tasks; measured),
/// so it is `RUNSC_HOST_TASKS_BASE + pids²`, at most `RUNSC_HOST_TASKS_MAX`. This is only the
/// host's backstop against a runaway Sentry: the program's processes and threads are held
/// by the Sentry itself, through RLIMIT_NPROC (see `host_pids_limit`).
const RUNSC_HOST_TASKS_BASE: u64 = 128;
const RUNSC_HOST_TASKS_MAX: u64 = 65_536;

impl SandboxRuntime {
    /// The name Docker knows it by.
    pub fn name(self) -> &'static str {
        match self {
            SandboxRuntime::Runc => "runc",
            SandboxRuntime::Runsc => "runsc",
        }
    }

    /// The pids cgroup limit of a sandbox whose program may hold `pids` processes and
    /// threads. Under runc the cgroup counts the program's tasks exactly. Under runsc it
    /// counts the Sentry's host tasks, so the program's own count is held by the Sentry
    /// (RLIMIT_NPROC, which it counts per sandbox: its kernel is the sandbox's alone) and
    /// the cgroup only stops the Sentry from running away on the host.
    pub fn host_pids_limit(self, pids: u64) -> u64 {
        match self {
            SandboxRuntime::Runc => pids,
            SandboxRuntime::Runsc => RUNSC_HOST_TASKS_BASE
                .saturating_add(pids.saturating_mul(pids))
                .min(RUNSC_HOST_TASKS_MAX)
                .max(pids),
        }
    }

    /// RLIMIT_NPROC for the program, where it counts only the sandbox's own tasks: under
    /// runsc. Under runc it would count every process of the uid on the whole host.
    pub fn nproc_limit(self, pids: u64) -> Option<u64> {
        match self {
            SandboxRuntime::Runc => None,
            SandboxRuntime::Runsc => Some(pids),
        }
    }
}

/// Checks `runtime` is registered with the Docker engine, and runsc with `RUNSC_ARGS`
/// (without `--oci-seccomp` it would silently drop cordon's seccomp profile); says what is
/// wrong and how to fix it otherwise.
pub async fn check_registered(
    docker: &bollard::Docker,
    runtime: SandboxRuntime,
) -> Result<String, String> {
    let name = runtime.name();
    let runtimes = docker
        .info()
        .await
        .map_err(|e| format!("cannot ask the Docker engine for its runtimes: {e}"))?
        .runtimes
        .unwrap_or_default();
    let Some(registered) = runtimes.get(name) else {
        let known: Vec<&String> = runtimes.keys().collect();
        return Err(format!(
            "{name} is not registered with Docker (it has {known:?}): run `scripts/setup \
             --runsc`, or register it in /etc/docker/daemon.json with runtimeArgs {RUNSC_ARGS:?}"
        ));
    };
    if runtime == SandboxRuntime::Runc {
        return Ok("runc is registered with Docker".into());
    }
    let args = registered.runtime_args.clone().unwrap_or_default();
    if args == RUNSC_ARGS {
        return Ok(format!("runsc is registered with Docker, with {args:?}"));
    }
    // Exactly these: a later flag would override one of them (the last one wins).
    Err(format!(
        "runsc is registered with {args:?}, not exactly {RUNSC_ARGS:?}: without them it \
         ignores cordon's seccomp profile or cannot start here, and another flag could undo \
         one; set its runtimeArgs in /etc/docker/daemon.json (or run `scripts/setup --runsc`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_runsc_the_program_is_held_by_nproc_and_the_host_by_a_wider_cgroup() {
        assert_eq!(SandboxRuntime::Runc.host_pids_limit(64), 64);
        assert_eq!(SandboxRuntime::Runc.nproc_limit(64), None);
        assert_eq!(SandboxRuntime::Runsc.nproc_limit(64), Some(64));
        assert_eq!(SandboxRuntime::Runsc.host_pids_limit(64), 128 + 64 * 64);
        assert_eq!(
            SandboxRuntime::Runsc.host_pids_limit(1000),
            RUNSC_HOST_TASKS_MAX
        );
        assert_eq!(SandboxRuntime::Runsc.host_pids_limit(u64::MAX), u64::MAX);
        assert_eq!(SandboxRuntime::Runsc.name(), "runsc");
    }
}
