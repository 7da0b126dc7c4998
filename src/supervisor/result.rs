//! Builds the `ExecResult` of a job that ran, from the sandbox outcome and the monitor's
//! last usage sample: `violation` when cordon killed it, `failed` (`sandbox_lost`) when
//! something else ended it, `completed` only when the program ended on its own. Pure.

use crate::protocol::assessor::Assessment;
use crate::protocol::exec::{ErrorCode, ErrorInfo, ExecResult, Status, Usage};
use crate::protocol::monitor::UsageSample;
use crate::protocol::scheduler::Limits;

use sha2::Digest;

use super::runner::RunnerFile;
use super::spec::SandboxOutcome;
use crate::protocol::interpreter::{OutputFile, SkippedFile};

/// The result of a job that ran (or was killed) in a sandbox. Each output stream's text
/// is at most `text_room` bytes (the bus's message size, shared by both, less a margin):
/// lossy decoding of invalid UTF-8 can triple the captured bytes, and a result must always
/// fit in one message. The full output is in the audit log either way.
pub fn result_of_run(
    request_id: &str,
    outcome: SandboxOutcome,
    usage: Option<UsageSample>,
    (assessment, limits): (Assessment, Limits),
    text_room: usize,
) -> ExecResult {
    let status = match (&outcome.violation, &outcome.lost) {
        (Some(_), _) => Status::Violation,
        (None, Some(_)) => Status::Failed,
        (None, None) => Status::Completed,
    };
    let error = outcome
        .lost
        .as_ref()
        .map(|what| ErrorInfo::new(ErrorCode::SandboxLost, what.clone()));
    let usage = usage.unwrap_or_default();
    // With files to return, the streams take at most a quarter of the room each.
    let each = match outcome.files.is_empty() {
        true => text_room / 2,
        false => text_room / 4,
    };
    let (stdout, stdout_cut) = text_within(&outcome.stdout, each);
    let (stderr, stderr_cut) = text_within(&outcome.stderr, each);
    let files_room = text_room.saturating_sub(stdout.len() + stderr.len());
    let (files, files_skipped) = files_within(outcome.files, outcome.files_skipped, files_room);
    ExecResult {
        request_id: request_id.to_string(),
        status,
        exit_code: outcome.exit_code,
        stdout,
        stderr,
        stdout_truncated: outcome.stdout_truncated || stdout_cut,
        stderr_truncated: outcome.stderr_truncated || stderr_cut,
        violation: outcome.violation,
        assessment: Some(assessment),
        limits: Some(limits),
        usage: Some(Usage {
            wall_ms: outcome.wall_ms,
            cpu_ms: usage.cpu_ms,
            peak_memory_bytes: usage.peak_memory_bytes,
            peak_pids: usage.peak_pids,
        }),
        audit: None,
        error,
        session: None,
        files,
        files_skipped,
        network_denied: Vec::new(),
        runtime: None,
    }
}

/// The files an interpreter run returned, with their hashes, as many as fit in `room`
/// bytes in the order they came; the rest are listed as skipped.
fn files_within(
    files: Vec<RunnerFile>,
    mut skipped: Vec<SkippedFile>,
    mut room: usize,
) -> (Vec<OutputFile>, Vec<SkippedFile>) {
    let mut kept = Vec::new();
    for file in files {
        let Some(content) = file.content() else {
            skipped.push(SkippedFile {
                name: file.name,
                reason: "the runner sent it in a form that does not decode".into(),
            });
            continue;
        };
        // Each file costs its bytes plus its name, type and hash in the message.
        let cost = content.len() + file.name.len() + file.media_type.len() + 128;
        if cost > room {
            skipped.push(SkippedFile {
                name: file.name,
                reason: "no room left in the result message (the bus's largest message)".into(),
            });
            continue;
        }
        room -= cost;
        kept.push(OutputFile {
            sha256: hex::encode(sha2::Sha256::digest(&content)),
            bytes: content.len() as u64,
            name: file.name,
            media_type: file.media_type,
            content: content.into(),
        });
    }
    (kept, skipped)
}

/// `bytes` as text (invalid UTF-8 replaced), cut to at most `room` bytes on a character
/// boundary; true when it was cut.
fn text_within(bytes: &[u8], room: usize) -> (String, bool) {
    let text = String::from_utf8_lossy(bytes);
    let kept = crate::text::preview_of(&text, room);
    (kept.to_string(), kept.len() < text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::assessor::Level;
    use crate::protocol::exec::{Violation, ViolationKind};
    use crate::protocol::scheduler::Network;

    fn outcome(violation: Option<Violation>) -> SandboxOutcome {
        SandboxOutcome {
            container_id: "c".into(),
            exit_code: Some(137),
            oom_killed: false,
            stdout: vec![b'o', 0xff],
            stderr: vec![],
            stdout_truncated: true,
            stderr_truncated: false,
            violation,
            wall_ms: 12,
            warm: false,
            lost: None,
            code_delivered: true,
            files: Vec::new(),
            files_skipped: Vec::new(),
            runtime: None,
            install: None,
        }
    }

    fn limits() -> Limits {
        Limits {
            cpus: 1.0,
            memory_bytes: 1,
            pids: 1,
            timeout_ms: 1,
            network: Network::None,
            cpu_time_ms: 1,
            stdout_bytes: 1,
            stderr_bytes: 1,
            tmpfs_bytes: 1,
        }
    }

    #[test]
    fn a_killed_run_is_a_violation_with_lossy_output_and_the_monitors_peaks() {
        let violation = Violation {
            kind: ViolationKind::Output,
            detail: "cap".into(),
        };
        let usage = UsageSample {
            cpu_ms: 5,
            peak_memory_bytes: 7,
            peak_pids: 3,
            ..Default::default()
        };
        let assessment = Assessment {
            level: Level::Low,
            score: 0,
            findings: vec![],
        };
        let result = result_of_run(
            "r",
            outcome(Some(violation)),
            Some(usage),
            (assessment, limits()),
            1 << 20,
        );
        assert_eq!(result.status, Status::Violation);
        assert_eq!(result.stdout, "o\u{fffd}");
        assert!(result.stdout_truncated);
        let usage = result.usage.unwrap();
        assert_eq!(
            (
                usage.wall_ms,
                usage.cpu_ms,
                usage.peak_memory_bytes,
                usage.peak_pids
            ),
            (12, 5, 7, 3)
        );
    }

    #[test]
    fn a_sandbox_lost_is_failed_with_what_was_seen_never_completed() {
        let mut lost = outcome(None);
        lost.lost = Some("removed from outside".into());
        let assessment = Assessment {
            level: Level::Low,
            score: 0,
            findings: vec![],
        };
        let result = result_of_run("r", lost, None, (assessment, limits()), 1 << 20);
        assert_eq!(result.status, Status::Failed);
        let error = result.error.unwrap();
        assert_eq!(error.code, "sandbox_lost");
        assert_eq!(error.message, "removed from outside");
        assert_eq!(result.stdout, "o\u{fffd}", "the output seen is kept");
        assert_eq!(result.exit_code, Some(137));
    }

    #[test]
    fn invalid_utf8_is_cut_to_the_room_a_message_has() {
        let mut flood = outcome(None);
        flood.stdout = vec![0xff; 1000];
        flood.stdout_truncated = false;
        let assessment = Assessment {
            level: Level::Low,
            score: 0,
            findings: vec![],
        };
        let result = result_of_run("r", flood, None, (assessment, limits()), 600);
        assert!(result.stdout.len() <= 300, "{}", result.stdout.len());
        assert!(result.stdout.chars().all(|c| c == '\u{fffd}'));
        assert!(result.stdout_truncated);
        assert!(!result.stderr_truncated);
    }
}
