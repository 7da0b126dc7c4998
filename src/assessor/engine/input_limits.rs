//! The assessor's safety limits: how big and how deeply nested a program may be before it
//! is refused, and the budgets that keep constant folding and nested analysis bounded.
//!
//! The tree ruff builds is dropped recursively, so its nesting is checked before anything
//! walks or drops it: a program up to [`PARSE_FIRST_BYTES`] is parsed first and checked
//! from the parser's own tokens (a too-deep tree is dropped on a thread with a large
//! stack); a larger one is lexed first and never parsed when too deep.

use super::parser::{shape_tokens, Module, Shape};

/// Most bytes of code analysed (matches `caps.max_code_bytes`); comment lines do not
/// count, and code past it is left out with a finding of its own.
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

/// Most bytes of a program read at all, comments included.
pub const HARD_SOURCE_BYTES: usize = 16 << 20;

/// Deepest estimated nesting accepted before parsing. The estimate counts brackets,
/// indentation and operators chained inside one list element or logical line, so it is
/// an upper bound on the depth of the tree ruff would build. Measured on a debug build
/// with a 2 MiB stack, the full pipeline survives 400 nested `if`s and 800 nested calls,
/// lists or `not`s, so 200 keeps at least a factor of two in hand.
pub const MAX_NESTING: u32 = 200;

/// Largest program parsed before its nesting is known. ruff's parser grows its stack on
/// the heap: the deepest program of this size (16 000 unary minus signs) parses in about
/// 17 MiB and 10 ms; dropping its tree takes under 1 MiB of stack in a release build and
/// 1 to 2 MiB in a debug one, hence the dedicated thread below.
/// Lexing first would cost as much again as the parser's own lexing on every program.
pub const PARSE_FIRST_BYTES: usize = 16 * 1024;

/// Stack of the thread that drops a too-deep tree (at most [`PARSE_FIRST_BYTES`] levels);
/// reserved, not touched, beyond what the drop uses.
const DEEP_DROP_STACK_BYTES: usize = 64 << 20;

/// Deepest the scanner recurses into the tree; a second guard behind `MAX_NESTING`.
pub const MAX_WALK_DEPTH: u32 = 256;

/// Longest string the constant folder builds; longer results become unknown.
pub const MAX_FOLDED_STR: usize = 64 * 1024;

/// Bytes of folded strings built in one assessment, across all folds.
pub const FOLD_BUDGET_BYTES: usize = 1 << 20;

/// Bytes of command lines read in one assessment (the same long command run many times
/// would otherwise be re-read each time).
pub const SHELL_BUDGET_BYTES: usize = 4 << 20;

/// Bytes of output all of one program's constant decompressions may produce together;
/// past it, further payloads stay unopened (decoded data, unknown).
pub const DECOMPRESS_BUDGET_BYTES: usize = 8 << 20;

/// Most elements a folded list or tuple keeps (long enough for `chr` code lists).
pub const MAX_FOLDED_ITEMS: usize = 4096;

/// Most iterations a `for` loop over a known list is unrolled for.
pub const MAX_UNROLLED_ITEMS: usize = 16;

/// How many calls deep the bodies of the program's own functions are followed.
pub const MAX_INLINE_DEPTH: u32 = 5;

/// Tree nodes visited in one assessment past which loops are no longer unrolled, calls no
/// longer inlined and comprehensions no longer folded (the plain walk always finishes).
pub const WORK_BUDGET_NODES: usize = 200_000;

/// How many levels of `exec("...constant code...")` are analysed as code.
pub const MAX_NESTED_SOURCES: u32 = 2;

/// Bytes of constant code strings re-analysed in one assessment.
pub const NESTED_SOURCE_BUDGET: usize = 256 * 1024;

/// Longest dotted name (`os.path.join`) the resolver tracks.
pub const MAX_QUALIFIED_NAME: usize = 128;

/// Findings kept per rule, and in total; the score counts only kept findings.
pub const MAX_FINDINGS_PER_RULE: usize = 16;
pub const MAX_FINDINGS: usize = 128;

/// Most binary operators chained in one expression (`a + b + c ...`). The tree of such a
/// chain is left-deep; the scanner walks it iteratively, so only dropping the tree
/// recurses through it, at about 100 bytes of stack per level in a debug build.
pub const MAX_FLAT_RUN: u32 = 4096;

/// Estimates the nesting depth of `source` from its tokens alone and reports whether it
/// stays within [`MAX_NESTING`] (and [`MAX_FLAT_RUN`]). Stops lexing as soon as a limit
/// is passed.
pub fn nesting_within_limit(source: &str) -> bool {
    let mut estimate = NestingEstimate::default();
    let mut within = true;
    shape_tokens(source, |shape| {
        within = estimate.push(shape);
        within
    });
    within
}

/// Whether `source`'s estimated nesting stays within `cap` (past [`MAX_NESTING`], so it is
/// too deep to walk, but shallow enough that parsing it to find the deep parts is cheap:
/// ruff's parser spends about a kilobyte of heap per level).
pub fn nesting_within(source: &str, cap: u32) -> bool {
    let mut estimate = NestingEstimate::default();
    let mut within = true;
    shape_tokens(source, |shape| {
        estimate.push(shape);
        within = estimate.depth() <= cap && estimate.flat_total <= MAX_FLAT_RUN * 4;
        within
    });
    within
}

/// Deepest estimated nesting at which a program too large to parse first is still parsed
/// to find its deep parts.
pub const PARSEABLE_NESTING: u32 = 4096;

/// The same estimate over the tokens the parser read for `module`.
pub fn parsed_nesting_within_limit(module: &Module) -> bool {
    parsed_nesting(module).is_some()
}

/// `None` past the limits; otherwise whether some flat chain is longer than
/// [`SMALL_STACK_FLAT_RUN`], so that the tree must be dropped with [`drop_deep_tree`].
pub fn parsed_nesting(module: &Module) -> Option<bool> {
    let mut estimate = NestingEstimate::default();
    let mut longest = 0;
    for shape in module.shapes() {
        if !estimate.push(shape) {
            return None;
        }
        longest = longest.max(estimate.flat_total);
    }
    Some(longest > SMALL_STACK_FLAT_RUN)
}

/// Longest flat chain whose tree is dropped on the caller's stack (about 100 bytes a
/// level in a debug build, well within a 256 KiB stack).
pub const SMALL_STACK_FLAT_RUN: u32 = 256;

/// Drops the tree of a program past [`MAX_NESTING`] on a thread whose stack its
/// recursive drop fits in. Should no thread start, the tree is leaked rather than risk
/// overflowing the caller's stack (logged: it means the process is out of threads).
pub fn drop_deep_tree(module: Module) {
    let (hand_over, receive) = std::sync::mpsc::sync_channel::<Module>(1);
    let dropper = std::thread::Builder::new()
        .name("cordon-deep-drop".into())
        .stack_size(DEEP_DROP_STACK_BYTES)
        .spawn(move || drop(receive.recv()));
    match dropper {
        Ok(handle) => {
            if let Err(returned) = hand_over.send(module) {
                std::mem::forget(returned.0);
            }
            let _ = handle.join();
        }
        Err(error) => {
            tracing::error!(%error, "no thread to drop a too-deep program's tree; leaking it");
            std::mem::forget(module);
        }
    }
}

/// Running depth estimate: indentation + open brackets + chained operators in the
/// current sibling segment at every open bracket level; binary operators after an operand
/// (a flat, left-deep chain) are counted apart.
struct NestingEstimate {
    indent: u32,
    /// Chained operators and flat operators per open level (index 0 is the logical line).
    levels: Vec<(u32, u32)>,
    chain_total: u32,
    flat_total: u32,
    /// The last significant token ended an operand, so `+`/`-`/`not` next are binary.
    after_operand: bool,
}

impl Default for NestingEstimate {
    fn default() -> Self {
        NestingEstimate {
            indent: 0,
            levels: vec![(0, 0)],
            chain_total: 0,
            flat_total: 0,
            after_operand: false,
        }
    }
}

impl NestingEstimate {
    /// Takes `shape` in; false once a limit is passed.
    fn push(&mut self, shape: Shape) -> bool {
        let after_operand = std::mem::replace(&mut self.after_operand, false);
        match shape {
            Shape::Open => {
                self.add(true);
                self.levels.push((0, 0));
            }
            Shape::Close if self.levels.len() > 1 => {
                let (chain, flat) = self.levels.pop().unwrap_or_default();
                self.chain_total -= chain;
                self.flat_total -= flat;
                self.after_operand = true;
            }
            Shape::Close | Shape::Operand => self.after_operand = true,
            Shape::Comma => self.reset_segment(),
            Shape::LineEnd => self.reset_line(),
            Shape::Indent => self.indent += 1,
            Shape::Dedent => self.indent = self.indent.saturating_sub(1),
            Shape::Chain => self.add(true),
            Shape::Arith => self.add(!after_operand),
            Shape::Flat => {}
            Shape::Other => self.after_operand = after_operand,
        }
        self.within()
    }

    /// Whether taking `shape` in would pass a limit.
    fn would_pass(&self, shape: Shape) -> bool {
        match shape {
            Shape::Open => self.depth() + 2 > MAX_NESTING,
            Shape::Indent | Shape::Chain => self.depth() + 1 > MAX_NESTING,
            Shape::Arith if self.after_operand => self.flat_total + 1 > MAX_FLAT_RUN,
            Shape::Arith => self.depth() + 1 > MAX_NESTING,
            _ => false,
        }
    }

    fn within(&self) -> bool {
        self.depth() <= MAX_NESTING && self.flat_total <= MAX_FLAT_RUN
    }

    /// One more nesting operator (`chain`) or flat operator in the current segment.
    fn add(&mut self, chain: bool) {
        if let Some(last) = self.levels.last_mut() {
            if chain {
                last.0 += 1;
                self.chain_total += 1;
            } else {
                last.1 += 1;
                self.flat_total += 1;
            }
        }
    }

    fn reset_segment(&mut self) {
        if let Some(last) = self.levels.last_mut() {
            self.chain_total -= last.0;
            self.flat_total -= last.1;
            *last = (0, 0);
        }
    }

    /// A logical line ends only at bracket level 0; unbalanced input resets too.
    fn reset_line(&mut self) {
        self.levels.clear();
        self.levels.push((0, 0));
        self.chain_total = 0;
        self.flat_total = 0;
    }

    fn depth(&self) -> u32 {
        let brackets = self.levels.len().saturating_sub(1) as u32;
        self.indent
            .saturating_add(brackets)
            .saturating_add(self.chain_total)
    }
}

/// A part of the source left out because it nests past the limits, and how to leave it
/// out: a bracket or an operator chain is blanked; an indented block becomes `0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeepRegion {
    pub range: std::ops::Range<u32>,
    pub block: bool,
}

/// What is being skipped while finding deep regions.
enum Skip {
    None,
    /// Inside a bracket opened past the limit, `depth` brackets deep.
    Bracket {
        start: u32,
        depth: u32,
    },
    /// The rest of an operator chain past the limit, until its segment ends.
    Segment {
        start: u32,
        depth: u32,
    },
    /// An indented block past the limit, `depth` indents deep.
    Block {
        start: u32,
        depth: u32,
    },
}

/// The parts of a program that nest past [`MAX_NESTING`] or chain past [`MAX_FLAT_RUN`]:
/// everything else stays within the limits once they are left out.
pub fn deep_regions(
    tokens: impl Iterator<Item = (Shape, std::ops::Range<u32>)>,
) -> Vec<DeepRegion> {
    let mut estimate = NestingEstimate::default();
    let mut regions = Vec::new();
    let mut skip = Skip::None;
    let mut end = 0;
    for (shape, range) in tokens {
        end = range.end;
        skip = match skip {
            Skip::None if estimate.would_pass(shape) => match shape {
                Shape::Open => Skip::Bracket {
                    start: range.start,
                    depth: 1,
                },
                Shape::Indent => Skip::Block {
                    start: range.end,
                    depth: 1,
                },
                _ => Skip::Segment {
                    start: range.start,
                    depth: 0,
                },
            },
            Skip::None => {
                estimate.push(shape);
                Skip::None
            }
            Skip::Bracket { start, depth } => match shape {
                Shape::Open => Skip::Bracket {
                    start,
                    depth: depth + 1,
                },
                Shape::Close if depth == 1 => {
                    regions.push(DeepRegion {
                        range: start..range.end,
                        block: false,
                    });
                    estimate.after_operand = true;
                    Skip::None
                }
                Shape::Close => Skip::Bracket {
                    start,
                    depth: depth - 1,
                },
                _ => Skip::Bracket { start, depth },
            },
            Skip::Segment { start, depth } => match shape {
                Shape::Open => Skip::Segment {
                    start,
                    depth: depth + 1,
                },
                Shape::Close if depth > 0 => Skip::Segment {
                    start,
                    depth: depth - 1,
                },
                Shape::Close | Shape::Comma | Shape::LineEnd if depth == 0 => {
                    regions.push(DeepRegion {
                        range: start..range.start,
                        block: false,
                    });
                    estimate.push(shape);
                    Skip::None
                }
                _ => Skip::Segment { start, depth },
            },
            Skip::Block { start, depth } => match shape {
                Shape::Indent => Skip::Block {
                    start,
                    depth: depth + 1,
                },
                Shape::Dedent if depth == 1 => {
                    regions.push(DeepRegion {
                        range: start..range.start,
                        block: true,
                    });
                    Skip::None
                }
                Shape::Dedent => Skip::Block {
                    start,
                    depth: depth - 1,
                },
                _ => Skip::Block { start, depth },
            },
        };
    }
    match skip {
        Skip::None => {}
        Skip::Bracket { start, .. } | Skip::Segment { start, .. } => regions.push(DeepRegion {
            range: start..end,
            block: false,
        }),
        Skip::Block { start, .. } => regions.push(DeepRegion {
            range: start..end,
            block: true,
        }),
    }
    regions
}

/// `source` with `regions` left out, byte for byte (line ends kept, so every offset and
/// line number still points at the same code): blanked to spaces, and a block's first
/// byte made `0` so that its header keeps a body.
pub fn without_regions(source: &str, regions: &[DeepRegion]) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for region in regions {
        let start = (region.range.start as usize).min(bytes.len());
        let mut stop = (region.range.end as usize).clamp(start, bytes.len());
        if region.block {
            // Up to the line end before the dedent: the next line keeps its indentation.
            stop = bytes[start..stop]
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(stop, |i| start + i);
        }
        for byte in &mut bytes[start..stop] {
            if !matches!(*byte, b'\n' | b'\r') {
                *byte = b' ';
            }
        }
        if region.block && start < stop {
            bytes[start] = b'0';
        }
    }
    // Only whole tokens were blanked and only ASCII written, so the text stays UTF-8.
    String::from_utf8(bytes).unwrap_or_default()
}

/// For a program too large to parse first: its top-level statements (approximately: lines
/// starting at column 0 outside triple-quoted strings), each of which can be checked on
/// its own.
pub fn top_level_chunks(source: &str) -> Vec<std::ops::Range<u32>> {
    let mut chunks = Vec::new();
    let mut start = 0usize;
    let mut offset = 0usize;
    let mut in_triple: Option<&'static str> = None;
    for line in source.split_inclusive('\n') {
        let begins = in_triple.is_none()
            && line.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '@');
        if begins && offset > start {
            chunks.push(start as u32..offset as u32);
            start = offset;
        }
        in_triple = triple_quote_after(line, in_triple);
        offset += line.len();
    }
    if offset > start {
        chunks.push(start as u32..offset as u32);
    }
    chunks
}

/// Finds where nesting first passes the limit, by counting raw brackets and leading
/// indentation per line. Only used to place the "too deeply nested" finding.
pub fn deep_spot(source: &str) -> u32 {
    let mut brackets: i64 = 0;
    let mut offset = 0u32;
    for line in source.split_inclusive('\n') {
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        if indent as u32 / 4 > MAX_NESTING {
            return offset;
        }
        for (i, byte) in line.bytes().enumerate() {
            match byte {
                b'(' | b'[' | b'{' => brackets += 1,
                b')' | b']' | b'}' => brackets -= 1,
                _ => continue,
            }
            if brackets > MAX_NESTING as i64 {
                return offset + i as u32;
            }
        }
        offset += line.len() as u32;
    }
    0
}

/// Whether a line-by-line reader is inside a triple-quoted string after `line`, given
/// whether it was before (the quote that opened it).
pub(super) fn triple_quote_after(
    line: &str,
    mut in_triple: Option<&'static str>,
) -> Option<&'static str> {
    for quote in ["\"\"\"", "'''"] {
        if line.matches(quote).count() % 2 == 1 {
            in_triple = match in_triple {
                Some(q) if q == quote => None,
                None => Some(quote),
                other => other,
            };
        }
    }
    in_triple
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_code_is_within_the_limit() {
        // A realistic nested literal and formula stay far below the limit.
        let src =
            "data = {'a': [1, 2, (3, 4)], 'b': {'c': [[5], [6]]}}\ny = (a + b) * (c - d) / e\n";
        assert!(nesting_within_limit(src));
    }

    #[test]
    fn long_flat_lists_do_not_count_as_depth() {
        // Commas reset the operator chain, so a 10 000-element list of negatives is flat.
        let src = format!("x = [{}]\n", "-1, ".repeat(10_000));
        assert!(nesting_within_limit(&src));
    }

    #[test]
    fn chained_operators_count_as_depth() {
        // `1+1+...` builds a left-deep tree without any bracket, so it must be counted.
        let src = format!("x = 1{}\n", "+1".repeat(5_000));
        assert!(!nesting_within_limit(&src));
    }

    #[test]
    fn call_chains_count_as_depth() {
        // `f()()()...` nests calls without ever being more than one bracket deep.
        let src = format!("f{}\n", "()".repeat(5_000));
        assert!(!nesting_within_limit(&src));
    }

    #[test]
    fn brackets_in_strings_do_not_hide_real_nesting() {
        // Closing brackets inside a string literal cannot cancel real open brackets.
        let src = format!(
            "{}')))))'{}1{}",
            "(".repeat(150),
            "(".repeat(150),
            ")".repeat(300)
        );
        assert!(!nesting_within_limit(&src));
    }

    #[test]
    fn deep_spot_points_into_the_bracket_run() {
        // The finding's location is where the raw bracket count passes the limit.
        let src = format!("x = 1\ny = {}", "(".repeat(1_000));
        assert_eq!(
            deep_spot(&src) as usize,
            "x = 1\ny = ".len() + MAX_NESTING as usize
        );
    }
}
