//! Shell functions in a command line (`name() { body }`, `function name { body }`) and
//! whether one is a fork bomb: its body runs the function itself twice, or in a pipe or
//! the background.
//!
//! Part of `shell` (called by `analyse_into` for each line it reads).

use super::{split_pipelines, Simple};

/// Whether `line` defines a function that runs itself more than once per call.
pub(super) fn defines_fork_bomb(line: &str) -> bool {
    functions(line)
        .iter()
        .any(|(name, body)| runs_itself_more_than_once(name, body))
}

/// Shell functions `line` defines (`name() { body }`, `function name { body }`, or a
/// `( body )` subshell body), each with its body; quoted text defines none.
fn functions(line: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = line.chars().collect();
    let mut found = Vec::new();
    // Each body is looked for to the end of the line at worst: a bounded number of
    // looks keeps a line of unclosed `f(){` linear.
    let mut looks_left = MAX_BODIES_LOOKED_FOR;
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '\\' => i += 1,
            None if starts_word(&chars, i) => {
                if let Some((name, body, end)) = definition_at(&chars, i, &mut looks_left) {
                    found.push((name, body));
                    i = end;
                    continue;
                }
            }
            None => {}
        }
        i += 1;
    }
    found
}

/// Most function bodies looked for in one line.
const MAX_BODIES_LOOKED_FOR: usize = 64;

/// Characters that end a shell word outside quotes.
const WORD_ENDS: &[char] = &[
    ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>', '{', '}', '\'', '"',
];

fn starts_word(chars: &[char], i: usize) -> bool {
    !WORD_ENDS.contains(&chars[i]) && (i == 0 || WORD_ENDS.contains(&chars[i - 1]))
}

/// A function definition starting at `chars[i]`: its name, its body, and where it ends.
fn definition_at(
    chars: &[char],
    i: usize,
    looks_left: &mut usize,
) -> Option<(String, String, usize)> {
    let (mut word, mut next) = word_at(chars, i);
    let keyword = word == "function";
    if keyword {
        (word, next) = word_at(chars, skip_blanks(chars, next));
    }
    let mut at = skip_blanks(chars, next);
    let parens = chars.get(at) == Some(&'(');
    if parens {
        at = skip_blanks(chars, at + 1);
        if chars.get(at) != Some(&')') {
            return None;
        }
        at = skip_blanks(chars, at + 1);
    }
    if word.is_empty() || !(keyword || parens) || *looks_left == 0 {
        return None;
    }
    *looks_left -= 1;
    let close = matching(chars, at)?;
    let body = chars[at + 1..close].iter().collect();
    Some((word, body, close + 1))
}

fn word_at(chars: &[char], i: usize) -> (String, usize) {
    let end = chars[i.min(chars.len())..]
        .iter()
        .position(|c| WORD_ENDS.contains(c))
        .map_or(chars.len(), |n| i + n);
    (chars[i.min(end)..end].iter().collect(), end)
}

fn skip_blanks(chars: &[char], i: usize) -> usize {
    chars[i.min(chars.len())..]
        .iter()
        .position(|c| !c.is_whitespace())
        .map_or(chars.len(), |n| i + n)
}

/// Where the `{` or `(` at `open` closes, nesting and quotes taken into account.
fn matching(chars: &[char], open: usize) -> Option<usize> {
    let (opener, closer) = match chars.get(open) {
        Some('{') => ('{', '}'),
        Some('(') => ('(', ')'),
        _ => return None,
    };
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut i = open;
    while let Some(&c) = chars.get(i) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '\\' => i += 1,
            None if c == opener => depth += 1,
            None if c == closer => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            None => {}
        }
        i += 1;
    }
    None
}

/// A function body that runs the function itself twice or more, or in a pipe or the
/// background: each call starts copies that do the same, a fork bomb.
fn runs_itself_more_than_once(name: &str, body: &str) -> bool {
    let mut calls = 0;
    for pipeline in split_pipelines(body) {
        let piped = pipeline.commands.len() > 1;
        for command in &pipeline.commands {
            if Simple::new(command).name != name {
                continue;
            }
            if piped || pipeline.background {
                return true;
            }
            calls += 1;
        }
    }
    calls >= 2
}
