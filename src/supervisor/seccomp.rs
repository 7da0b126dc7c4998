//! cordon's own seccomp profile, applied to every sandbox instead of Docker's default. An
//! allowlist: what a Python program and the libraries a data assistant uses need, and
//! nothing else; every other system call fails with EPERM. Compared with Docker's default
//! it also refuses io_uring (its operations bypass seccomp), socket families other than
//! unix, IPv4, IPv6 and netlink-route (no vsock, which crosses the VM boundary, no AF_ALG,
//! no packet sockets), ptrace and cross-process memory access, keyrings, userfaultfd, BPF,
//! perf events and namespaces. Only native 64-bit calls are allowed (no 32-bit or x32
//! entry points around the argument filters). `profile_json` builds the document Docker
//! takes in `security_opt` (`seccomp=<json>`); `REMOVED` says why for the README's table.

use serde_json::{json, Value};

use crate::docker::runtime::SandboxRuntime;

/// errno for a refused call: EPERM, which programs handle as "not allowed".
const EPERM: u32 = 1;
/// errno for `clone3`: ENOSYS, so glibc falls back to `clone`, whose flags can be checked.
const ENOSYS: u32 = 38;

/// Socket address families a sandbox may open: unix, IPv4, IPv6, netlink.
const AF_UNIX: u64 = 1;
const AF_INET: u64 = 2;
const AF_INET6: u64 = 10;
const AF_NETLINK: u64 = 16;
/// The one netlink protocol allowed (interface and address listings, used by glibc).
const NETLINK_ROUTE: u64 = 0;
/// `clone` flags that make namespaces (NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID,
/// NEWNET): refused, as no sandbox needs a namespace of its own.
const CLONE_NAMESPACE_FLAGS: u64 = 0x7E02_0000;
/// The file-type bits of a mode (S_IFMT), and the types `mknod` may make: regular files
/// (also as type 0), FIFOs and sockets; never character or block devices. runc's sandboxes
/// lack CAP_MKNOD anyway, but gVisor's Sentry lets a program make a node of one of its
/// own devices (/dev/fuse, /dev/net/tun) without it.
const S_IFMT: u64 = 0o170_000;
const NODE_TYPES: [u64; 4] = [0, 0o100_000, 0o010_000, 0o140_000];
/// `personality` values allowed: PER_LINUX, PER_LINUX32, UNAME26 (alone and with
/// PER_LINUX32) and the query; nothing that turns address randomisation off.
const PERSONALITIES: [u64; 5] = [0x0, 0x8, 0x0002_0000, 0x0002_0008, 0xffff_ffff];

/// Allowed without conditions, by what they are for.
const ALLOWED: &[&[&str]] = &[
    // Files and directories.
    &[
        "access",
        "faccessat",
        "faccessat2",
        "open",
        "openat",
        "openat2",
        "creat",
        "close",
        "close_range",
        "read",
        "readv",
        "pread64",
        "preadv",
        "preadv2",
        "write",
        "writev",
        "pwrite64",
        "pwritev",
        "pwritev2",
        "lseek",
        "_llseek",
        "stat",
        "stat64",
        "lstat",
        "lstat64",
        "fstat",
        "fstat64",
        "newfstatat",
        "fstatat64",
        "statx",
        "statfs",
        "statfs64",
        "fstatfs",
        "fstatfs64",
        "getdents",
        "getdents64",
        "getcwd",
        "chdir",
        "fchdir",
        "mkdir",
        "mkdirat",
        "rmdir",
        "rename",
        "renameat",
        "renameat2",
        "link",
        "linkat",
        "unlink",
        "unlinkat",
        "symlink",
        "symlinkat",
        "readlink",
        "readlinkat",
        "chmod",
        "fchmod",
        "fchmodat",
        "chown",
        "fchown",
        "fchownat",
        "lchown",
        "umask",
        "truncate",
        "truncate64",
        "ftruncate",
        "ftruncate64",
        "fallocate",
        "fadvise64",
        "fadvise64_64",
        "readahead",
        "fsync",
        "fdatasync",
        "sync",
        "syncfs",
        "sync_file_range",
        "flock",
        "fcntl",
        "fcntl64",
        "dup",
        "dup2",
        "dup3",
        "ioctl",
        "utime",
        "utimes",
        "utimensat",
        "futimesat",
        "copy_file_range",
        "sendfile",
        "sendfile64",
        "splice",
        "tee",
        "vmsplice",
        "getxattr",
        "lgetxattr",
        "fgetxattr",
        "listxattr",
        "llistxattr",
        "flistxattr",
        "setxattr",
        "lsetxattr",
        "fsetxattr",
        "removexattr",
        "lremovexattr",
        "fremovexattr",
        "inotify_init",
        "inotify_init1",
        "inotify_add_watch",
        "inotify_rm_watch",
        "memfd_create",
    ],
    // Memory.
    &[
        "brk",
        "mmap",
        "mmap2",
        "munmap",
        "mremap",
        "mprotect",
        "madvise",
        "mincore",
        "msync",
        "mlock",
        "mlock2",
        "munlock",
        "mlockall",
        "munlockall",
        "membarrier",
        "pkey_alloc",
        "pkey_free",
        "pkey_mprotect",
        "remap_file_pages",
    ],
    // Processes, threads, signals.
    &[
        "execve",
        "execveat",
        "fork",
        "vfork",
        "exit",
        "exit_group",
        "wait4",
        "waitid",
        "kill",
        "tkill",
        "tgkill",
        "getpid",
        "getppid",
        "gettid",
        "getpgid",
        "getpgrp",
        "setpgid",
        "getsid",
        "setsid",
        "set_tid_address",
        "set_robust_list",
        "get_robust_list",
        "futex",
        "futex_waitv",
        "rseq",
        "arch_prctl",
        "prctl",
        "getrlimit",
        "setrlimit",
        "prlimit64",
        "ugetrlimit",
        "getrusage",
        "getpriority",
        "setpriority",
        "sched_yield",
        "sched_getaffinity",
        "sched_setaffinity",
        "sched_getparam",
        "sched_setparam",
        "sched_getscheduler",
        "sched_setscheduler",
        "sched_getattr",
        "sched_setattr",
        "sched_get_priority_max",
        "sched_get_priority_min",
        "sched_rr_get_interval",
        "getcpu",
        "ioprio_get",
        "ioprio_set",
        "rt_sigaction",
        "rt_sigprocmask",
        "rt_sigreturn",
        "rt_sigpending",
        "rt_sigsuspend",
        "rt_sigtimedwait",
        "rt_sigqueueinfo",
        "rt_tgsigqueueinfo",
        "sigaltstack",
        "signalfd",
        "signalfd4",
        "pause",
        "restart_syscall",
        "pidfd_open",
        "pidfd_send_signal",
        "capget",
        "capset",
        "seccomp",
    ],
    // Users and groups (the sandbox has no capability to change them).
    &[
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "getresuid",
        "getresgid",
        "getgroups",
        "setuid",
        "setgid",
        "setreuid",
        "setregid",
        "setresuid",
        "setresgid",
        "setgroups",
        "setfsuid",
        "setfsgid",
    ],
    // Time and waiting.
    &[
        "clock_gettime",
        "clock_getres",
        "clock_nanosleep",
        "gettimeofday",
        "time",
        "nanosleep",
        "times",
        "alarm",
        "getitimer",
        "setitimer",
        "timer_create",
        "timer_delete",
        "timer_gettime",
        "timer_settime",
        "timer_getoverrun",
        "timerfd_create",
        "timerfd_gettime",
        "timerfd_settime",
        "poll",
        "ppoll",
        "select",
        "pselect6",
        "epoll_create",
        "epoll_create1",
        "epoll_ctl",
        "epoll_wait",
        "epoll_pwait",
        "epoll_pwait2",
        "eventfd",
        "eventfd2",
    ],
    // Pipes, sockets once opened, and System V / POSIX IPC inside the sandbox.
    &[
        "pipe",
        "pipe2",
        "bind",
        "connect",
        "listen",
        "accept",
        "accept4",
        "getsockname",
        "getpeername",
        "getsockopt",
        "setsockopt",
        "shutdown",
        "sendto",
        "recvfrom",
        "sendmsg",
        "recvmsg",
        "sendmmsg",
        "recvmmsg",
        "mq_open",
        "mq_unlink",
        "mq_timedsend",
        "mq_timedreceive",
        "mq_notify",
        "mq_getsetattr",
        "msgget",
        "msgsnd",
        "msgrcv",
        "msgctl",
        "semget",
        "semop",
        "semtimedop",
        "semctl",
        "shmget",
        "shmat",
        "shmdt",
        "shmctl",
    ],
    // The system, read-only, and asynchronous I/O of the older kind (no io_uring).
    &[
        "uname",
        "sysinfo",
        "getrandom",
        "io_setup",
        "io_destroy",
        "io_submit",
        "io_cancel",
        "io_getevents",
        "io_pgetevents",
    ],
];

/// What is refused that Docker's default profile allows, and why: the README's table,
/// which a test keeps in step.
#[cfg(test)]
const REMOVED: &[(&str, &str)] = &[
    ("io_uring_setup, io_uring_enter, io_uring_register", "io_uring's operations run outside seccomp's reach, and it has been the most exploited kernel surface of recent years"),
    ("socket and socketpair of any family but unix, inet, inet6 and netlink-route", "AF_VSOCK reaches the virtual machine's host even with network none, AF_ALG and AF_PACKET are kernel attack surface a Python program does not need"),
    ("ptrace, process_vm_readv, process_vm_writev, kcmp", "reading or steering another process is not what sandboxed code does"),
    ("add_key, request_key, keyctl", "kernel keyrings are shared state and attack surface"),
    ("userfaultfd", "a classic primitive for winning kernel races"),
    ("bpf, perf_event_open", "need capabilities the sandbox lacks; refused outright"),
    ("unshare, setns, and clone with namespace flags", "new namespaces open kernel code paths meant for privileged users"),
    ("mknod and mknodat of character and block devices", "a program has no use for a device node; gVisor would let it make one of its own devices"),
    ("all 32-bit and x32 entry points", "the filters on socket arguments would not apply to socketcall"),
];

/// The profile as Docker takes it in `security_opt` (`seccomp=` followed by this), for a
/// sandbox on `runtime`.
pub fn profile_json(runtime: SandboxRuntime) -> String {
    profile(runtime).to_string()
}

/// Calls gVisor's Sentry knows by another name than Linux does. It reads a profile's names
/// through its own table and silently drops a name it does not know, so the runsc variant
/// also allows each under gVisor's name (found by calling every allowed call from inside:
/// `pselect6` alone was refused, which broke `select.select`).
const GVISOR_NAMES: &[(&str, &str)] = &[("pselect6", "pselect")];

fn profile(runtime: SandboxRuntime) -> Value {
    let mut allowed: Vec<&str> = ALLOWED
        .iter()
        .flat_map(|group| group.iter().copied())
        .collect();
    if runtime == SandboxRuntime::Runsc {
        allowed.extend(GVISOR_NAMES.iter().map(|(_, gvisor)| *gvisor));
    }
    let mut rules = vec![json!({"names": allowed, "action": "SCMP_ACT_ALLOW"})];
    rules.extend(socket_rules());
    rules.push(json!({
        "names": ["clone"],
        "action": "SCMP_ACT_ALLOW",
        "args": [{"index": 0, "value": CLONE_NAMESPACE_FLAGS, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}],
    }));
    rules.push(clone3_rule(runtime));
    rules.extend(mknod_rules());
    for persona in PERSONALITIES {
        rules.push(json!({
            "names": ["personality"],
            "action": "SCMP_ACT_ALLOW",
            "args": [{"index": 0, "value": persona, "op": "SCMP_CMP_EQ"}],
        }));
    }
    json!({
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": EPERM,
        "archMap": [
            {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": []},
            {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": []},
        ],
        "syscalls": rules,
    })
}

/// `clone3` passes its flags in memory, where a filter cannot read them, so runc's sandboxes
/// get ENOSYS for it and glibc falls back to `clone`, whose flags are checked. gVisor's
/// Sentry applies a rule's action but not its errno (it would answer EPERM and every thread
/// would fail to start), and implements no `clone3` of its own (it answers ENOSYS itself):
/// there it is passed to the Sentry, which never reaches the host kernel with it.
fn clone3_rule(runtime: SandboxRuntime) -> Value {
    match runtime {
        SandboxRuntime::Runc => {
            json!({"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": ENOSYS})
        }
        SandboxRuntime::Runsc => json!({"names": ["clone3"], "action": "SCMP_ACT_ALLOW"}),
    }
}

/// `mknod` (mode is argument 1) and `mknodat` (argument 2) for the types in `NODE_TYPES`.
fn mknod_rules() -> Vec<Value> {
    let mut rules = Vec::new();
    for (call, mode_index) in [("mknod", 1), ("mknodat", 2)] {
        for node_type in NODE_TYPES {
            rules.push(json!({
                "names": [call],
                "action": "SCMP_ACT_ALLOW",
                "args": [{"index": mode_index, "value": S_IFMT, "valueTwo": node_type, "op": "SCMP_CMP_MASKED_EQ"}],
            }));
        }
    }
    rules
}

/// `socket` and `socketpair` for the allowed families only (netlink: route only).
fn socket_rules() -> Vec<Value> {
    let family = |value: u64| json!({"index": 0, "value": value, "op": "SCMP_CMP_EQ"});
    let mut rules: Vec<Value> = [AF_UNIX, AF_INET, AF_INET6]
        .into_iter()
        .map(|af| json!({"names": ["socket"], "action": "SCMP_ACT_ALLOW", "args": [family(af)]}))
        .collect();
    rules.push(json!({
        "names": ["socket"],
        "action": "SCMP_ACT_ALLOW",
        "args": [family(AF_NETLINK), {"index": 2, "value": NETLINK_ROUTE, "op": "SCMP_CMP_EQ"}],
    }));
    rules.push(
        json!({"names": ["socketpair"], "action": "SCMP_ACT_ALLOW", "args": [family(AF_UNIX)]}),
    );
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names_allowed_outright() -> Vec<String> {
        profile(SandboxRuntime::Runc)["syscalls"][0]["names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn refused_calls_are_absent_and_sockets_are_filtered_by_family() {
        let allowed = names_allowed_outright();
        for refused in [
            "io_uring_setup",
            "io_uring_enter",
            "io_uring_register",
            "ptrace",
            "keyctl",
            "add_key",
            "userfaultfd",
            "bpf",
            "perf_event_open",
            "unshare",
            "setns",
            "mount",
            "socket",
            "socketpair",
            "clone",
            "clone3",
            "mknod",
            "mknodat",
            "personality",
            "socketcall",
            "process_vm_readv",
            "kcmp",
            "kexec_load",
            "init_module",
            "pivot_root",
        ] {
            assert!(
                !allowed.iter().any(|n| n == refused),
                "{refused} is allowed outright"
            );
        }
        let text = profile_json(SandboxRuntime::Runc);
        assert!(text.contains("\"defaultAction\":\"SCMP_ACT_ERRNO\""));
        let families: Vec<u64> = profile(SandboxRuntime::Runc)["syscalls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["names"][0] == "socket")
            .map(|r| r["args"][0]["value"].as_u64().unwrap())
            .collect();
        assert_eq!(families, [AF_UNIX, AF_INET, AF_INET6, AF_NETLINK]);
    }

    #[test]
    fn the_runsc_variant_differs_only_in_clone3_and_gvisor_names() {
        let runc = profile(SandboxRuntime::Runc);
        let mut runsc = profile(SandboxRuntime::Runsc);
        let outright = runsc["syscalls"][0]["names"].as_array_mut().unwrap();
        assert_eq!(outright.pop(), Some(json!("pselect")));
        let without_clone3 = |profile: &Value| -> Vec<Value> {
            let rules = profile["syscalls"].as_array().unwrap();
            rules
                .iter()
                .filter(|r| r["names"][0] != "clone3")
                .cloned()
                .collect()
        };
        assert_eq!(without_clone3(&runc), without_clone3(&runsc));
        assert_eq!(runc["defaultAction"], runsc["defaultAction"]);
        let clone3 = |profile: &Value| {
            let rules = profile["syscalls"].as_array().unwrap();
            rules.iter().find(|r| r["names"][0] == "clone3").unwrap()["action"].clone()
        };
        assert_eq!(clone3(&runc), "SCMP_ACT_ERRNO");
        assert_eq!(clone3(&runsc), "SCMP_ACT_ALLOW");
    }

    #[test]
    fn the_readme_gives_each_reason() {
        let readme = include_str!("../../README.md");
        for (refused, why) in REMOVED {
            assert!(
                readme.contains(&format!("| {refused} | {why} |")),
                "README's seccomp table lacks {refused}"
            );
        }
    }

    #[test]
    fn no_call_is_listed_twice_and_no_sub_architecture_is_allowed() {
        let mut allowed = names_allowed_outright();
        let count = allowed.len();
        allowed.sort();
        allowed.dedup();
        assert_eq!(allowed.len(), count, "a call is listed twice");
        for arch in profile(SandboxRuntime::Runc)["archMap"].as_array().unwrap() {
            assert_eq!(arch["subArchitectures"], json!([]));
        }
    }
}
