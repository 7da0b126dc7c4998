//! Counts the processes of a program running under gVisor. There the host's pids cgroup
//! counts the Sentry's own tasks (about 40 at rest, 5 more per program process), not the
//! program's: the Sentry keeps the program's count, and `runsc events --stats` reports its
//! processes (not their threads: those the Sentry holds to RLIMIT_NPROC unseen). runsc is
//! the binary the engine registered; its state root is read from the command line of the
//! sandbox's own runsc processes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::AsyncReadExt;

/// Longest answer read from `runsc events --stats` (it is a few hundred bytes).
const MAX_ANSWER_BYTES: u64 = 64 * 1024;
/// Longest wait for one answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(2);

/// How to ask the Sentry of one sandbox for its task count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentryCounter {
    binary: PathBuf,
    root: String,
    container_id: String,
}

impl SentryCounter {
    /// The counter of `container_id`, a sandbox on runsc (by its `cordon.runtime` label),
    /// asked through `binary` (the runsc the engine has registered). The state root is read
    /// from the command line of one of its host processes: under runsc those are all
    /// runsc's own (the Sentry, the gofer and their stubs), never the program's, so the
    /// program cannot choose it.
    pub fn locate(procs_file: &Path, binary: &Path, container_id: &str) -> Option<SentryCounter> {
        let procs = std::fs::read_to_string(procs_file).ok()?;
        let root = procs
            .lines()
            .take(64)
            .filter_map(|pid| pid.trim().parse::<u32>().ok())
            .find_map(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
                runsc_root(&cmdline)
            })?;
        Some(SentryCounter {
            binary: binary.to_path_buf(),
            root,
            container_id: container_id.to_string(),
        })
    }

    /// The program's processes now; `None` when runsc cannot say (the sandbox is ending,
    /// or runsc failed).
    pub async fn pids(&self) -> Option<u64> {
        let mut child = tokio::process::Command::new(&self.binary)
            .arg(format!("--root={}", self.root))
            .args(["events", "--stats", &self.container_id])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .ok()?;
        let mut answer = Vec::new();
        let mut stdout = child.stdout.take()?.take(MAX_ANSWER_BYTES);
        let read = stdout.read_to_end(&mut answer);
        tokio::time::timeout(ANSWER_TIMEOUT, read)
            .await
            .ok()?
            .ok()?;
        let _ = tokio::time::timeout(ANSWER_TIMEOUT, child.wait()).await;
        pids_in_answer(&answer)
    }
}

/// The value of `--root=` in a runsc process's NUL-separated command line; `None` for a
/// process that is not runsc's.
fn runsc_root(cmdline: &[u8]) -> Option<String> {
    let mut args = cmdline
        .split(|byte| *byte == 0)
        .map(|arg| String::from_utf8_lossy(arg));
    let program = args.next()?;
    if !program.starts_with("runsc") {
        return None;
    }
    args.find_map(|arg| arg.strip_prefix("--root=").map(str::to_string))
        .filter(|root| !root.is_empty())
}

/// `data.pids.current` of one `runsc events --stats` answer.
fn pids_in_answer(answer: &[u8]) -> Option<u64> {
    let event: serde_json::Value = serde_json::from_slice(answer).ok()?;
    event["data"]["pids"]["current"].as_u64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_read_from_runsc_processes_only() {
        let sandbox =
            b"runsc-sandbox\0--root=/var/run/docker/runtime-runc/moby\0--network=none\0boot\0";
        assert_eq!(
            runsc_root(sandbox).as_deref(),
            Some("/var/run/docker/runtime-runc/moby")
        );
        assert_eq!(runsc_root(b"python3\0--root=/x\0"), None);
        assert_eq!(runsc_root(b"runsc-gofer\0--root=\0"), None);
        assert_eq!(runsc_root(b""), None);
    }

    #[test]
    fn the_task_count_is_read_from_a_stats_event() {
        let answer = br#"{"type":"stats","id":"a1","data":{"cpu":{"usage":{"total":4}},"pids":{"current":20}}}"#;
        assert_eq!(pids_in_answer(answer), Some(20));
        assert_eq!(
            pids_in_answer(b"loading sandbox: file does not exist"),
            None
        );
        assert_eq!(pids_in_answer(br#"{"data":{}}"#), None);
    }
}
