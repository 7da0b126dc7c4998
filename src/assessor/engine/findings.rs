//! Turns rule hits into the wire `Assessment`: 1-based line and column, the trimmed
//! source line as snippet, origin downgrades, de-duplication, caps, level and score.
//!
//! Score: the sum over kept findings of the policy's weight for each final severity,
//! saturating. Level: the highest final severity (LOW when there are no findings), raised
//! to what the score reaches under the policy's thresholds.

use crate::protocol::assessor::{Assessment, Finding, Level, Origin};

use super::input_limits::{MAX_FINDINGS, MAX_FINDINGS_PER_RULE};
use super::policy::Policy;
use super::rules::{Class, Rule};

/// Longest snippet, in characters.
const MAX_SNIPPET_CHARS: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    Low,
    Medium,
    High,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }
}

/// One rule matching at one byte offset of the source.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub rule: &'static Rule,
    pub at: u32,
    pub confidence: Confidence,
}

/// Collects hits while the program is scanned.
#[derive(Debug, Default)]
pub struct Hits {
    pub list: Vec<Hit>,
}

impl Hits {
    pub fn add(&mut self, rule: &'static Rule, at: u32, confidence: Confidence) {
        self.list.push(Hit {
            rule,
            at,
            confidence,
        });
    }
}

/// The severity a rule gets for code of this origin: behavioural rules drop one level
/// for code the assistant wrote itself; privileged-access and analysis rules never do.
pub fn severity_for(rule: &Rule, origin: Origin) -> Level {
    match (origin, rule.class) {
        (Origin::SelfWritten, Class::Behavioural) => match rule.severity {
            Level::Blocked => Level::High,
            Level::High => Level::Medium,
            Level::Medium | Level::Low => Level::Low,
        },
        _ => rule.severity,
    }
}

pub fn build(source: &str, mut hits: Vec<Hit>, origin: Origin, policy: &Policy) -> Assessment {
    let lines = LineIndex::new(source);
    hits.sort_by_key(|h| (h.at, h.rule.id, std::cmp::Reverse(h.confidence)));
    let mut findings: Vec<Finding> = Vec::new();
    let mut seen: Vec<(&str, u32)> = Vec::new();
    let mut per_rule: Vec<(&str, usize)> = Vec::new();
    for hit in hits {
        let (line, column) = lines.position(source, hit.at);
        if seen.contains(&(hit.rule.id, line)) || !take_slot(&mut per_rule, hit.rule.id) {
            continue;
        }
        seen.push((hit.rule.id, line));
        findings.push(finding(source, &lines, hit, origin, line, column));
        if findings.len() == MAX_FINDINGS {
            break;
        }
    }
    let score = findings
        .iter()
        .fold(0u32, |sum, f| sum.saturating_add(policy.weight(f.severity)));
    let level = findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Level::Low)
        .max(policy.level_for_score(score));
    Assessment {
        level,
        score,
        findings,
    }
}

fn take_slot<'r>(per_rule: &mut Vec<(&'r str, usize)>, id: &'r str) -> bool {
    match per_rule.iter_mut().find(|(rule, _)| *rule == id) {
        Some((_, count)) if *count >= MAX_FINDINGS_PER_RULE => false,
        Some((_, count)) => {
            *count += 1;
            true
        }
        None => {
            per_rule.push((id, 1));
            true
        }
    }
}

fn finding(
    source: &str,
    lines: &LineIndex,
    hit: Hit,
    origin: Origin,
    line: u32,
    column: u32,
) -> Finding {
    Finding {
        rule: hit.rule.id.to_string(),
        title: hit.rule.title.to_string(),
        severity: severity_for(hit.rule, origin),
        confidence: hit.confidence.as_str().to_string(),
        line,
        column,
        message: hit.rule.why.to_string(),
        cwe: hit.rule.cwe.map(str::to_string),
        snippet: snippet(lines.line_text(source, line)),
    }
}

fn snippet(line: &str) -> String {
    let trimmed = line.trim();
    match trimmed.char_indices().nth(MAX_SNIPPET_CHARS) {
        Some((cut, _)) => format!("{}…", &trimmed[..cut]),
        None => trimmed.to_string(),
    }
}

/// Byte offsets of line starts, for offset -> (line, column) lookups.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(source: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(source.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based line and 1-based column counted in characters.
    fn position(&self, source: &str, at: u32) -> (u32, u32) {
        let at = (at as usize).min(source.len());
        let line = self.starts.partition_point(|&start| start <= at).max(1);
        let start = self.starts[line - 1];
        let column = source
            .get(start..at)
            .map_or(at - start, |prefix| prefix.chars().count());
        (line as u32, column as u32 + 1)
    }

    fn line_text<'s>(&self, source: &'s str, line: u32) -> &'s str {
        let index = line as usize - 1;
        let start = self.starts[index];
        let end = self.starts.get(index + 1).map_or(source.len(), |&s| s);
        source.get(start..end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assessor::engine::rules;

    fn build_default(source: &str, hits: Vec<Hit>, origin: Origin) -> Assessment {
        build(source, hits, origin, Policy::defaults())
    }

    fn hit(rule: &'static Rule, at: u32) -> Hit {
        Hit {
            rule,
            at,
            confidence: Confidence::High,
        }
    }

    #[test]
    fn positions_are_one_based_and_count_characters() {
        // Offsets map to 1-based lines and character (not byte) columns.
        let source = "a = 1\né = 2; os.system(x)\n";
        let at = source.find("os.").unwrap() as u32;
        let report = build_default(
            source,
            vec![hit(rules::SHELL_INJECTION, at)],
            Origin::External,
        );
        let f = &report.findings[0];
        assert_eq!((f.line, f.column), (2, 8));
        assert_eq!(f.snippet, "é = 2; os.system(x)");
    }

    #[test]
    fn level_is_max_and_score_sums_weights() {
        // One LOW and one MEDIUM finding give MEDIUM with score 1 + 10.
        let source = "x\ny\n";
        let report = build_default(
            source,
            vec![hit(rules::WEAK_HASH, 0), hit(rules::NETWORK, 2)],
            Origin::External,
        );
        assert_eq!(report.level, Level::Medium);
        assert_eq!(report.score, 11);
    }

    #[test]
    fn self_written_code_downgrades_only_behavioural_rules() {
        // BLOCKED behaviour becomes HIGH for self-written code; privileged HIGH stays HIGH.
        assert_eq!(
            severity_for(rules::REVERSE_SHELL, Origin::SelfWritten),
            Level::High
        );
        assert_eq!(
            severity_for(rules::REVERSE_SHELL, Origin::External),
            Level::Blocked
        );
        assert_eq!(
            severity_for(rules::SET_ID, Origin::SelfWritten),
            Level::High
        );
        assert_eq!(
            severity_for(rules::TOO_DEEP, Origin::SelfWritten),
            Level::High
        );
    }

    #[test]
    fn duplicates_on_one_line_are_merged_and_rules_capped() {
        // The same rule twice on one line is one finding; a rule fires at most the cap.
        let source = "x\n".repeat(100);
        let hits =
            (0..100).flat_map(|i| [hit(rules::SUBPROCESS, i * 2), hit(rules::SUBPROCESS, i * 2)]);
        let report = build_default(&source, hits.collect(), Origin::External);
        assert_eq!(report.findings.len(), MAX_FINDINGS_PER_RULE);
    }

    #[test]
    fn no_findings_is_low_with_zero_score() {
        // An empty hit list is LOW with score 0.
        let report = build_default("print(1)\n", Vec::new(), Origin::External);
        assert_eq!((report.level, report.score), (Level::Low, 0));
    }

    #[test]
    fn long_lines_are_cut_in_the_snippet() {
        // Snippets stop at 200 characters, on a character boundary.
        let source = format!("x = '{}'\n", "é".repeat(500));
        let report = build_default(&source, vec![hit(rules::WEAK_HASH, 0)], Origin::External);
        assert_eq!(
            report.findings[0].snippet.chars().count(),
            MAX_SNIPPET_CHARS + 1
        );
    }
}
