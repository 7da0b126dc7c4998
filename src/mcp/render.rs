//! A result as a language model should read it: what happened in one line, the output,
//! the reason in one sentence when it did not complete, and what to try next. `cordon mcp`
//! answers tool calls with it; the Python SDK's `Result.to_text()` follows the same rules.
//! Pure.

use crate::protocol::exec::{ExecResult, Status, ViolationKind};

/// Longest stretch of each output stream shown to the model (the result holds it all).
pub const SHOWN_OUTPUT_BYTES: usize = 16 * 1024;

/// The text of `result` for a model.
pub fn result_text(result: &ExecResult) -> String {
    let mut text = format!("status: {}", headline(result));
    if let Some(session) = &result.session {
        let state = if session.open { "open" } else { "ended" };
        text.push_str(&format!("\nsession: {} ({state})", session.id));
    }
    push_stream(&mut text, "stdout", &result.stdout, result.stdout_truncated);
    push_stream(&mut text, "stderr", &result.stderr, result.stderr_truncated);
    for file in &result.files {
        text.push_str(&format!(
            "\nfile: {} ({}, {} bytes)",
            file.name, file.media_type, file.bytes
        ));
    }
    for skipped in &result.files_skipped {
        text.push_str(&format!(
            "\nfile not returned: {} ({})",
            skipped.name, skipped.reason
        ));
    }
    for denied in &result.network_denied {
        text.push_str(&format!(
            "\nnetwork refused: {} ({})",
            denied.host, denied.reason
        ));
    }
    if let Some(next) = next_step(result) {
        text.push_str(&format!("\nnext: {next}"));
    }
    text
}

/// One line: the status, and why when it did not complete.
fn headline(result: &ExecResult) -> String {
    match result.status {
        Status::Completed => format!("completed, exit code {}", result.exit_code.unwrap_or(0)),
        Status::Violation => match &result.violation {
            Some(v) => format!("stopped: {} limit: {}", v.kind.as_str(), v.detail),
            None => "stopped for breaking a limit".into(),
        },
        Status::Blocked => {
            let findings = result.assessment.iter().flat_map(|a| &a.findings);
            let reasons: Vec<String> = findings
                .map(|f| format!("{} (line {}): {}", f.rule, f.line, f.message))
                .collect();
            format!("blocked, not run: {}", reasons.join("; "))
        }
        Status::Rejected | Status::Failed => {
            let word = if result.status == Status::Rejected {
                "rejected"
            } else {
                "failed"
            };
            match &result.error {
                Some(e) => format!("{word} ({}): {}", e.code, e.message),
                None => word.to_string(),
            }
        }
    }
}

fn push_stream(text: &mut String, name: &str, stream: &str, truncated: bool) {
    if stream.is_empty() {
        return;
    }
    let shown = crate::text::preview_of(stream, SHOWN_OUTPUT_BYTES);
    text.push_str(&format!("\n{name}:\n{shown}"));
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if truncated || shown.len() < stream.len() {
        text.push_str(&format!("[{name} cut short]\n"));
    }
}

/// What a model should do next, when the run did not simply complete.
fn next_step(result: &ExecResult) -> Option<&'static str> {
    let code = result.error.as_ref().map(|e| e.code.as_str());
    Some(match (result.status, code) {
        (Status::Completed, _) if result.exit_code.unwrap_or(0) != 0 => {
            "the program raised or exited non-zero: read stderr and fix the code"
        }
        (Status::Completed, _) => return None,
        (Status::Blocked, _) => {
            "this code was judged an attack and never ran; an operator must release it, \
             or write code without the flagged behaviour"
        }
        (Status::Violation, _) => violation_step(result),
        (_, Some("session_lost")) => {
            "the session is gone with its variables: open a new session and run the earlier \
             cells again"
        }
        (_, Some("session_closed")) => "open a new session",
        (_, Some("session_limit")) => "close a session you no longer need, then try again",
        (Status::Rejected, _) => "fix the request as the error says",
        (Status::Failed, _) => "cordon could not run it; try again later",
    })
}

fn violation_step(result: &ExecResult) -> &'static str {
    let open = result.session.as_ref().is_some_and(|s| s.open);
    match result.violation.as_ref().map(|v| v.kind) {
        Some(ViolationKind::Timeout) if open => {
            "the cell was interrupted and the session kept its state: make the code faster \
             or split the work into smaller cells"
        }
        Some(ViolationKind::Timeout) => "make the code faster or split the work into smaller runs",
        Some(ViolationKind::Memory) => "use less memory: process the data in chunks",
        Some(ViolationKind::Output) => "print less: summarise, or write results to ./outputs/",
        Some(ViolationKind::Disk) => "write less to disk",
        Some(ViolationKind::Network) => "only the allowlisted hosts can be reached",
        Some(ViolationKind::Pids) => "start fewer processes or threads",
        Some(ViolationKind::Cpu) => "use less CPU time",
        Some(ViolationKind::Policy) => {
            "the run did something cordon's runtime policy forbids (reading secrets, loading \
             native libraries, downloading and running programs): do the task without it"
        }
        None => "stay within the limits",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exec::{ErrorCode, ErrorInfo, Violation};
    use crate::protocol::interpreter::SessionInfo;

    #[test]
    fn a_completed_run_shows_its_output_and_no_next_step() {
        let mut result = ExecResult::without_run("r", Status::Completed);
        result.exit_code = Some(0);
        result.stdout = "42\n".into();
        let text = result_text(&result);
        assert_eq!(text, "status: completed, exit code 0\nstdout:\n42\n");
    }

    #[test]
    fn an_interrupted_cell_says_the_session_kept_its_state() {
        let mut result = ExecResult::without_run("r", Status::Violation);
        result.violation = Some(Violation {
            kind: ViolationKind::Timeout,
            detail: "ran past its deadline of 1000 ms".into(),
        });
        result.session = Some(SessionInfo {
            id: "a@h".into(),
            open: true,
            cells: 2,
        });
        let text = result_text(&result);
        assert!(text.starts_with("status: stopped: timeout limit: ran past its deadline"));
        assert!(text.contains("session: a@h (open)"));
        assert!(text.contains("kept its state"), "{text}");
    }

    #[test]
    fn a_lost_session_says_to_open_a_new_one() {
        let mut result = ExecResult::without_run("r", Status::Failed);
        result.error = Some(ErrorInfo::new(ErrorCode::SessionLost, "gone"));
        let text = result_text(&result);
        assert!(text.contains("failed (session_lost): gone"), "{text}");
        assert!(text.contains("open a new session"), "{text}");
    }
}
