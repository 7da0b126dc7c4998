//! A result as a language model should read it, line by line: `status: ...`, the `stdout:`
//! and `stderr:` blocks, `reason: ...` (why it did not succeed, in one sentence), `next:
//! ...` (what to try next), then one line per returned file, file not returned, refused
//! connection, and the session. The rules are the Python SDK's (`clients/python/
//! cordon_client/text.py`, `Result.to_text()`), mirrored word for word. Pure.

use crate::protocol::exec::{ExecResult, Status};

/// Longest stretch of each output stream shown to the model (its end; the result holds it
/// all).
pub const SHOWN_OUTPUT_CHARS: usize = 16 * 1024;

/// What to try next, by `<status>:<detail>` then `<status>` (detail: the violation kind,
/// the error code, or `exit` for a completed run with a non-zero exit code).
const NEXT_STEPS: [(&str, &str); 28] = [
    ("completed:exit", "read stderr, fix the code and run it again"),
    ("violation:timeout", "make it faster or split it into smaller cells"),
    ("violation:cpu", "use less CPU time: make it faster or split it into smaller cells"),
    ("violation:memory", "use less memory, e.g. process the data in smaller pieces"),
    ("violation:pids", "start fewer processes or threads"),
    ("violation:output", "print less; write large results to files under ./outputs/ instead"),
    ("violation:disk", "write less to disk"),
    ("violation:network", "do without that host: only allowlisted hosts can be reached"),
    ("violation:policy", "do it without reading secrets, loading native libraries or downloading and running programs"),
    ("violation", "stay within the sandbox's limits and run it again"),
    ("blocked", "do not retry it as it is: an operator must release it, or rewrite it without what was flagged"),
    ("rejected:unknown_trust_level", "use one of the trust levels untrusted, unknown or trusted"),
    ("rejected:trust_not_allowed", "use a lower trust level"),
    ("rejected:unknown_session", "open a new session"),
    ("rejected:session_limit", "close a session you no longer need, then try again"),
    ("rejected:code_too_large", "send less code, e.g. split it into smaller cells"),
    ("rejected:input_too_large", "send smaller files or stdin"),
    ("rejected:invalid_file", "name each file once, by a relative path without '..', '.' or empty parts"),
    ("rejected:network_not_allowed", "run it without network, or at a trust level that allows it"),
    ("rejected:unknown_image", "use one of the configured images, e.g. default"),
    ("rejected", "fix the request as the reason says"),
    ("failed:session_lost", "open a new session; earlier variables are gone"),
    ("failed:session_closed", "open a new session; earlier variables are gone"),
    ("failed:sandbox_lost", "run it again; if it happens again, it may need more memory than the host can give"),
    ("failed:image_missing", "use the default image, or ask an operator to install this one"),
    ("failed:message_too_large", "return less: print less and write fewer or smaller files"),
    ("failed:package_install_failed", "check the package names and versions in stderr, or do without them"),
    ("failed", "try again later; if it keeps failing, an operator should read cordon's logs"),
];

/// The text of `result` for a model, each stream cut to its last `max_output_chars`.
pub fn result_text(result: &ExecResult, max_output_chars: Option<usize>) -> String {
    let mut lines = vec![status_line(result)];
    lines.extend(stream(
        "stdout",
        &result.stdout,
        result.stdout_truncated,
        max_output_chars,
    ));
    lines.extend(stream(
        "stderr",
        &result.stderr,
        result.stderr_truncated,
        max_output_chars,
    ));
    if let Some(reason) = reason(result) {
        lines.push(format!("reason: {reason}"));
    }
    if let Some(step) = next_step(result) {
        lines.push(format!("next: {step}"));
    }
    for f in &result.files {
        let prefix = &f.sha256[..f.sha256.len().min(16)];
        lines.push(format!(
            "file: {} ({} bytes, {}, sha256 {prefix})",
            f.name, f.bytes, f.media_type
        ));
    }
    for skipped in &result.files_skipped {
        lines.push(format!(
            "file not returned: {}: {}",
            skipped.name, skipped.reason
        ));
    }
    for denied in &result.network_denied {
        lines.push(format!(
            "network denied: {}: {}",
            denied.host, denied.reason
        ));
    }
    if let Some(session) = &result.session {
        let state = if session.open { "open" } else { "closed" };
        lines.push(format!(
            "session: {} ({state}, {} cells)",
            session.id, session.cells
        ));
    }
    lines.join("\n")
}

/// The detail `NEXT_STEPS` is looked up by.
fn detail_of(result: &ExecResult) -> String {
    if result.status == Status::Completed {
        return "exit".into();
    }
    match (&result.violation, &result.error) {
        (Some(v), _) => v.kind.as_str().into(),
        (None, Some(e)) => e.code.clone(),
        (None, None) => String::new(),
    }
}

fn status_line(result: &ExecResult) -> String {
    if result.status == Status::Completed {
        let code = result
            .exit_code
            .map_or("None".to_string(), |c| c.to_string());
        return format!("status: completed (exit code {code})");
    }
    let (word, detail) = (result.status.as_str(), detail_of(result));
    match detail.is_empty() {
        true => format!("status: {word}"),
        false => format!("status: {word} ({detail})"),
    }
}

fn stream(name: &str, text: &str, truncated: bool, limit: Option<usize>) -> Vec<String> {
    if text.is_empty() && !truncated {
        return Vec::new();
    }
    let mut note = if truncated {
        " (cut by cordon at its cap)".to_string()
    } else {
        String::new()
    };
    let chars = text.chars().count();
    let shown = match limit {
        Some(limit) if chars > limit => {
            note.push_str(&format!(" (only its last {limit} of {chars} characters)"));
            text.chars().skip(chars - limit).collect()
        }
        _ => text.to_string(),
    };
    vec![
        format!("{name}{note}:"),
        shown.trim_end_matches('\n').to_string(),
    ]
}

/// One sentence ending in a full stop.
fn sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match text.ends_with(['.', '!', '?']) {
        true => text,
        false => format!("{text}."),
    }
}

/// Why the run did not succeed, in one sentence; `None` when it did.
fn reason(result: &ExecResult) -> Option<String> {
    match result.status {
        Status::Completed => match result.exit_code {
            Some(0) | None => None,
            Some(code) => Some(format!("the program exited with code {code}.")),
        },
        Status::Violation => Some(match &result.violation {
            Some(v) => sentence(&format!(
                "cordon stopped it at its {} limit: {}",
                v.kind.as_str(),
                v.detail
            )),
            None => "cordon stopped it for breaking a limit.".into(),
        }),
        Status::Blocked => Some(blocked_reason(result)),
        Status::Rejected | Status::Failed => Some(match &result.error {
            Some(e) => sentence(&format!("{} ({})", e.message.trim_end_matches('.'), e.code)),
            None => format!("the request was {}.", result.status.as_str()),
        }),
    }
}

fn blocked_reason(result: &ExecResult) -> String {
    let findings: Vec<_> = result.assessment.iter().flat_map(|a| &a.findings).collect();
    let blocking: Vec<_> = findings
        .iter()
        .filter(|f| f.severity.as_str() == "BLOCKED")
        .collect();
    let shown = if blocking.is_empty() {
        findings.iter().collect::<Vec<_>>()
    } else {
        blocking
    };
    let why: Vec<String> = shown
        .iter()
        .map(|f| {
            format!(
                "{} line {}: {}",
                f.rule,
                f.line,
                f.message.trim_end_matches('.')
            )
        })
        .collect();
    let why = match why.is_empty() {
        true => "its assessment is BLOCKED".to_string(),
        false => why.join("; "),
    };
    sentence(&format!(
        "cordon blocked it before it ran ({why}); an operator must release it"
    ))
}

/// What to try next; `None` for a run that succeeded.
fn next_step(result: &ExecResult) -> Option<&'static str> {
    if result.status == Status::Completed && matches!(result.exit_code, Some(0) | None) {
        return None;
    }
    let word = result.status.as_str();
    let key = format!("{word}:{}", detail_of(result));
    let find = |wanted: &str| {
        NEXT_STEPS
            .iter()
            .find(|(k, _)| *k == wanted)
            .map(|(_, v)| *v)
    };
    find(&key).or_else(|| find(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exec::{ErrorCode, ErrorInfo, Violation, ViolationKind};
    use crate::protocol::interpreter::SessionInfo;

    #[test]
    fn a_completed_run_shows_its_output_and_no_next_step() {
        let mut result = ExecResult::without_run("r", Status::Completed);
        result.exit_code = Some(0);
        result.stdout = "42\n".into();
        assert_eq!(
            result_text(&result, None),
            "status: completed (exit code 0)\nstdout:\n42"
        );
    }

    #[test]
    fn a_timeout_in_a_session_says_why_what_next_and_the_session() {
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
        let text = result_text(&result, None);
        assert_eq!(
            text,
            "status: violation (timeout)\n\
             reason: cordon stopped it at its timeout limit: ran past its deadline of 1000 ms.\n\
             next: make it faster or split it into smaller cells\n\
             session: a@h (open, 2 cells)"
        );
    }

    #[test]
    fn a_lost_session_says_to_open_a_new_one_and_long_output_keeps_its_end() {
        let mut result = ExecResult::without_run("r", Status::Failed);
        result.error = Some(ErrorInfo::new(ErrorCode::SessionLost, "gone"));
        result.stdout = "abcdef".into();
        let text = result_text(&result, Some(2));
        assert!(
            text.contains("stdout (only its last 2 of 6 characters):\nef"),
            "{text}"
        );
        assert!(text.contains("reason: gone (session_lost)."), "{text}");
        assert!(text.contains("next: open a new session; earlier variables are gone"));
    }
}
