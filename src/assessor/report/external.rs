//! Optional external analysers (Bandit, Semgrep) beside the native one. When enabled in
//! `[analysers]` and installed, each runs as a subprocess on a temporary copy of the
//! program under one shared time budget, and its findings are merged into the native
//! assessment. Disabled (the default), nothing but [`crate::assessor::assess`] runs: no file, no
//! process. Missing, failing or late analysers are reported in the `AnalyserRun` list and
//! the native analyser alone decides.
//!
//! Called by the Assessor actor (on a blocking thread) and by `cordon assess`.
//!
//! Severity is mapped conservatively: an external finding never makes a program BLOCKED;
//! it reaches HIGH only with the tool's highest severity AND confidence, and drops one
//! level for code the assistant wrote itself, as behavioural native rules do.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::config::AnalyserSettings;
use crate::protocol::assessor::{AnalyserRun, Assessment, Finding, Level, Origin};

/// Most findings taken from one external analyser.
const MAX_EXTERNAL_FINDINGS: usize = 64;

/// Why an external analyser contributed nothing.
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    #[error("not installed: {0}")]
    Missing(String),
    #[error("no answer within the {0} ms budget")]
    Timeout(u64),
    #[error("{0}")]
    Failed(String),
}

impl ExternalError {
    fn status(&self) -> &'static str {
        match self {
            ExternalError::Missing(_) => "missing",
            ExternalError::Timeout(_) => "timeout",
            ExternalError::Failed(_) => "failed",
        }
    }
}

/// The native assessment, with enabled external analysers' findings merged in.
pub fn assess(
    source: &str,
    origin: Origin,
    policy: &crate::assessor::Policy,
    settings: &AnalyserSettings,
) -> (Assessment, Vec<AnalyserRun>) {
    let started = Instant::now();
    let mut assessment = crate::assessor::assess_with(source, origin, policy);
    let mut native = AnalyserRun::native();
    native.findings = assessment.findings.len();
    native.elapsed_ms = started.elapsed().as_millis() as u64;
    let mut runs = vec![native];
    if !settings.bandit && !settings.semgrep {
        return (assessment, runs);
    }
    for (run, findings) in run_external(source, settings) {
        runs.push(run);
        merge(&mut assessment, findings, origin);
    }
    (assessment, runs)
}

/// Runs the enabled analysers side by side on a temporary copy of `source`.
fn run_external(source: &str, settings: &AnalyserSettings) -> Vec<(AnalyserRun, Vec<Finding>)> {
    let file = match write_temp(source) {
        Ok(file) => file,
        Err(error) => {
            let failed = |name: &str| (failure(name, &error, 0), Vec::new());
            let mut out = Vec::new();
            if settings.bandit {
                out.push(failed("bandit"));
            }
            if settings.semgrep {
                out.push(failed("semgrep"));
            }
            return out;
        }
    };
    let deadline = Instant::now() + Duration::from_millis(settings.budget_ms);
    let path = file.path();
    std::thread::scope(|scope| {
        let bandit = settings
            .bandit
            .then(|| scope.spawn(move || timed("bandit", || bandit(path, settings, deadline))));
        let semgrep = settings
            .semgrep
            .then(|| scope.spawn(move || timed("semgrep", || semgrep(path, settings, deadline))));
        [bandit, semgrep]
            .into_iter()
            .flatten()
            .filter_map(|handle| handle.join().ok())
            .collect()
    })
}

fn write_temp(source: &str) -> Result<tempfile::NamedTempFile, ExternalError> {
    let mut file = tempfile::Builder::new()
        .prefix("cordon-assess-")
        .suffix(".py")
        .tempfile()
        .map_err(|e| ExternalError::Failed(format!("cannot create a temporary file: {e}")))?;
    std::io::Write::write_all(&mut file, source.as_bytes())
        .map_err(|e| ExternalError::Failed(format!("cannot write a temporary file: {e}")))?;
    Ok(file)
}

fn timed(
    name: &str,
    run: impl FnOnce() -> Result<Vec<Finding>, ExternalError>,
) -> (AnalyserRun, Vec<Finding>) {
    let started = Instant::now();
    let outcome = run();
    let elapsed_ms = started.elapsed().as_millis() as u64;
    match outcome {
        Ok(findings) => {
            let run = AnalyserRun {
                name: name.into(),
                status: "ok".into(),
                findings: findings.len(),
                elapsed_ms,
                detail: None,
            };
            (run, findings)
        }
        Err(error) => {
            tracing::warn!(analyser = name, %error, "external analyser did not contribute");
            (failure(name, &error, elapsed_ms), Vec::new())
        }
    }
}

fn failure(name: &str, error: &ExternalError, elapsed_ms: u64) -> AnalyserRun {
    AnalyserRun {
        name: name.into(),
        status: error.status().into(),
        findings: 0,
        elapsed_ms,
        detail: Some(error.to_string()),
    }
}

fn bandit(
    path: &Path,
    settings: &AnalyserSettings,
    deadline: Instant,
) -> Result<Vec<Finding>, ExternalError> {
    let mut command = Command::new(&settings.bandit_bin);
    // --ignore-nosec: an attacker can write `# nosec` too.
    command
        .args(["-f", "json", "-q", "--ignore-nosec"])
        .arg(path);
    let stdout = run_until(command, &settings.bandit_bin, deadline, settings.budget_ms)?;
    parse_bandit(&stdout)
}

fn semgrep(
    path: &Path,
    settings: &AnalyserSettings,
    deadline: Instant,
) -> Result<Vec<Finding>, ExternalError> {
    if settings.semgrep_rules.is_empty() {
        return Err(ExternalError::Failed(
            "analysers.semgrep_rules names no local rules directory".into(),
        ));
    }
    let mut command = Command::new(&settings.semgrep_bin);
    command
        .args(["scan", "--json", "--quiet", "--metrics=off"])
        .args(["--disable-version-check", "--disable-nosem", "--config"])
        .arg(&settings.semgrep_rules)
        .arg(path);
    let stdout = run_until(command, &settings.semgrep_bin, deadline, settings.budget_ms)?;
    parse_semgrep(&stdout)
}

/// Runs `command` until it exits or `deadline` passes (then kills it); returns stdout.
fn run_until(
    mut command: Command,
    bin: &str,
    deadline: Instant,
    budget_ms: u64,
) -> Result<Vec<u8>, ExternalError> {
    // Its own process group, so a timeout kills whatever it started too.
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ExternalError::Missing(bin.to_string()),
            _ => ExternalError::Failed(format!("cannot start {bin}: {e}")),
        })?;
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(pipe) = stdout.as_mut() {
            let _ = pipe.read_to_end(&mut out);
        }
        out
    });
    let exited = wait_until(&mut child, deadline);
    if !exited {
        // SAFETY: signals the process group of a child we started (its pid is the pgid).
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.kill();
        let _ = child.wait();
        return Err(ExternalError::Timeout(budget_ms));
    }
    reader
        .join()
        .map_err(|_| ExternalError::Failed(format!("reading {bin}'s output failed")))
}

/// Polls for the child's exit; false when the deadline passed first.
fn wait_until(child: &mut Child, deadline: Instant) -> bool {
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return true,
            Ok(None) if Instant::now() >= deadline => return false,
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => return false,
        }
    }
}

/// Bandit's `-f json` report as findings (`BANDIT-<test id>`).
pub fn parse_bandit(stdout: &[u8]) -> Result<Vec<Finding>, ExternalError> {
    let report: Value = serde_json::from_slice(stdout)
        .map_err(|e| ExternalError::Failed(format!("bandit printed no JSON report: {e}")))?;
    let results = report["results"]
        .as_array()
        .ok_or_else(|| ExternalError::Failed("bandit's report has no results".into()))?;
    Ok(results
        .iter()
        .take(MAX_EXTERNAL_FINDINGS)
        .map(bandit_finding)
        .collect())
}

fn bandit_finding(result: &Value) -> Finding {
    let text = |key: &str| result[key].as_str().unwrap_or_default().to_string();
    let confidence = text("issue_confidence").to_lowercase();
    Finding {
        rule: format!("BANDIT-{}", text("test_id")),
        title: text("test_name"),
        severity: map_severity(&text("issue_severity"), &confidence),
        line: number(&result["line_number"]).max(1),
        column: number(&result["col_offset"]).saturating_add(1),
        message: text("issue_text"),
        cwe: result["issue_cwe"]["id"]
            .as_u64()
            .map(|id| format!("CWE-{id}")),
        snippet: String::new(),
        confidence: normal_confidence(&confidence),
    }
}

/// Semgrep's `--json` report as findings (`SEMGREP-<check id>`).
pub fn parse_semgrep(stdout: &[u8]) -> Result<Vec<Finding>, ExternalError> {
    let report: Value = serde_json::from_slice(stdout)
        .map_err(|e| ExternalError::Failed(format!("semgrep printed no JSON report: {e}")))?;
    let results = report["results"]
        .as_array()
        .ok_or_else(|| ExternalError::Failed("semgrep's report has no results".into()))?;
    Ok(results
        .iter()
        .take(MAX_EXTERNAL_FINDINGS)
        .map(semgrep_finding)
        .collect())
}

fn semgrep_finding(result: &Value) -> Finding {
    let extra = &result["extra"];
    let check = result["check_id"].as_str().unwrap_or_default();
    let confidence = extra["metadata"]["confidence"]
        .as_str()
        .unwrap_or("medium")
        .to_lowercase();
    let severity = match extra["severity"].as_str().unwrap_or_default() {
        "ERROR" => "HIGH",
        "WARNING" => "MEDIUM",
        _ => "LOW",
    };
    let cwe = match &extra["metadata"]["cwe"] {
        Value::Array(list) => list.first().and_then(Value::as_str),
        other => other.as_str(),
    };
    Finding {
        rule: format!("SEMGREP-{check}"),
        title: check.rsplit('.').next().unwrap_or(check).to_string(),
        severity: map_severity(severity, &confidence),
        line: number(&result["start"]["line"]).max(1),
        column: number(&result["start"]["col"]).max(1),
        message: extra["message"].as_str().unwrap_or_default().to_string(),
        cwe: cwe.and_then(|c| c.split(':').next()).map(str::to_string),
        snippet: String::new(),
        confidence: normal_confidence(&confidence),
    }
}

fn number(value: &Value) -> u32 {
    value.as_u64().unwrap_or(0).min(u32::MAX as u64) as u32
}

fn normal_confidence(confidence: &str) -> String {
    match confidence {
        "high" | "medium" => confidence.to_string(),
        _ => "low".into(),
    }
}

/// Tool severity and confidence to a cordon level: never BLOCKED; HIGH only when both are
/// the tool's highest; a MEDIUM with low confidence counts as LOW.
fn map_severity(severity: &str, confidence: &str) -> Level {
    match (severity.to_uppercase().as_str(), confidence) {
        ("HIGH", "high") => Level::High,
        ("HIGH", _) | ("MEDIUM", "high" | "medium") => Level::Medium,
        _ => Level::Low,
    }
}

/// Adds external findings: level is the highest severity, score adds the native weights.
fn merge(assessment: &mut Assessment, findings: Vec<Finding>, origin: Origin) {
    for mut finding in findings {
        if origin == Origin::SelfWritten {
            finding.severity = one_lower(finding.severity);
        }
        assessment.level = assessment.level.max(finding.severity);
        assessment.score = assessment.score.saturating_add(weight(finding.severity));
        assessment.findings.push(finding);
    }
}

fn one_lower(level: Level) -> Level {
    match level {
        Level::Blocked => Level::High,
        Level::High => Level::Medium,
        Level::Medium | Level::Low => Level::Low,
    }
}

/// The native score weights (docs/rules.md): LOW 1, MEDIUM 10, HIGH 40, BLOCKED 100.
fn weight(level: Level) -> u32 {
    match level {
        Level::Low => 1,
        Level::Medium => 10,
        Level::High => 40,
        Level::Blocked => 100,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BANDIT: &str = r#"{"errors": [], "results": [
      {"col_offset": 0, "issue_confidence": "HIGH", "issue_cwe": {"id": 78},
       "issue_severity": "HIGH", "issue_text": "subprocess call with shell=True",
       "line_number": 2, "test_id": "B602", "test_name": "subprocess_popen_with_shell_equals_true"},
      {"col_offset": 4, "issue_confidence": "LOW", "issue_severity": "HIGH",
       "issue_text": "x", "line_number": 3, "test_id": "B999", "test_name": "t"}]}"#;

    #[test]
    fn bandit_results_become_prefixed_findings_mapped_conservatively() {
        // HIGH/HIGH stays HIGH; HIGH with low confidence drops to MEDIUM; never BLOCKED.
        let findings = parse_bandit(BANDIT.as_bytes()).unwrap();
        assert_eq!(findings[0].rule, "BANDIT-B602");
        assert_eq!(findings[0].severity, Level::High);
        assert_eq!(findings[0].cwe.as_deref(), Some("CWE-78"));
        assert_eq!((findings[0].line, findings[0].column), (2, 1));
        assert_eq!(findings[1].severity, Level::Medium);
        assert_eq!(findings[1].confidence, "low");
    }

    #[test]
    fn semgrep_results_become_prefixed_findings() {
        // check_id, start position, severity and the first CWE are read.
        let report = r#"{"results": [{"check_id": "rules.py.exec-use", "start": {"line": 4, "col": 2},
            "extra": {"message": "exec", "severity": "WARNING",
                      "metadata": {"cwe": ["CWE-95: eval injection"], "confidence": "HIGH"}}}]}"#;
        let findings = parse_semgrep(report.as_bytes()).unwrap();
        assert_eq!(findings[0].rule, "SEMGREP-rules.py.exec-use");
        assert_eq!(findings[0].severity, Level::Medium);
        assert_eq!(findings[0].cwe.as_deref(), Some("CWE-95"));
        assert_eq!(findings[0].line, 4);
    }

    #[test]
    fn garbage_output_is_a_failure_not_a_panic() {
        // An analyser that prints something else contributes nothing.
        assert!(parse_bandit(b"Traceback ...").is_err());
        assert!(parse_semgrep(b"{}").is_err());
    }

    #[test]
    fn disabled_analysers_leave_only_the_native_run() {
        // With both disabled, the native assessment is returned as is, one run listed.
        let settings = AnalyserSettings::default();
        let (assessment, runs) = assess(
            "print(1)\n",
            Origin::External,
            crate::assessor::Policy::defaults(),
            &settings,
        );
        assert_eq!(
            assessment,
            crate::assessor::assess("print(1)\n", Origin::External)
        );
        assert_eq!(runs.len(), 1);
        assert!(runs[0].is_ok());
    }

    #[test]
    fn a_missing_tool_is_reported_and_the_native_level_stands() {
        // A binary that does not exist is `missing`; nothing is merged.
        let settings = AnalyserSettings {
            bandit: true,
            bandit_bin: "/no/such/bandit".into(),
            ..AnalyserSettings::default()
        };
        let (assessment, runs) = assess(
            "print(1)\n",
            Origin::External,
            crate::assessor::Policy::defaults(),
            &settings,
        );
        assert_eq!(assessment.level, Level::Low);
        assert_eq!(runs[1].status, "missing");
    }

    #[test]
    fn a_slow_tool_is_killed_at_the_budget() {
        // A tool that outlives the budget is `timeout` and contributes nothing.
        let dir = tempfile::tempdir().unwrap();
        let slow = dir.path().join("slow");
        std::fs::write(&slow, "#!/bin/sh\nsleep 5\n").unwrap();
        std::fs::set_permissions(&slow, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let settings = AnalyserSettings {
            bandit: true,
            bandit_bin: slow.to_string_lossy().into_owned(),
            budget_ms: 200,
            ..AnalyserSettings::default()
        };
        let started = Instant::now();
        let (_, runs) = assess(
            "print(1)\n",
            Origin::External,
            crate::assessor::Policy::defaults(),
            &settings,
        );
        assert_eq!(runs[1].status, "timeout");
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
