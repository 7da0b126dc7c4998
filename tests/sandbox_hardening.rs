//! Hardening of a sandbox, checked from inside a real container: identity, capabilities,
//! filesystem, network, cgroup limits, ulimits, environment, and the lifecycle around it.
//! Every check runs on both paths: a cold sandbox and a warm one from the pool.
//! Needs Docker and the `cordon-python:3.11` image; fails (never skips) without them.

mod sandbox_support;

use cordon::docker::runtime::SandboxRuntime;
use cordon::supervisor::{run_sandbox, Lifecycle, SandboxError, SandboxSpec};
use sandbox_support::{docker, run_on, spec, stdout_on, Path, MIB, PATHS};

#[tokio::test]
async fn code_goes_in_through_stdin_and_both_streams_and_the_exit_code_come_back() {
    let docker = docker().await;
    let spec = spec("streams");
    let code = "import sys\nprint('out', flush=True)\nprint('err', file=sys.stderr)\nsys.exit(3)\n";
    for path in PATHS {
        let run = run_on(path, &docker, &spec, code).await;
        let outcome = run.outcome();
        assert_eq!(outcome.stdout, b"out\n", "{path:?}");
        assert_eq!(outcome.stderr, b"err\n", "{path:?}");
        assert_eq!(outcome.exit_code, Some(3), "{path:?}");
        assert_eq!(outcome.violation, None, "{path:?}");
        assert!(!outcome.stdout_truncated && !outcome.stderr_truncated);
    }
}

/// A program ends as a script does: a thread still running when its last line has run is
/// waited for, a child it forks (no exec) ends where the code ends without ending the run
/// early, and a multiprocessing pool works.
#[tokio::test]
async fn a_program_ends_as_a_script_does() {
    let docker = docker().await;
    let spec = spec("script-end");
    let cases = [
        (
            "import threading, time\ndef late():\n    time.sleep(0.3)\n    print('late')\nthreading.Thread(target=late).start()\nprint('main')\n",
            "main\nlate\n",
        ),
        (
            "import os, sys\npid = os.fork()\nif pid == 0:\n    print('child', flush=True)\n    sys.exit(5)\nos.waitpid(pid, 0)\nprint('parent')\n",
            "child\nparent\n",
        ),
        (
            "from multiprocessing import Pool\nwith Pool(2) as pool:\n    print(pool.map(abs, [-1, -2]))\n",
            "[1, 2]\n",
        ),
    ];
    for path in PATHS {
        for (code, printed) in cases {
            assert_eq!(
                stdout_on(path, &docker, &spec, code).await,
                printed,
                "{path:?}: {code}"
            );
        }
    }
}

#[tokio::test]
async fn lifecycle_events_arrive_in_order_for_one_container() {
    let docker = docker().await;
    let spec = spec("lifecycle");
    let image = docker.inspect_image(&spec.image).await.unwrap();
    let image_id = image.id.unwrap();
    assert!(image_id.starts_with("sha256:"), "{image_id}");
    for path in PATHS {
        let run = run_on(path, &docker, &spec, "print('hi')").await;
        let container = &run.outcome().container_id;
        let spec = path.spec(&spec);
        assert_lifecycle_of_one_container(&run.events, container, (&spec, &image_id));
    }
}

/// Created (naming the image, the id the engine ran and the runtime), Started, Exited,
/// Removed, all of one container.
fn assert_lifecycle_of_one_container(
    events: &[Lifecycle],
    id: &str,
    (spec, image_id): (&SandboxSpec, &str),
) {
    let id = id.to_string();
    let expected = vec![
        Lifecycle::Created {
            container_id: id.clone(),
            image: spec.image.clone(),
            image_id: image_id.to_string(),
            runtime: spec.runtime.name().to_string(),
        },
        Lifecycle::Started {
            container_id: id.clone(),
        },
        Lifecycle::Exited {
            container_id: id.clone(),
            exit_code: Some(0),
            oom_killed: false,
        },
    ];
    assert_eq!(events[..3], expected);
    // `docker diff` was read before removal (the read-only root leaves it little to say).
    match &events[3..] {
        [Lifecycle::Removed {
            container_id,
            changes: Some(changes),
        }] => {
            assert_eq!(container_id, &id);
            assert_eq!(changes.error, None, "{changes:?}");
            assert_eq!(changes.omitted, 0);
        }
        other => panic!("expected one Removed with its changes, got {other:?}"),
    }
}

#[tokio::test]
async fn the_program_runs_as_uid_and_gid_1000_with_no_group_but_its_own() {
    let docker = docker().await;
    let code =
        "import os\nprint(os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups())";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("uid"), code).await;
        assert_eq!(out.trim(), "1000 1000 1000 1000 [1000]");
    }
}

#[tokio::test]
async fn no_capabilities_no_new_privileges_and_seccomp_filtering() {
    let docker = docker().await;
    let code = "import ctypes\nprint(open('/proc/self/status').read())\nprint('NoNewPrivsCall:', ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))";
    for path in PATHS {
        let status = stdout_on(path, &docker, &spec("caps"), code).await;
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_string())
                .unwrap_or_else(|| panic!("{name} missing from /proc/self/status on {path:?}"))
        };
        // gVisor's /proc/self/status has no ambient set (it keeps none) and no NoNewPrivs line.
        let sets: &[&str] = match path.runtime() {
            SandboxRuntime::Runc => &["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"],
            SandboxRuntime::Runsc => &["CapInh:", "CapPrm:", "CapEff:", "CapBnd:"],
        };
        for caps in sets {
            assert_eq!(field(caps), "0000000000000000", "{caps} on {path:?}");
        }
        // prctl(PR_GET_NO_NEW_PRIVS), answered by the kernel (or gVisor's Sentry) itself.
        assert_eq!(field("NoNewPrivsCall:"), "1", "{path:?}");
        assert_eq!(
            field("Seccomp:"),
            "2",
            "cordon's seccomp profile must be on ({path:?})"
        );
    }
}

#[tokio::test]
async fn the_root_filesystem_is_read_only() {
    let docker = docker().await;
    let code = "import errno\nfor p in ['/usr/evil', '/etc/evil', '/evil']:\n    try:\n        open(p, 'w')\n        print(p, 'WRITABLE')\n    except OSError as e:\n        print(p, errno.errorcode[e.errno])\nprint('/', [l.split()[3] for l in open('/proc/mounts') if l.split()[1] == '/'])";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("rootfs"), code).await;
        let lines: Vec<&str> = out.lines().collect();
        // gVisor checks the directory's permissions before the mount's read-only flag.
        let refused = match path.runtime() {
            SandboxRuntime::Runc => " EROFS",
            SandboxRuntime::Runsc => " EACCES",
        };
        for line in &lines[..3] {
            assert!(line.ends_with(refused), "{line} on {path:?}");
        }
        assert!(
            lines[3].starts_with("/ ['ro,"),
            "the root is mounted read-only: {}",
            lines[3]
        );
        assert_eq!(lines.len(), 4);
    }
}

#[tokio::test]
async fn only_the_loopback_interface_exists() {
    let docker = docker().await;
    let code = "import os\nprint(sorted(os.listdir('/sys/class/net')))";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("net"), code).await;
        assert_eq!(out.trim(), "['lo']");
    }
}

#[tokio::test]
async fn cgroup_memory_and_pids_limits_are_as_configured() {
    let docker = docker().await;
    let mut spec = spec("cgroup");
    spec.limits.memory_bytes = 96 * MIB;
    spec.limits.pids = 37;
    // cgroup v1 paths first, v2 after; then what gVisor's Sentry holds the program to.
    let code = "import os, resource\ndef first(*paths):\n    for p in paths:\n        if os.path.exists(p):\n            return open(p).read().strip()\n    return 'missing'\nprint(first('/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory.max'))\nprint(first('/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes', '/sys/fs/cgroup/memory.swap.max'))\nprint(first('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max'))\nprint(resource.getrlimit(resource.RLIMIT_NPROC)[1])\nprint(open('/proc/meminfo').readline().split()[1:])";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec, code).await;
        let lines: Vec<&str> = out.lines().collect();
        if path.runtime() == SandboxRuntime::Runsc {
            assert_gvisor_holds_the_limits(&lines, 96 * MIB, 37);
            continue;
        }
        assert_eq!(lines[0], (96 * MIB).to_string());
        // memsw is absent when swap accounting is off; v2 shows swap alone (0).
        assert!(
            ["missing", "0", &(96 * MIB).to_string()].contains(&lines[1]),
            "swap limit {}",
            lines[1]
        );
        assert_eq!(lines[2], "37");
    }
}

/// Under gVisor the program sees no cgroup files: its memory is the Sentry's, which knows
/// the limit as its machine's memory, and its processes and threads are held by RLIMIT_NPROC
/// (the host's cgroups hold the Sentry; `sandbox_limits` shows both hold).
fn assert_gvisor_holds_the_limits(lines: &[&str], memory_bytes: u64, pids: u64) {
    assert_eq!(lines[3], pids.to_string(), "RLIMIT_NPROC");
    let total_kb = lines[4]
        .trim_matches(|c| "[]'".contains(c))
        .split('\'')
        .next()
        .unwrap();
    let total_kb: u64 = total_kb
        .parse()
        .unwrap_or_else(|_| panic!("MemTotal {}", lines[4]));
    let limit_kb = memory_bytes / 1024;
    assert!(
        total_kb.abs_diff(limit_kb) <= 1024,
        "gVisor's MemTotal {total_kb} kB is not the limit of {limit_kb} kB"
    );
}

#[tokio::test]
async fn open_files_file_size_and_core_ulimits_are_set() {
    let docker = docker().await;
    let mut spec = spec("ulimits");
    spec.nofile = 123;
    spec.fsize_bytes = 5 * MIB;
    let code = "import resource as r\nfor l in (r.RLIMIT_NOFILE, r.RLIMIT_FSIZE, r.RLIMIT_CORE):\n    print(*r.getrlimit(l))";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec, code).await;
        let expected = format!("123 123\n{0} {0}\n0 0\n", 5 * MIB);
        assert_eq!(out, expected);
    }
}

#[tokio::test]
async fn no_variable_of_the_services_environment_reaches_the_sandbox() {
    let docker = docker().await;
    let marker = format!("CORDON_TEST_MARKER_{}", ulid::Ulid::new());
    std::env::set_var(&marker, "host-secret");
    let code = "import os\nfor k, v in sorted(os.environ.items()):\n    print(f'{k}={v}')";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("env"), code).await;
        assert!(
            !out.contains(&marker) && !out.contains("host-secret"),
            "{out}"
        );
        // cargo sets this in the test process's environment; it must not leak either.
        assert!(!out.contains("CARGO_MANIFEST_DIR"), "{out}");
        let names: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, _)| k)
            .collect();
        for name in &names {
            assert!(
                ["PATH", "LANG", "HOME", "HOSTNAME"].contains(name),
                "unexpected variable {name}"
            );
        }
        assert!(
            out.contains("HOME=/work\n") && out.contains("LANG=C.UTF-8\n"),
            "{out}"
        );
    }
}

#[tokio::test]
async fn tmp_and_the_workdir_are_size_capped_tmpfs_and_tmp_is_noexec() {
    let docker = docker().await;
    let mut spec = spec("tmpfs");
    spec.limits.tmpfs_bytes = 3 * MIB;
    let code = "import os\nfor p in ('/tmp', '/work'):\n    s = os.statvfs(p)\n    print(p, s.f_blocks * s.f_frsize, os.stat(p).st_uid)\nmounts = {l.split()[1]: l.split()[3] for l in open('/proc/mounts')}\nprint(mounts['/tmp'])\nprint(mounts['/work'])\nopen('/work/f', 'w').write('ok')\nprint(os.getcwd())\nimport errno, shutil, subprocess\nfor name, major, minor in (('mem', 1, 1), ('fuse', 10, 229), ('tun', 10, 200)):\n    try:\n        os.mknod('/work/' + name, 0o20600, os.makedev(major, minor))\n        print(name, 'MADE')\n    except OSError as e:\n        print(name, errno.errorcode[e.errno])\nos.mkfifo('/work/fifo')\nprint('fifo', os.path.exists('/work/fifo'))\nshutil.copy('/bin/true', '/tmp/true')\nos.chmod('/tmp/true', 0o755)\ntry:\n    subprocess.run(['/tmp/true'])\n    print('tmp exec RAN')\nexcept OSError as e:\n    print('tmp exec', errno.errorcode[e.errno])";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec, code).await;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], format!("/tmp {} 0", 3 * MIB));
        assert_eq!(lines[1], format!("/work {} 1000", 3 * MIB));
        // gVisor's mount table does not list nosuid and nodev; the seccomp profile refuses
        // device nodes on both runtimes (gVisor would make one of its own devices).
        let (tmp_options, work_options): (&[&str], &[&str]) = match path.runtime() {
            SandboxRuntime::Runc => (&["nosuid", "nodev", "noexec"], &["nosuid", "nodev"]),
            SandboxRuntime::Runsc => (&["noexec"], &[]),
        };
        for option in tmp_options {
            assert!(
                lines[2].split(',').any(|o| o == *option),
                "/tmp lacks {option}: {}",
                lines[2]
            );
        }
        for option in work_options {
            assert!(
                lines[3].split(',').any(|o| o == *option),
                "/work lacks {option}: {}",
                lines[3]
            );
        }
        assert_eq!(lines[4], "/work");
        assert_eq!(
            lines[5..8],
            ["mem EPERM", "fuse EPERM", "tun EPERM"],
            "{path:?}"
        );
        assert_eq!(lines[8], "fifo True", "{path:?}");
        assert_eq!(lines[9], "tmp exec EACCES", "{path:?}");
    }
}

/// Docker's init is PID 1; its child is the runner's framer (which frames the program's
/// output and outlives it), whose child runs the program.
#[tokio::test]
async fn an_init_runs_as_pid_1_and_the_program_is_its_grandchild() {
    let docker = docker().await;
    let code = "import os\n\
print(open('/proc/1/cmdline').read().split('\\0')[0])\n\
framer = os.getppid()\n\
print(open(f'/proc/{framer}/stat').read().rsplit(')', 1)[1].split()[1])";
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("init"), code).await;
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].contains("init"), "PID 1 is {}", lines[0]);
        assert_eq!(lines[1], "1", "the framer's parent is the init");
    }
}

#[tokio::test]
async fn a_missing_image_is_reported_as_such_and_leaves_nothing() {
    let docker = docker().await;
    let mut spec = spec("noimage");
    spec.image = "cordon-test-no-such-image:never".to_string();
    let (_orders, kills) = tokio::sync::mpsc::channel(1);
    let (lifecycle, _events) = tokio::sync::mpsc::channel(8);
    let result = run_sandbox(&docker, &spec, "print(1)", kills, lifecycle).await;
    match result {
        Err(SandboxError::ImageMissing { image }) => assert_eq!(image, spec.image),
        other => panic!("expected ImageMissing, got {other:?}"),
    }
    sandbox_support::assert_no_leftovers(&docker, &spec.host_id).await;
}

#[tokio::test]
async fn limits_docker_would_read_as_unlimited_are_refused_before_any_container_exists() {
    let docker = docker().await;
    let mut spec = spec("failopen");
    spec.limits.memory_bytes = 0;
    let (_orders, kills) = tokio::sync::mpsc::channel(1);
    let (lifecycle, mut events) = tokio::sync::mpsc::channel(8);
    let result = run_sandbox(&docker, &spec, "print(1)", kills, lifecycle).await;
    assert!(
        matches!(result, Err(SandboxError::InvalidLimits { .. })),
        "{result:?}"
    );
    assert!(events.try_recv().is_err(), "no container was created");
    sandbox_support::assert_no_leftovers(&docker, &spec.host_id).await;
}

/// Tries, from inside, each system call and socket family cordon's seccomp profile refuses
/// beyond Docker's default, and the ones Python needs; prints `name result` lines.
const SYSCALL_PROBE: &str = r#"
import ctypes, errno, os, socket
libc = ctypes.CDLL(None, use_errno=True)
def call(name, number, *args):
    ctypes.set_errno(0)
    result = libc.syscall(number, *args)
    print(name, "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?"))
params = ctypes.create_string_buffer(120)
call("io_uring_setup", 425, 4, params)
call("io_uring_enter", 426, 0, 0, 0, 0, 0, 0)
call("io_uring_register", 427, 0, 0, 0, 0)
call("userfaultfd", 323, 0)
call("keyctl", 250, 0, 0, 0, 0, 0)
call("unshare_user", 272, 0x10000000)
call("ptrace_traceme", 101, 0, 0, 0, 0)
call("personality_no_aslr", 135, 0x0040000)
call("clone3_newuser", 435, 0, 0)
for name, family, kind, proto in [("vsock", 40, 1, 0), ("alg", 38, 5, 0), ("packet", 17, 3, 0),
        ("netlink_audit", 16, 3, 9), ("netlink_route", 16, 3, 0), ("unix", 1, 1, 0),
        ("inet", 2, 1, 0), ("inet6", 10, 1, 0)]:
    try:
        socket.socket(family, kind, proto).close()
        print("socket_" + name, "ok")
    except OSError as e:
        print("socket_" + name, errno.errorcode.get(e.errno, "?"))
pid = os.fork()
if pid == 0:
    os._exit(7)
print("fork", os.waitpid(pid, 0)[1] >> 8)
"#;

/// cordon's seccomp profile holds inside every kind of sandbox: io_uring, userfaultfd,
/// keyrings, user namespaces, ptrace, turning ASLR off and socket families other than
/// unix, IPv4, IPv6 and netlink-route are refused; what Python needs (fork, the allowed
/// families) works.
#[tokio::test]
async fn the_seccomp_profile_refuses_io_uring_vsock_and_the_rest_from_inside() {
    let docker = docker().await;
    for path in PATHS {
        let out = stdout_on(path, &docker, &spec("seccomp"), SYSCALL_PROBE).await;
        let result = |name: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(&format!("{name} ")))
                .unwrap_or_else(|| panic!("no line for {name}: {out}"))
                .to_string()
        };
        for refused in [
            "io_uring_setup",
            "io_uring_enter",
            "io_uring_register",
            "userfaultfd",
            "keyctl",
            "unshare_user",
            "ptrace_traceme",
            "personality_no_aslr",
            "socket_vsock",
            "socket_alg",
            "socket_packet",
            "socket_netlink_audit",
        ] {
            assert_eq!(result(refused), "EPERM", "{refused} on {path:?}: {out}");
        }
        // ENOSYS on both: runc's profile answers it so glibc falls back to clone (whose
        // flags are filtered); gVisor's Sentry has no clone3 (a runsc that had one would
        // let namespace flags past the clone filter: `cordon doctor` checks this too).
        assert_eq!(result("clone3_newuser"), "ENOSYS", "{path:?}: {out}");
        for allowed in [
            "socket_netlink_route",
            "socket_unix",
            "socket_inet",
            "socket_inet6",
        ] {
            assert_eq!(result(allowed), "ok", "{allowed} on {path:?}: {out}");
        }
        assert_eq!(result("fork"), "7", "{out}");
    }
}

/// What tells the host's shape reads as empty inside a sandbox; what Python reads stays.
#[tokio::test]
async fn proc_files_that_describe_the_host_are_masked() {
    let docker = docker().await;
    let code = r#"
import os
for p in ["/proc/meminfo", "/proc/loadavg", "/proc/uptime", "/proc/stat", "/proc/cmdline",
          "/proc/sys/kernel/random/boot_id", "/proc/interrupts", "/proc/vmcoreinfo",
          "/proc/cpuinfo", "/proc/self/status"]:
    try:
        print(p, len(open(p).read()))
    except OSError as e:
        print(p, "error", e.errno)
print("cpus", os.cpu_count())
"#;
    for path in PATHS {
        if path.runtime() == SandboxRuntime::Runsc {
            assert_gvisor_proc_is_its_own(&docker, path).await;
            continue;
        }
        let out = stdout_on(path, &docker, &spec("masked"), code).await;
        let size = |p: &str| {
            out.lines()
                .find_map(|l| l.strip_prefix(&format!("{p} ")))
                .unwrap_or_else(|| panic!("no line for {p}: {out}"))
                .to_string()
        };
        for masked in [
            "/proc/meminfo",
            "/proc/loadavg",
            "/proc/uptime",
            "/proc/stat",
            "/proc/cmdline",
            "/proc/sys/kernel/random/boot_id",
            "/proc/interrupts",
        ] {
            assert_eq!(size(masked), "0", "{masked} on {path:?}: {out}");
        }
        let vmcoreinfo = size("/proc/vmcoreinfo");
        assert!(
            vmcoreinfo == "0" || vmcoreinfo.starts_with("error"),
            "{out}"
        );
        for kept in ["/proc/cpuinfo", "/proc/self/status"] {
            assert_ne!(size(kept), "0", "{kept} stays readable: {out}");
        }
        assert!(!out.contains("cpus None"), "{out}");
    }
}

/// gVisor's /proc is its own, not the host's: Docker's masks do not apply there, and
/// there is nothing of the host's to mask. Its memory is the sandbox's limit, its uptime
/// and boot time the sandbox's, its kernel command line gVisor's; boot_id, interrupts and
/// vmcoreinfo do not exist.
async fn assert_gvisor_proc_is_its_own(docker: &bollard::Docker, path: Path) {
    let code = r#"
import time
def text(p):
    try:
        return open(p).read()
    except OSError:
        return ""
print(text("/proc/meminfo").split()[1])
print(float(text("/proc/uptime").split()[0]))
btime = [l for l in text("/proc/stat").splitlines() if l.startswith("btime")]
print(time.time() - int(btime[0].split()[1]) if btime else 0)
print("gvisor" in text("/proc/cmdline"))
print(sum(len(text(p)) for p in ["/proc/sys/kernel/random/boot_id", "/proc/interrupts", "/proc/vmcoreinfo"]))
"#;
    let out = stdout_on(path, docker, &spec("masked"), code).await;
    let lines: Vec<&str> = out.lines().collect();
    let limit_kb = sandbox_support::limits().memory_bytes / 1024;
    let total_kb: u64 = lines[0].parse().unwrap();
    assert!(
        total_kb.abs_diff(limit_kb) <= 1024,
        "MemTotal {total_kb} kB: {out}"
    );
    let uptime: f64 = lines[1].parse().unwrap();
    assert!(
        uptime < 60.0,
        "uptime {uptime} s is not the sandbox's: {out}"
    );
    let since_boot: f64 = lines[2].parse().unwrap();
    assert!(since_boot < 60.0, "btime is not the sandbox's: {out}");
    assert_eq!(lines[3], "True", "kernel command line: {out}");
    assert_eq!(lines[4], "0", "boot_id, interrupts, vmcoreinfo: {out}");
}

/// A spec whose sandboxes each get a uid of their own from a range, locked in `dir`.
fn own_uid_spec(test: &str, dir: &std::path::Path) -> SandboxSpec {
    SandboxSpec {
        user: "auto".into(),
        uids: Some(cordon::supervisor::uids::UidRange {
            first: 1_879_048_192,
            count: 65_536,
            dir: dir.to_path_buf(),
        }),
        ..spec(test)
    }
}

/// With `user = "auto"` each sandbox runs as a uid and gid of its own from the range (no
/// host account, no supplementary group), and its working directory is its own.
#[tokio::test]
async fn each_sandbox_runs_as_a_uid_of_its_own_from_the_range() {
    let docker = docker().await;
    let locks = tempfile::tempdir().unwrap();
    let code = "import os\nopen('/work/mine', 'w').write('x')\nprint(os.getuid(), os.getgid(), os.getgroups())";
    let mut seen = Vec::new();
    for path in PATHS {
        // Two hosts' worth of sandboxes (each run checks its host is left empty), one lock dir.
        let first = own_uid_spec("own-uid-a", locks.path());
        let second = own_uid_spec("own-uid-b", locks.path());
        let (a, b) = tokio::join!(
            stdout_on(path, &docker, &first, code),
            stdout_on(path, &docker, &second, code)
        );
        for out in [a, b] {
            let fields: Vec<&str> = out.split_whitespace().collect();
            let uid: u32 = fields[0].parse().unwrap_or_else(|_| panic!("{out}"));
            assert!(
                (1_879_048_192..1_879_048_192 + 65_536).contains(&uid),
                "{out}"
            );
            assert_eq!(fields[1], fields[0], "gid is the uid's own: {out}");
            let groups = fields[2..].join(" ");
            assert!(groups == "[]" || groups == format!("[{uid}]"), "{out}");
            assert!(!seen.contains(&uid), "uid {uid} was handed out twice");
            seen.push(uid);
        }
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    for uid in &seen {
        assert!(
            !passwd.contains(&format!(":{uid}:")),
            "uid {uid} is a host account"
        );
    }
}

/// One sandbox holding every inotify instance its user may have does not starve another
/// sandbox running at the same time (per-user kernel quotas are not shared).
#[tokio::test]
async fn a_sandbox_holding_its_users_inotify_quota_does_not_starve_another() {
    let docker = docker().await;
    let locks = tempfile::tempdir().unwrap();
    let hog_spec = own_uid_spec("inotify-hog", locks.path());
    let other_spec = own_uid_spec("inotify-other", locks.path());
    let hog = "import ctypes, time\nlibc = ctypes.CDLL(None, use_errno=True)\nn = 0\nwhile libc.inotify_init1(0) >= 0:\n    n += 1\nprint('held', n, ctypes.get_errno(), flush=True)\ntime.sleep(5)";
    let other = "import ctypes, time\ntime.sleep(2)\nlibc = ctypes.CDLL(None, use_errno=True)\nfd = libc.inotify_init1(0)\nprint('fd' if fd >= 0 else 'errno %d' % ctypes.get_errno())";
    let (held, got) = tokio::join!(
        stdout_on(Path::Cold, &docker, &hog_spec, hog),
        stdout_on(Path::Cold, &docker, &other_spec, other)
    );
    assert!(held.starts_with("held "), "{held}");
    let count: u32 = held.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(
        count > 0 && count < 1024,
        "the hog reached its user's limit: {held}"
    );
    assert_eq!(
        got.trim(),
        "fd",
        "the other sandbox still gets an inotify instance"
    );
}
