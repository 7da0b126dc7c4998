//! Known-threat signatures from the policy: code hashes, IOC strings, domains, IPs, pools;
//! and no suppression comment of any kind is honoured.

use super::*;
use crate::assessor::{assess_with, normalised_code_sha256, Policy};
use crate::config::Signatures;

fn with_signatures(signatures: Signatures) -> Policy {
    let mut policy = Policy::defaults().clone();
    policy.signatures = signatures;
    policy
}

#[test]
fn normalised_code_hash_ignores_formatting() {
    // Comments, blank lines and spacing do not change the hash; a changed token does.
    let a = normalised_code_sha256("import os\nos.system('id')\n");
    let b = normalised_code_sha256("# hello\nimport  os\n\n\nos.system( 'id' )  # run\n");
    let c = normalised_code_sha256("import os\nos.system('ls')\n");
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a.len(), 64);
}

#[test]
fn known_code_hash_is_blocked() {
    // A program whose normalised hash is listed is BLOCKED as a known threat, reformatted too.
    let program = "print('harmless looking')\n";
    let policy = with_signatures(Signatures {
        code_sha256: vec![normalised_code_sha256(program)],
        ..Default::default()
    });
    let reformatted = "print( 'harmless looking' )   # nothing to see\n";
    let assessment = assess_with(reformatted, Origin::External, &policy);
    assert_eq!(assessment.level, Level::Blocked);
    assert_eq!(assessment.findings[0].rule, "CRD110");
    assert_eq!(assess(program, Origin::External).level, Level::Low);
}

#[test]
fn configured_ips_and_iocs_are_blocked_even_when_folded() {
    // A listed IP split across a concatenation and an IOC string are found.
    let policy = with_signatures(Signatures {
        ips: vec!["192.0.2.44".into()],
        ioc_strings: vec!["evil-implant".into()],
        ..Default::default()
    });
    let ip = "import socket\nhost = '192.0.' + '2.44'\nsocket.create_connection((host, 80))\n";
    assert_eq!(
        assess_with(ip, Origin::External, &policy).level,
        Level::Blocked
    );
    let ioc = "name = 'EVIL-IMPLANT-v2'\nprint(name)\n";
    assert_eq!(
        assess_with(ioc, Origin::External, &policy).level,
        Level::Blocked
    );
    assert_eq!(assess(ioc, Origin::External).level, Level::Low);
}

#[test]
fn default_domains_and_pools_are_blocked() {
    // The default lists catch callback services and mining pools in URLs and host names.
    fires(
        "CRD110",
        "import requests\nrequests.get('https://abc.oast.pro/x')\n",
    );
    fires(
        "CRD108",
        "import socket\nsocket.create_connection(('pool.supportxmr.com', 3333))\n",
    );
    silent(
        "CRD110",
        "import requests\nrequests.get('https://example.com/oast.pro.html')\n",
    );
}

#[test]
fn no_inline_suppression_is_honoured() {
    // Every suppression spelling an attacker might try leaves the finding and the level.
    for comment in [
        "# nosec",
        "# nosec B605",
        "# noqa",
        "# noqa: S605",
        "# nosemgrep",
        "# cordon: ignore",
        "# cordon: disable=CRD202",
        "# pylint: disable=all",
        "# type: ignore",
    ] {
        let src = format!("import os\nos.setuid(0)  {comment}\n");
        fires("CRD202", &src);
        level(Level::High, &src);
        let file_level = format!("{comment}\nimport os\nos.system('rm -rf /')\n");
        level(Level::Blocked, &file_level);
    }
}

#[test]
fn score_thresholds_come_from_the_policy() {
    // Many LOW findings add up to MEDIUM at the configured threshold, and not below it.
    let src = format!(
        "import subprocess, hashlib\n{}{}",
        "subprocess.run(['ls'])\n".repeat(12),
        "hashlib.md5(b'x')\n".repeat(12)
    );
    let mut policy = Policy::defaults().clone();
    policy.thresholds.medium_score = 20;
    assert_eq!(
        assess_with(&src, Origin::External, &policy).level,
        Level::Medium
    );
    policy.thresholds.medium_score = 0;
    assert_eq!(
        assess_with(&src, Origin::External, &policy).level,
        Level::Low
    );
}
