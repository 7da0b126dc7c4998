//! The assessor's safety limits: how big and how deeply nested a program may be before it
//! is refused, and the budgets that keep constant folding and nested analysis bounded.
//!
//! The tree ruff builds is dropped recursively, so its nesting is checked before anything
//! walks or drops it: a program up to [`PARSE_FIRST_BYTES`] is parsed first and checked
//! from the parser's own tokens (a too-deep tree is dropped on a thread with a large
//! stack); a larger one is lexed first and never parsed when too deep.

use super::parser::{shape_tokens, Module, Shape};

/// Largest program analysed, bytes (matches `caps.max_code_bytes`).
pub const MAX_SOURCE_BYTES: usize = 1 << 20;

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

/// Most elements a folded list or tuple keeps (long enough for `chr` code lists).
pub const MAX_FOLDED_ITEMS: usize = 4096;

/// Most iterations a `for` loop over a known list is unrolled for.
pub const MAX_UNROLLED_ITEMS: usize = 16;

/// How many calls deep the bodies of the program's own functions are followed.
pub const MAX_INLINE_DEPTH: u32 = 3;

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

/// Estimates the nesting depth of `source` from its tokens alone and reports whether it
/// stays within [`MAX_NESTING`]. Stops lexing as soon as the limit is passed.
pub fn nesting_within_limit(source: &str) -> bool {
    let mut estimate = NestingEstimate::default();
    let mut within = true;
    shape_tokens(source, |shape| {
        within = estimate.push(shape) <= MAX_NESTING;
        within
    });
    within
}

/// The same estimate over the tokens the parser read for `module`.
pub fn parsed_nesting_within_limit(module: &Module) -> bool {
    let mut estimate = NestingEstimate::default();
    module
        .shapes()
        .all(|shape| estimate.push(shape) <= MAX_NESTING)
}

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
/// current sibling segment at every open bracket level.
struct NestingEstimate {
    indent: u32,
    /// Chained operators per open level (index 0 is the logical line itself).
    chains: Vec<u32>,
    chain_total: u32,
}

impl Default for NestingEstimate {
    fn default() -> Self {
        NestingEstimate {
            indent: 0,
            chains: vec![0],
            chain_total: 0,
        }
    }
}

impl NestingEstimate {
    /// The estimate after `shape` (most tokens are `Other` and change nothing).
    fn push(&mut self, shape: Shape) -> u32 {
        match shape {
            Shape::Open => {
                self.add_chain();
                self.chains.push(0);
            }
            Shape::Close if self.chains.len() > 1 => {
                let closed = self.chains.pop().unwrap_or(0);
                self.chain_total -= closed;
            }
            Shape::Comma => self.reset_segment(),
            Shape::LineEnd => self.reset_line(),
            Shape::Indent => self.indent += 1,
            Shape::Dedent => self.indent = self.indent.saturating_sub(1),
            Shape::Chain => self.add_chain(),
            Shape::Close | Shape::Other => {}
        }
        self.depth()
    }

    fn add_chain(&mut self) {
        if let Some(last) = self.chains.last_mut() {
            *last += 1;
            self.chain_total += 1;
        }
    }

    fn reset_segment(&mut self) {
        if let Some(last) = self.chains.last_mut() {
            self.chain_total -= *last;
            *last = 0;
        }
    }

    /// A logical line ends only at bracket level 0; unbalanced input resets too.
    fn reset_line(&mut self) {
        self.chains.clear();
        self.chains.push(0);
        self.chain_total = 0;
    }

    fn depth(&self) -> u32 {
        let brackets = self.chains.len().saturating_sub(1) as u32;
        self.indent
            .saturating_add(brackets)
            .saturating_add(self.chain_total)
    }
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
