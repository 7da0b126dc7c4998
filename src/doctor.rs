//! `cordon doctor`'s checks: Docker, the sandbox image, each OCI runtime in use (registered
//! as cordon needs, and enforcing its seccomp profile from inside a sandbox), nats-server,
//! the data directory. Each check says what it found and, when something is wrong, what to do.

use std::path::Path;

use crate::config::Settings;
use crate::docker::runtime::SandboxRuntime;

/// One check's verdict.
#[derive(Debug, Clone)]
pub struct Check {
    pub name: &'static str,
    pub ok: bool,
    pub detail: String,
    /// What to do about it, when not ok.
    pub fix: Option<String>,
}

impl Check {
    fn pass(name: &'static str, detail: impl Into<String>) -> Check {
        Check {
            name,
            ok: true,
            detail: detail.into(),
            fix: None,
        }
    }

    fn fail(name: &'static str, detail: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name,
            ok: false,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// Runs every check.
pub async fn run_checks(settings: &Settings) -> Vec<Check> {
    let mut checks = Vec::new();
    match crate::docker::connect().await {
        Ok(docker) => {
            checks.push(docker_check(&docker).await);
            let image = image_check(&docker, &settings.sandbox.image).await;
            let image_ok = image.ok;
            checks.push(image);
            for runtime in settings.sandbox.runtimes_in_use() {
                let registered = runtime_check(&docker, runtime).await;
                let probe = registered.ok && image_ok;
                checks.push(registered);
                if probe {
                    checks.push(seccomp_check(&docker, settings, runtime).await);
                }
            }
        }
        Err(error) => checks.push(Check::fail(
            "docker",
            error.to_string(),
            "start the Docker engine and make sure this user may use its socket",
        )),
    }
    checks.push(socket_buffers_check(Path::new(crate::cgroup::CGROUP_ROOT)));
    checks.push(nats_check(settings));
    checks.push(data_dir_check(&settings.data_dir()));
    checks
}

/// Whether sandboxes' TCP socket buffers can be charged to their memory limit: cgroup v2
/// does it by itself; on v1 the supervisor writes each sandbox's TCP limit, so it needs the
/// memory controller writable.
fn socket_buffers_check(root: &Path) -> Check {
    const NAME: &str = "socket buffers";
    if root.join("cgroup.controllers").is_file() {
        return Check::pass(
            NAME,
            "cgroup v2: the kernel charges them to each sandbox's memory",
        );
    }
    let memory = root.join("memory");
    // SAFETY: access(2) on a path this function owns; no memory is shared.
    let path = std::ffi::CString::new(memory.as_os_str().as_encoded_bytes()).unwrap_or_default();
    let writable = unsafe { libc::access(path.as_ptr(), libc::W_OK) } == 0;
    if memory.is_dir() && writable {
        Check::pass(
            NAME,
            "cgroup v1: each sandbox's TCP buffers are capped at its memory limit",
        )
    } else {
        Check::fail(
            NAME,
            format!("{} is not writable: sandboxes' TCP buffers cannot be charged, so cordon refuses to run them", memory.display()),
            "run the supervisor as root on the host, or in a container with the host's /sys/fs/cgroup mounted read-write (deploy/compose.yaml does)",
        )
    }
}

async fn docker_check(docker: &bollard::Docker) -> Check {
    match docker.version().await {
        Ok(version) => Check::pass(
            "docker",
            format!(
                "engine {} (API {})",
                version.version.unwrap_or_default(),
                version.api_version.unwrap_or_default()
            ),
        ),
        Err(error) => Check::fail("docker", error.to_string(), "check the Docker engine"),
    }
}

async fn image_check(docker: &bollard::Docker, image: &str) -> Check {
    match crate::docker::image_exists(docker, image).await {
        Ok(true) => Check::pass("image", format!("{image} is present")),
        Ok(false) => Check::fail(
            "image",
            format!("{image} is missing"),
            "build it with `cordon image build` (as root; needs debootstrap from Debian's packages)",
        ),
        Err(error) => Check::fail("image", error.to_string(), "check the Docker engine"),
    }
}

/// Each runtime a trust level runs on is registered with Docker (runsc with the arguments
/// cordon's hardening needs).
async fn runtime_check(docker: &bollard::Docker, runtime: SandboxRuntime) -> Check {
    match crate::docker::runtime::check_registered(docker, runtime).await {
        Ok(found) => Check::pass("runtime", found),
        Err(why) => Check::fail(
            "runtime",
            why,
            "register it as said, or set [sandbox] runtime (and [sandbox.runtimes]) to \"runc\"",
        ),
    }
}

/// What the seccomp probe prints when the profile holds: both refused, a thread started.
const SECCOMP_HOLDS: &str = "io_uring_setup:EPERM clone3:ENOSYS vsock:EPERM thread:ok";

/// A sandbox on `runtime` tries io_uring and a vsock socket (both must be refused by
/// cordon's profile, not by chance), `clone3` (ENOSYS: refused by the runc profile, absent
/// from this runsc; a runsc that implemented it would let namespace flags past the `clone`
/// filter) and starts a thread (the runsc variant must let it): proof that the runtime
/// enforces the profile, which runsc without `--oci-seccomp` would silently not.
async fn seccomp_check(
    docker: &bollard::Docker,
    settings: &Settings,
    runtime: SandboxRuntime,
) -> Check {
    const CODE: &str = "import ctypes, errno, socket, threading\n\
libc = ctypes.CDLL(None, use_errno=True)\n\
uring = 'EPERM' if libc.syscall(425, 1, 0) == -1 and ctypes.get_errno() == errno.EPERM else 'open'\n\
clone3 = 'ENOSYS' if libc.syscall(435, 0, 0) == -1 and ctypes.get_errno() == errno.ENOSYS else 'open'\n\
try:\n    socket.socket(40, socket.SOCK_STREAM)\n    vsock = 'open'\n\
except PermissionError:\n    vsock = 'EPERM'\n\
except OSError as e:\n    vsock = errno.errorcode.get(e.errno, str(e.errno))\n\
t = threading.Thread(target=print, args=('',)); t.start(); t.join()\n\
print(f'io_uring_setup:{uring} clone3:{clone3} vsock:{vsock} thread:ok')\n";
    let sandbox = &settings.sandbox;
    let purpose = ("cordon-doctor", CODE);
    let printed =
        crate::image::probe::run_on(docker, sandbox, runtime, &sandbox.image, purpose).await;
    let name = runtime.name();
    match printed.map(|out| String::from_utf8_lossy(&out).trim().to_string()) {
        Ok(seen) if seen == SECCOMP_HOLDS => Check::pass(
            "seccomp",
            format!(
                "{name}: io_uring, clone3 and vsock refused from inside a sandbox, threads start"
            ),
        ),
        Ok(seen) => Check::fail(
            "seccomp",
            format!("{name}: a sandbox saw {seen:?}, not {SECCOMP_HOLDS:?}"),
            format!("register {name} as the README says (runsc needs --oci-seccomp)"),
        ),
        Err(error) => Check::fail(
            "seccomp",
            format!("{name}: the probe sandbox failed: {error}"),
            "run a program with `cordon exec` to see why",
        ),
    }
}

fn nats_check(settings: &Settings) -> Check {
    if !settings.nats.url.is_empty() {
        return Check::pass("nats", format!("using {}", settings.nats.url));
    }
    let bin = &settings.nats.server_bin;
    match std::process::Command::new(bin).arg("--version").output() {
        Ok(output) if output.status.success() => {
            let version = String::from_utf8_lossy(&output.stdout).trim().to_string();
            Check::pass("nats", format!("{version} for the embedded server"))
        }
        _ => Check::fail(
            "nats",
            format!("{bin} is not installed (needed when no nats.url is set)"),
            "apt-get install nats-server, or point nats.url / --nats at a running server",
        ),
    }
}

fn data_dir_check(dir: &Path) -> Check {
    let probe = dir.join(".doctor-probe");
    let writable = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&probe, b"ok"));
    let _ = std::fs::remove_file(&probe);
    match writable {
        Ok(()) => Check::pass("data dir", format!("{} is writable", dir.display())),
        Err(error) => Check::fail(
            "data dir",
            format!("{} is not writable: {error}", dir.display()),
            "choose another with --data-dir or node.data_dir",
        ),
    }
}
