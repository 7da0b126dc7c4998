//! End-to-end samples for `assess`: each BLOCKED and HIGH family with evasions, the
//! MEDIUM/LOW rules, name resolution, origin handling, syntax-error recovery, benign
//! programs that must stay LOW, nesting bombs in a 2 MiB thread, and finding positions.

use crate::protocol::assessor::{Assessment, Level, Origin};

use super::assess;

fn external(source: &str) -> Assessment {
    assess(source, Origin::External)
}

fn rule_ids(assessment: &Assessment) -> Vec<&str> {
    assessment
        .findings
        .iter()
        .map(|f| f.rule.as_str())
        .collect()
}

/// Asserts that `rule` fires on `source` (external origin).
#[track_caller]
fn fires(rule: &str, source: &str) {
    let assessment = external(source);
    assert!(
        rule_ids(&assessment).contains(&rule),
        "{rule} did not fire; got {:?} for:\n{source}",
        rule_ids(&assessment)
    );
}

/// Asserts that `rule` does not fire on `source`.
#[track_caller]
fn silent(rule: &str, source: &str) {
    let assessment = external(source);
    assert!(
        !rule_ids(&assessment).contains(&rule),
        "{rule} fired unexpectedly on:\n{source}\n{:?}",
        assessment.findings
    );
}

#[track_caller]
fn level(expected: Level, source: &str) {
    let assessment = external(source);
    assert_eq!(
        assessment.level, expected,
        "for:\n{source}\nfindings: {:#?}",
        assessment.findings
    );
}

/// Runs `f` on a thread with a 2 MiB stack, like a default worker thread.
fn on_small_stack(f: impl FnOnce() -> Assessment + Send + 'static) -> Assessment {
    on_stack(2 << 20, f)
}

/// Runs `f` on a thread with a stack of `bytes`.
fn on_stack(bytes: usize, f: impl FnOnce() -> Assessment + Send + 'static) -> Assessment {
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("assessment thread must not crash")
}

mod benign;
mod blocked;
mod escalation;
mod flow;
mod hiding;
mod high;
mod libraries;
mod medium_low;
mod origin;
mod positions;
mod recovery_and_limits;
mod resolution;
mod servers;
mod signatures;
mod speed;
mod unseen;
