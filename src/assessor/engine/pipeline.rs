//! `assess`: the pipeline for one program: size check, recovering parse, nesting check
//! (`limits`), scan, program-level combinations, constant `exec` strings analysed as code, report.
//!
//! The public entry point of the assessor library; the actor calls it per job. It never
//! panics to its caller: a panic inside the analysis becomes a HIGH finding.

use crate::protocol::assessor::{Assessment, Level, Origin};

use super::combine::combine;
use super::findings::{self, Confidence, Hit, Hits};
use super::input_limits::{
    deep_spot, drop_deep_tree, nesting_within_limit, parsed_nesting_within_limit,
    MAX_NESTED_SOURCES, MAX_SOURCE_BYTES, NESTED_SOURCE_BUDGET, PARSE_FIRST_BYTES,
};
use super::parser;
use super::policy::{CompiledSignatures, Policy};
use super::rules;
use super::scan::Scanner;

/// Assesses one program with the default policy (`[security]` of `config/default.toml`).
/// Never panics, never overflows the stack, bounded time for any input.
pub fn assess(source: &str, origin: Origin) -> Assessment {
    assess_with(source, origin, Policy::defaults())
}

/// Assesses one program with the given weights, thresholds and known-threat signatures.
pub fn assess_with(source: &str, origin: Origin, policy: &Policy) -> Assessment {
    let hits = crate::panics::catch(|| {
        fail::fail_point!("assessor::analyse");
        let mut run = Run {
            signatures: policy.compiled(),
            nested_budget: NESTED_SOURCE_BUDGET,
        };
        analyse(source, 0, &mut run)
    })
    .unwrap_or_else(|_| vec![hit(rules::ANALYSIS_FAILED, 0)]);
    findings::build(source, hits, origin, policy)
}

/// What one assessment carries through nested analyses.
struct Run {
    signatures: std::sync::Arc<CompiledSignatures>,
    /// Bytes of constant code strings that may still be analysed as code.
    nested_budget: usize,
}

fn hit(rule: &'static rules::Rule, at: u32) -> Hit {
    Hit {
        rule,
        at,
        confidence: Confidence::High,
    }
}

/// Hits for `source`; `level` counts how many `exec` strings deep this source is.
fn analyse(source: &str, level: u32, run: &mut Run) -> Vec<Hit> {
    if source.len() > MAX_SOURCE_BYTES {
        return vec![hit(rules::TOO_LARGE, 0)];
    }
    let too_deep = || vec![hit(rules::TOO_DEEP, deep_spot(source))];
    if source.len() > PARSE_FIRST_BYTES && !nesting_within_limit(source) {
        return too_deep();
    }
    let module = parser::parse(source);
    if !parsed_nesting_within_limit(&module) {
        drop_deep_tree(module);
        return too_deep();
    }
    let mut known = Vec::new();
    if run.signatures.wants_code_hash()
        && run.signatures.known_code(&normalised_hash(&module, source))
    {
        known.push(hit(rules::KNOWN_THREAT, 0));
    }
    let mut scanner = Scanner::new(run.signatures.clone());
    if let Some(error) = module.first_syntax_error() {
        scanner
            .hits
            .add(rules::SYNTAX_ERROR, error.offset, Confidence::High);
    }
    scanner.scan_block(module.body());
    if let Some(at) = scanner.too_deep {
        scanner.hits.add(rules::TOO_DEEP, at, Confidence::High);
    }
    combine(&scanner.caps, &mut scanner.hits);
    let Hits { mut list } = std::mem::take(&mut scanner.hits);
    list.extend(known);
    for (code, at) in std::mem::take(&mut scanner.nested_sources) {
        list.extend(analyse_nested(&code, at, level, run));
    }
    list
}

/// SHA-256 (hex) of the parsed code's tokens, formatting left out.
fn normalised_hash(module: &parser::Module, source: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    module.for_each_normalised_token(source, |text| {
        hasher.update(text.as_bytes());
        hasher.update(b" ");
    });
    hex::encode(hasher.finalize())
}

/// SHA-256 (hex) of `source` without comments, indentation or spacing: the form
/// `[security.signatures] code_sha256` entries are written in. Empty past the size and
/// nesting limits.
pub fn normalised_code_sha256(source: &str) -> String {
    if source.len() > MAX_SOURCE_BYTES || !nesting_within_limit(source) {
        return String::new();
    }
    normalised_hash(&parser::parse(source), source)
}

/// Analyses a constant string handed to `exec`/`eval` as code; its hits are reported at
/// the call. Syntax errors inside it are not findings (`eval` takes expressions too).
fn analyse_nested(code: &str, at: u32, level: u32, run: &mut Run) -> Vec<Hit> {
    if level >= MAX_NESTED_SOURCES || code.len() > run.nested_budget {
        return vec![hit(rules::DYNAMIC_CODE, at)];
    }
    run.nested_budget -= code.len();
    let mut hits: Vec<Hit> = analyse(code, level + 1, run)
        .into_iter()
        .filter(|h| h.rule.id != rules::SYNTAX_ERROR.id)
        .map(|h| Hit { at, ..h })
        .collect();
    let hides_a_call = hits.iter().any(|h| {
        h.rule.class == rules::Class::Behavioural
            && (h.rule.severity >= Level::Medium || h.rule.id == rules::SUBPROCESS.id)
    });
    if hides_a_call {
        hits.push(hit(rules::HIDDEN_CALL, at));
    }
    hits
}
