//! Finding positions: 1-based line and column of the offending code, snippets.

use super::*;

#[track_caller]
fn position_of(rule: &str, source: &str) -> (u32, u32, String) {
    let assessment = external(source);
    let finding = assessment
        .findings
        .iter()
        .find(|f| f.rule == rule)
        .unwrap_or_else(|| panic!("{rule} missing: {:?}", assessment.findings));
    (finding.line, finding.column, finding.snippet.clone())
}

#[test]
fn findings_point_at_the_call() {
    // Line and column are 1-based and point at the start of the offending call.
    let src = "import os\n\ndef f():\n    x = 1\n    os.setuid(0)\n";
    assert_eq!(position_of("CRD202", src), (5, 5, "os.setuid(0)".into()));
    let src = "import subprocess\ny = 2; subprocess.run(c, shell=True)\n";
    assert_eq!(position_of("CRD301", src).0, 2);
    assert_eq!(position_of("CRD301", src).1, 8);
}

#[test]
fn each_rule_points_at_its_call() {
    // In a mixed program each finding's line and column are those of its call.
    let src = "import os, pickle, hashlib, subprocess\n\
               data = pickle.loads(blob)\n\
               if data:\n    h = hashlib.md5(data)\n\
               for x in data:\n        os.system('sudo ' + x)\n\
               def f():\n    return subprocess.run(['ls'])\n\
               open('/etc/shadow').read()\n";
    let at = |needle: &str| {
        let offset = src.find(needle).expect(needle);
        let line = src[..offset].matches('\n').count() as u32 + 1;
        let column = (offset - src[..offset].rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
        (line, column)
    };
    let assessment = external(src);
    for (rule, needle) in [
        ("CRD302", "pickle.loads"),
        ("CRD401", "hashlib.md5"),
        ("CRD301", "os.system"),
        ("CRD201", "os.system"),
        ("CRD402", "subprocess.run"),
        ("CRD205", "open('/etc/shadow')"),
    ] {
        let positions: Vec<(u32, u32)> = assessment
            .findings
            .iter()
            .filter(|f| f.rule == rule)
            .map(|f| (f.line, f.column))
            .collect();
        assert!(positions.contains(&at(needle)), "{rule}: {positions:?}");
    }
}

#[test]
fn combined_findings_point_at_the_completing_call() {
    // The reverse shell is reported where the shell is wired to the socket.
    let src =
        "import socket, os\ns = socket.socket()\ns.connect(('h', 1))\nos.dup2(s.fileno(), 0)\n";
    assert_eq!(position_of("CRD101", src).0, 4);
}

#[test]
fn syntax_errors_point_at_the_error() {
    // The syntax-error finding is on the broken line.
    assert_eq!(position_of("CRD001", "x = 1\ndef f(:\n    pass\n").0, 2);
}

#[test]
fn literal_indicators_point_at_the_literal() {
    // A mining URL is reported at the string literal itself.
    let src = "config = {\n    'url': 'stratum+tcp://pool:3333',\n}\n";
    assert_eq!(position_of("CRD108", src).0, 2);
    assert_eq!(position_of("CRD108", src).1, 12);
}

#[test]
fn every_finding_has_its_fields() {
    // Every finding names a rule, a title, a message, a confidence and a snippet.
    let src = "import os, pickle\nos.setuid(0)\npickle.loads(b)\nos.system(c)\n";
    for finding in external(src).findings {
        assert!(finding.rule.starts_with("CRD"));
        assert!(!finding.title.is_empty() && !finding.message.is_empty());
        assert!(["low", "medium", "high"].contains(&finding.confidence.as_str()));
        assert!(!finding.snippet.is_empty() && finding.line >= 2);
    }
}
