//! How `cordon assess` prints assessments: text for people, a JSON array (one object per
//! file) and SARIF 2.1.0 for code-scanning tools. Pure: takes finished assessments, returns
//! text or JSON values; the command decides where they go.
//!
//! SARIF: `tool.driver.rules` holds every rule of [`crate::assessor::engine::rules`] (with its reason as help
//! text) followed by any external analyser rule that fired; each result's `ruleIndex`
//! points into that list. Levels map BLOCKED and HIGH to `error`, MEDIUM to `warning` and
//! LOW to `note`.

use serde::Serialize;
use serde_json::{json, Value};

use crate::assessor::engine::rules::{self, Rule};
use crate::protocol::assessor::{AnalyserRun, Assessment, Finding, Level};

/// The official location of the SARIF 2.1.0 JSON schema.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The SARIF version written.
pub const SARIF_VERSION: &str = "2.1.0";

/// One assessed file.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The path as the user gave it.
    pub path: String,
    pub assessment: Assessment,
    /// Which analysers ran and how (the native one always).
    pub analysers: Vec<AnalyserRun>,
}

/// The JSON array: `[{path, level, score, findings: [...], analysers: [...]}]`, borrowed
/// from the reports and serialised as it is written (no intermediate JSON tree).
pub fn json(reports: &[FileReport]) -> Vec<JsonFile<'_>> {
    reports.iter().map(json_file).collect()
}

/// One file of `cordon assess --format json`.
#[derive(Serialize)]
pub struct JsonFile<'a> {
    path: &'a str,
    level: &'static str,
    score: u32,
    findings: Vec<JsonFinding<'a>>,
    analysers: &'a [AnalyserRun],
}

/// One finding of a file, as `--format json` prints it.
#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: &'a str,
    title: &'a str,
    severity: &'static str,
    confidence: &'a str,
    line: u32,
    column: u32,
    message: &'a str,
    cwe: &'a Option<String>,
}

fn json_file(report: &FileReport) -> JsonFile<'_> {
    let a = &report.assessment;
    JsonFile {
        path: &report.path,
        level: a.level.as_str(),
        score: a.score,
        findings: a.findings.iter().map(json_finding).collect(),
        analysers: &report.analysers,
    }
}

fn json_finding(f: &Finding) -> JsonFinding<'_> {
    JsonFinding {
        rule: &f.rule,
        title: &f.title,
        severity: f.severity.as_str(),
        confidence: &f.confidence,
        line: f.line,
        column: f.column,
        message: &f.message,
        cwe: &f.cwe,
    }
}

/// Text for people: one header line per file, one indented line per finding.
pub fn text(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        let a = &report.assessment;
        out.push_str(&format!(
            "{}: {} (score {}, {} finding{})\n",
            report.path,
            a.level.as_str(),
            a.score,
            a.findings.len(),
            if a.findings.len() == 1 { "" } else { "s" }
        ));
        for f in &a.findings {
            out.push_str(&format!(
                "  {}:{}:{} {} {} [{}] {}: {}\n",
                report.path,
                f.line,
                f.column,
                f.severity.as_str(),
                f.rule,
                f.confidence,
                f.title,
                f.message
            ));
        }
        for run in report.analysers.iter().filter(|r| !r.is_ok()) {
            out.push_str(&format!("  note: {}\n", run.describe()));
        }
    }
    out
}

/// The SARIF 2.1.0 log of all reports, one run.
pub fn sarif(reports: &[FileReport]) -> Value {
    let table = RuleTable::for_reports(reports);
    let results: Vec<Value> = reports
        .iter()
        .flat_map(|r| r.assessment.findings.iter().map(move |f| (r, f)))
        .map(|(r, f)| sarif_result(&r.path, f, table.index_of(&f.rule)))
        .collect();
    json!({
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "cordon",
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": table.descriptors,
            }},
            "invocations": [invocation(reports)],
            "results": results,
        }],
    })
}

/// The rules of a run: the native table, then external rules in order of first use.
struct RuleTable {
    ids: Vec<String>,
    descriptors: Vec<Value>,
}

impl RuleTable {
    fn for_reports(reports: &[FileReport]) -> RuleTable {
        let mut table = RuleTable {
            ids: Vec::new(),
            descriptors: Vec::new(),
        };
        for rule in rules::ALL {
            table.ids.push(rule.id.to_string());
            table.descriptors.push(native_descriptor(rule));
        }
        let findings = reports.iter().flat_map(|r| &r.assessment.findings);
        for finding in findings {
            if !table.ids.contains(&finding.rule) {
                table.ids.push(finding.rule.clone());
                table.descriptors.push(external_descriptor(finding));
            }
        }
        table
    }

    fn index_of(&self, id: &str) -> usize {
        self.ids.iter().position(|known| known == id).unwrap_or(0)
    }
}

fn native_descriptor(rule: &Rule) -> Value {
    let cwe = rule.cwe.unwrap_or("-");
    json!({
        "id": rule.id,
        "name": pascal_case(rule.title),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.why},
        "help": {
            "text": format!("{} Severity {} ({:?} rule), {cwe}.", rule.why, rule.severity.as_str(), rule.class),
            "markdown": format!("**{}** ({}): {}\n\nCWE: {cwe}. See docs/rules.md.", rule.title, rule.severity.as_str(), rule.why),
        },
        "defaultConfiguration": {"level": sarif_level(rule.severity)},
        "properties": properties(rule.severity, rule.cwe),
    })
}

fn external_descriptor(finding: &Finding) -> Value {
    json!({
        "id": finding.rule,
        "shortDescription": {"text": finding.title},
        "fullDescription": {"text": finding.message},
        "help": {"text": format!("Reported by an external analyser: {}", finding.message)},
        "defaultConfiguration": {"level": sarif_level(finding.severity)},
        "properties": properties(finding.severity, finding.cwe.as_deref()),
    })
}

fn properties(severity: Level, cwe: Option<&str>) -> Value {
    let mut tags = vec!["security".to_string()];
    tags.extend(cwe.map(|c| format!("external/cwe/{}", c.to_lowercase())));
    json!({
        "tags": tags,
        "security-severity": security_severity(severity),
        "cordon-severity": severity.as_str(),
    })
}

fn sarif_result(path: &str, f: &Finding, rule_index: usize) -> Value {
    json!({
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": sarif_level(f.severity),
        "message": {"text": format!("{}: {}", f.title, f.message)},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": path_to_uri(path)},
            "region": {
                "startLine": f.line.max(1),
                "startColumn": f.column.max(1),
                "snippet": {"text": f.snippet},
            },
        }}],
        "properties": {"severity": f.severity.as_str(), "confidence": f.confidence},
    })
}

/// One invocation; analysers that did not run are tool notifications, so a reader knows
/// the native analyser decided alone.
fn invocation(reports: &[FileReport]) -> Value {
    let notes: Vec<Value> = reports
        .iter()
        .flat_map(|r| {
            r.analysers
                .iter()
                .filter(|a| !a.is_ok())
                .map(move |a| (r, a))
        })
        .map(|(r, a)| {
            json!({
                "level": "note",
                "message": {"text": format!("{}: {}", r.path, a.describe())},
            })
        })
        .collect();
    json!({"executionSuccessful": true, "toolExecutionNotifications": notes})
}

/// SARIF result level of a cordon severity.
pub fn sarif_level(level: Level) -> &'static str {
    match level {
        Level::Blocked | Level::High => "error",
        Level::Medium => "warning",
        Level::Low => "note",
    }
}

/// The 0-10 `security-severity` GitHub code scanning sorts by.
fn security_severity(level: Level) -> &'static str {
    match level {
        Level::Blocked => "9.8",
        Level::High => "8.0",
        Level::Medium => "5.0",
        Level::Low => "2.0",
    }
}

fn pascal_case(title: &str) -> String {
    title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A relative or absolute path as a URI reference: `/` separators, absolute paths as
/// `file://` URIs, and characters that are not URI-safe percent-encoded.
pub fn path_to_uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' => out.push(byte as char),
            b'-' | b'.' | b'_' | b'~' | b'/' => out.push(byte as char),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::assessor::Origin;

    fn report(path: &str, source: &str) -> FileReport {
        FileReport {
            path: path.into(),
            assessment: crate::assessor::assess(source, Origin::External),
            analysers: vec![AnalyserRun::native()],
        }
    }

    #[test]
    fn sarif_rule_indexes_point_at_their_rules() {
        // Every result's ruleIndex names the descriptor whose id is its ruleId.
        let log = sarif(&[report("a.py", "import os\nos.system(input())\n")]);
        let run = &log["runs"][0];
        let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
        let results = run["results"].as_array().unwrap();
        assert!(!results.is_empty());
        for result in results {
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
        }
    }

    #[test]
    fn external_rules_are_appended_to_the_driver_rules() {
        // A finding whose rule is not native gets its own descriptor after the table.
        let mut with_external = report("b.py", "print(1)\n");
        with_external.assessment.findings.push(Finding {
            rule: "BANDIT-B602".into(),
            title: "subprocess_popen_with_shell_equals_true".into(),
            severity: Level::Medium,
            confidence: "high".into(),
            line: 1,
            column: 1,
            message: "shell=True".into(),
            cwe: Some("CWE-78".into()),
            snippet: String::new(),
        });
        let log = sarif(&[with_external]);
        let rules = log["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap();
        assert_eq!(rules.len(), rules::ALL.len() + 1);
        assert_eq!(log["runs"][0]["results"][0]["ruleIndex"], rules::ALL.len());
    }

    #[test]
    fn paths_become_uri_references() {
        // Spaces and '#' are escaped; absolute paths get the file scheme.
        assert_eq!(path_to_uri("src/a b#.py"), "src/a%20b%23.py");
        assert_eq!(path_to_uri("/tmp/x.py"), "file:///tmp/x.py");
    }

    #[test]
    fn json_objects_carry_the_documented_fields() {
        // {path, level, score, findings:[{rule,...,cwe}]} for each file.
        let reports = [report("c.py", "import pickle\npickle.loads(data)\n")];
        let value = serde_json::to_value(json(&reports)).expect("serialisable");
        let file = &value[0];
        assert_eq!(file["path"], "c.py");
        for key in ["level", "score", "findings"] {
            assert!(!file[key].is_null(), "{key}");
        }
        let finding = &file["findings"][0];
        for key in [
            "rule",
            "title",
            "severity",
            "confidence",
            "line",
            "column",
            "message",
        ] {
            assert!(!finding[key].is_null(), "{key}");
        }
        assert!(finding.get("cwe").is_some());
    }
}
