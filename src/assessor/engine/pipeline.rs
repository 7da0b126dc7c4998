//! `assess`: the pipeline for one program: size check, recovering parse, nesting check
//! (`limits`), scan, program-level combinations, constant `exec` strings analysed as code, report.
//!
//! The public entry point of the assessor library; the actor calls it per job. It never
//! panics to its caller: a panic inside the analysis becomes a HIGH finding.

use crate::protocol::assessor::{Assessment, Level, Origin};

use super::combine::combine;
use super::findings::{self, Confidence, Hit, Hits};
use super::input_limits::{
    deep_regions, deep_spot, drop_deep_tree, nesting_within, nesting_within_limit, parsed_nesting,
    parsed_nesting_within_limit, top_level_chunks, triple_quote_after, without_regions, DeepRegion,
    HARD_SOURCE_BYTES, MAX_NESTED_SOURCES, MAX_SOURCE_BYTES, NESTED_SOURCE_BUDGET,
    PARSEABLE_NESTING, PARSE_FIRST_BYTES,
};
use super::parser;
use super::policy::{CompiledSignatures, Policy};
use super::rules;
use super::scan::Scanner;
use std::borrow::Cow;

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

/// The assessment of a file that is not Python source text (binary data): HIGH, since
/// nothing in it could be checked.
pub fn not_python_source(origin: Origin, policy: &Policy) -> Assessment {
    findings::build("", vec![hit(rules::NOT_SOURCE, 0)], origin, policy)
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

/// Hits for `source`; `level` counts how many `exec` strings deep this source is. Parts
/// past the size or nesting limits are left out (each reported as its own finding) and
/// everything else is analysed, so a limit never hides the rest of the program.
fn analyse(source: &str, level: u32, run: &mut Run) -> Vec<Hit> {
    let mut list = Vec::new();
    let sized;
    let source = if source.len() > MAX_SOURCE_BYTES {
        let (text, cut) = within_size(source);
        if let Some(at) = cut {
            list.push(hit(rules::TOO_LARGE, at));
        }
        sized = text;
        sized.as_str()
    } else {
        source
    };
    // A long flat chain is walked without recursion, but dropping its tree recurses.
    let Some((module, text, drop_elsewhere)) = shallow_parse(source, &mut list) else {
        return list;
    };
    if run.signatures.wants_code_hash()
        && run.signatures.known_code(&normalised_hash(&module, &text))
    {
        list.push(hit(rules::KNOWN_THREAT, 0));
    }
    let mut scanner = Scanner::new(run.signatures.clone());
    scanner.source = &text;
    if let Some(error) = module.first_syntax_error() {
        scanner
            .hits
            .add(rules::SYNTAX_ERROR, error.offset, Confidence::High);
    }
    scanner.scan_block(module.body());
    scanner.replay_queue_consumers();
    scanner.run_finalizers();
    super::process_calls::judge_pending_kills(&mut scanner);
    if let Some(at) = scanner.too_deep {
        scanner.hits.add(rules::TOO_DEEP, at, Confidence::High);
    }
    combine(&scanner.caps, &mut scanner.hits);
    let Hits { list: found } = std::mem::take(&mut scanner.hits);
    list.extend(found);
    let nested = std::mem::take(&mut scanner.nested_sources);
    drop(scanner);
    if drop_elsewhere {
        drop_deep_tree(module);
    }
    for (code, at, evaluated) in nested {
        list.extend(analyse_nested(&code, (at, evaluated), level, run));
    }
    list
}

/// Parses `source` with the parts that nest past the limits left out (a `TOO_DEEP`
/// finding each): byte for byte the same text otherwise, so offsets still point at the
/// original. `None` when even that is not safe to walk.
fn shallow_parse<'s>(
    source: &'s str,
    list: &mut Vec<Hit>,
) -> Option<(parser::Module, Cow<'s, str>, bool)> {
    let regions = if source.len() <= PARSE_FIRST_BYTES {
        let module = parser::parse(source);
        if let Some(long_chain) = parsed_nesting(&module) {
            return Some((module, Cow::Borrowed(source), long_chain));
        }
        let regions = deep_regions(module.shaped_tokens());
        drop_deep_tree(module);
        regions
    } else if nesting_within_limit(source) {
        let module = parser::parse(source);
        let long_chain = parsed_nesting(&module) != Some(false);
        return Some((module, Cow::Borrowed(source), long_chain));
    } else {
        chunked_regions(source)
    };
    list.extend(regions.iter().map(|r| hit(rules::TOO_DEEP, r.range.start)));
    let shallow = without_regions(source, &regions);
    let fits = shallow.len() <= PARSE_FIRST_BYTES || nesting_within_limit(&shallow);
    let module = fits.then(|| parser::parse(&shallow));
    let nesting = module.as_ref().and_then(parsed_nesting);
    match (module, nesting) {
        (Some(module), Some(long_chain)) => Some((module, Cow::Owned(shallow), long_chain)),
        (other, _) => {
            if let Some(module) = other {
                drop_deep_tree(module);
            }
            if regions.is_empty() {
                list.push(hit(rules::TOO_DEEP, deep_spot(source)));
            }
            None
        }
    }
}

/// Deep regions of a program too large to parse first, found top-level statement by
/// statement; a statement too large to parse first and too deep is left out whole.
fn chunked_regions(source: &str) -> Vec<DeepRegion> {
    let mut regions = Vec::new();
    for chunk in top_level_chunks(source) {
        let text = &source[chunk.start as usize..chunk.end as usize];
        if text.len() > PARSE_FIRST_BYTES {
            if nesting_within_limit(text) {
                continue;
            }
            if !nesting_within(text, PARSEABLE_NESTING) {
                // Too deep even to parse cheaply: the whole statement is left out.
                regions.push(DeepRegion {
                    range: chunk,
                    block: false,
                });
                continue;
            }
        }
        let module = parser::parse(text);
        if parsed_nesting_within_limit(&module) {
            continue;
        }
        let found = deep_regions(module.shaped_tokens());
        drop_deep_tree(module);
        regions.extend(found.into_iter().map(|r| DeepRegion {
            range: r.range.start + chunk.start..r.range.end + chunk.start,
            block: r.block,
        }));
    }
    regions
}

/// A program past [`MAX_SOURCE_BYTES`]: comment lines blanked (they are not code), and
/// cut at a line end once the code in it passes the limit; returns where it was cut.
fn within_size(source: &str) -> (String, Option<u32>) {
    let mut out = String::with_capacity(source.len().min(HARD_SOURCE_BYTES));
    let mut code_bytes = 0usize;
    let mut in_triple: Option<&'static str> = None;
    for line in source.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let comment = in_triple.is_none() && trimmed.starts_with('#');
        if !comment {
            code_bytes += trimmed.trim_end().len();
        }
        if code_bytes > MAX_SOURCE_BYTES || out.len() + line.len() > HARD_SOURCE_BYTES {
            let at = out.len() as u32;
            return (out, Some(at));
        }
        if comment {
            // One space per byte keeps every later offset where it was.
            out.extend(line.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(line);
        }
        in_triple = triple_quote_after(line, in_triple);
    }
    (out, None)
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

/// Whether code imports a module that reaches the system, the network or hidden data
/// (`import os`, `__import__("subprocess")`, an import whose name is not known): such an
/// import inside a string handed to `exec` or `eval` is hidden from whoever reads the
/// program. `import math` in generated code hides nothing.
fn imports(code: &str) -> bool {
    const REACHING: &[&str] = &[
        "os",
        "posix",
        "subprocess",
        "builtins",
        "importlib",
        "ctypes",
        "socket",
        "shutil",
        "pty",
        "platform",
        "getpass",
        "pwd",
        "grp",
        "spwd",
        "urllib",
        "http",
        "requests",
        "ftplib",
        "smtplib",
        "telnetlib",
        "paramiko",
        "pickle",
        "marshal",
        "base64",
        "zlib",
        "codecs",
        "runpy",
        "signal",
        "multiprocessing",
    ];
    let reaching = |name: &str| {
        let top = name.trim().split(['.', ' ']).next().unwrap_or_default();
        top.is_empty() || top == "_" || REACHING.contains(&top)
    };
    let mut names = Vec::new();
    for line in code.lines().flat_map(|l| l.split(';')) {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("import ") {
            names.extend(rest.split(',').map(|n| n.split(" as ").next().unwrap_or(n)));
        } else if let Some(rest) = line.strip_prefix("from ") {
            names.extend(rest.split(" import").next());
        }
    }
    for call in ["__import__(", "import_module("] {
        for (at, _) in code.match_indices(call) {
            let argument = &code[at + call.len()..];
            let quoted = argument.strip_prefix(['"', '\'']);
            names.push(quoted.map_or("_", |q| q.split(['"', '\'']).next().unwrap_or("_")));
        }
    }
    names.into_iter().any(reaching)
}

/// Analyses a constant string handed to `exec`/`eval` as code; its hits are reported at
/// the call. Syntax errors inside it are not findings (`eval` takes expressions too).
/// `evaluated`: handed to `exec` or `eval`, where an import is hidden too (not given to
/// `python -c` on a command line anyone can read).
fn analyse_nested(code: &str, (at, evaluated): (u32, bool), level: u32, run: &mut Run) -> Vec<Hit> {
    if level >= MAX_NESTED_SOURCES || code.len() > run.nested_budget {
        return vec![hit(rules::DYNAMIC_CODE, at)];
    }
    run.nested_budget -= code.len();
    let mut hits: Vec<Hit> = analyse(code, level + 1, run)
        .into_iter()
        .filter(|h| h.rule.id != rules::SYNTAX_ERROR.id)
        .map(|h| Hit { at, ..h })
        .collect();
    let hides_a_call = evaluated && imports(code)
        || hits.iter().any(|h| {
            h.rule.class == rules::Class::Behavioural
                && (h.rule.severity >= Level::Medium || h.rule.id == rules::SUBPROCESS.id)
        });
    if hides_a_call {
        hits.push(hit(rules::HIDDEN_CALL, at));
    }
    hits
}
