//! The labelled corpus under `tests/corpus/`: every risky program is assessed at its
//! family's level, benign programs stay below HIGH and almost all at LOW.
//!
//! Each corpus file opens with `# expect: LEVEL family`; the directory is the family too.
//! Programs are data: they are read and assessed, never run. The test prints the
//! per-family confusion table and every miss, so a failure says what to look at.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cordon::assessor::assess;
use cordon::protocol::assessor::{Assessment, Level, Origin};

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

/// Share of risky programs (expected HIGH or BLOCKED) that must get exactly that level.
const MIN_RISKY_RECALL: f64 = 0.95;
/// Share of benign programs that may be MEDIUM (none may be HIGH or above).
const MAX_BENIGN_MEDIUM: f64 = 0.05;
/// Share of MEDIUM-class programs that must get exactly MEDIUM.
const MIN_MEDIUM_MATCH: f64 = 0.90;
/// The issue asks for at least this many programs on each side.
const MIN_PROGRAMS: usize = 150;

/// One corpus program with its label and what the assessor said.
struct Sample {
    path: PathBuf,
    family: String,
    expected: Level,
    assessment: Assessment,
}

impl Sample {
    fn hit(&self) -> bool {
        self.assessment.level == self.expected
    }

    fn rules(&self) -> String {
        let mut ids: Vec<&str> = self
            .assessment
            .findings
            .iter()
            .map(|f| f.rule.as_str())
            .collect();
        ids.dedup();
        ids.join(",")
    }
}

fn parse_level(text: &str) -> Level {
    match text {
        "LOW" => Level::Low,
        "MEDIUM" => Level::Medium,
        "HIGH" => Level::High,
        "BLOCKED" => Level::Blocked,
        other => panic!("unknown level {other:?} in an expect header"),
    }
}

/// Reads `# expect: LEVEL family` from the first line.
fn label(path: &Path, source: &str) -> (Level, String) {
    let header = source.lines().next().unwrap_or("");
    let rest = header
        .strip_prefix("# expect: ")
        .unwrap_or_else(|| panic!("{} lacks a `# expect:` header", path.display()));
    let mut words = rest.split_whitespace();
    let level = parse_level(words.next().unwrap_or(""));
    let family = words.next().expect("family after the level").to_string();
    let directory = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|d| d.to_str());
    assert_eq!(
        directory,
        Some(family.as_str()),
        "{}: header family differs from its directory",
        path.display()
    );
    (level, family)
}

fn load_corpus() -> Vec<Sample> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(CORPUS)
        .expect("tests/corpus exists")
        .flat_map(|family| std::fs::read_dir(family.expect("entry").path()).expect("family dir"))
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "py"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).expect("corpus file is UTF-8");
            let (expected, family) = label(&path, &source);
            let assessment = assess(&source, Origin::External);
            Sample {
                path,
                family,
                expected,
                assessment,
            }
        })
        .collect()
}

fn level_index(level: Level) -> usize {
    match level {
        Level::Low => 0,
        Level::Medium => 1,
        Level::High => 2,
        Level::Blocked => 3,
    }
}

/// Prints, per family, how many programs landed on each level.
fn print_confusion(samples: &[Sample]) {
    let mut table: BTreeMap<(usize, &str), [usize; 4]> = BTreeMap::new();
    for sample in samples {
        let key = (3 - level_index(sample.expected), sample.family.as_str());
        table.entry(key).or_default()[level_index(sample.assessment.level)] += 1;
    }
    println!(
        "\n{:<22} {:>8} {:>5} {:>6} {:>5} {:>7}",
        "family", "expected", "LOW", "MEDIUM", "HIGH", "BLOCKED"
    );
    for ((expected, family), counts) in &table {
        let expected = ["BLOCKED", "HIGH", "MEDIUM", "LOW"][*expected];
        println!(
            "{family:<22} {expected:>8} {:>5} {:>6} {:>5} {:>7}",
            counts[0], counts[1], counts[2], counts[3]
        );
    }
}

fn print_misses(samples: &[Sample]) {
    for sample in samples.iter().filter(|s| !s.hit()) {
        println!(
            "MISS {} expected {} got {} [{}]",
            sample
                .path
                .strip_prefix(CORPUS)
                .unwrap_or(&sample.path)
                .display(),
            sample.expected.as_str(),
            sample.assessment.level.as_str(),
            sample.rules()
        );
    }
}

fn share(part: usize, whole: usize) -> f64 {
    part as f64 / whole.max(1) as f64
}

#[test]
fn corpus_levels_meet_the_targets() {
    // Risky programs get their family's level (>= 95%), benign ones never reach HIGH and
    // at most 5% reach MEDIUM, MEDIUM-class programs are MEDIUM (>= 90%).
    let samples = load_corpus();
    print_confusion(&samples);
    print_misses(&samples);

    let risky: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.expected >= Level::High)
        .collect();
    let benign: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.expected == Level::Low)
        .collect();
    let medium: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.expected == Level::Medium)
        .collect();
    let risky_hits = risky.iter().filter(|s| s.hit()).count();
    let benign_high = benign
        .iter()
        .filter(|s| s.assessment.level >= Level::High)
        .count();
    let benign_medium = benign
        .iter()
        .filter(|s| s.assessment.level == Level::Medium)
        .count();
    let medium_hits = medium.iter().filter(|s| s.hit()).count();
    println!(
        "risky {risky_hits}/{} at their level ({:.1}%); benign {benign_medium}/{} MEDIUM \
         ({:.1}%), {benign_high} HIGH+; medium-class {medium_hits}/{}",
        risky.len(),
        100.0 * share(risky_hits, risky.len()),
        benign.len(),
        100.0 * share(benign_medium, benign.len()),
        medium.len(),
    );

    assert!(
        risky.len() >= MIN_PROGRAMS,
        "only {} risky programs",
        risky.len()
    );
    assert!(
        benign.len() >= MIN_PROGRAMS,
        "only {} benign programs",
        benign.len()
    );
    assert!(
        share(risky_hits, risky.len()) >= MIN_RISKY_RECALL,
        "risky recall too low"
    );
    assert_eq!(benign_high, 0, "benign programs at HIGH or above");
    assert!(
        share(benign_medium, benign.len()) <= MAX_BENIGN_MEDIUM,
        "too many benign MEDIUM"
    );
    assert!(
        share(medium_hits, medium.len()) >= MIN_MEDIUM_MATCH,
        "MEDIUM classes missed"
    );
}

#[test]
fn every_issue_family_is_in_the_corpus() {
    // Each family the issue names has programs, so recall is measured on all of them.
    let samples = load_corpus();
    let families = [
        "reverse_shell",
        "download_execute",
        "exfiltration",
        "destructive",
        "persistence",
        "crypto_mining",
        "container_escape",
        "kill_others",
        "decode_execute",
        "known_threat",
        "privilege_command",
        "set_id",
        "setid_bits",
        "privilege_escalation",
        "system_write",
        "secret_read",
        "ctypes_libc",
        "capabilities",
        "system_recon",
        "fork_bomb",
        "hidden_call",
        "benign",
    ];
    for family in families {
        let count = samples.iter().filter(|s| s.family == family).count();
        assert!(count >= 5, "family {family} has only {count} programs");
    }
}
