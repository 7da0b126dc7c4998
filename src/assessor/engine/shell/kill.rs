//! Which processes a `kill` command signals: a pid written as a number (`-1` is every
//! process, `0` the process group, `1` init), one from a command substitution (no pid
//! written at all) or from an unknown variable is someone else's; `$$`, `$!`, job specs
//! (`%1`) and variables set from them are the line's own.
//!
//! Part of `shell` (called by `analyse_into` and `Simple::check_by_name`).

use super::{Pipeline, Token};

/// Whether `kill ARGS` signals a process the line did not start; `own_pids` are the
/// line's variables that hold one of its own pids.
pub(super) fn signals_others(args: &[&str], own_pids: &[String]) -> bool {
    let mut pids = Vec::new();
    let mut signal = None;
    let mut options_done = false;
    let mut args = args.iter().copied();
    while let Some(arg) = args.next() {
        let option = !options_done && arg.starts_with('-') && arg.len() > 1;
        match arg {
            _ if !option => pids.push(arg),
            "--" => options_done = true,
            "-l" | "-L" | "--list" | "--table" => return false,
            "-s" | "-n" | "--signal" => signal = args.next(),
            _ if signal.is_none() => signal = Some(arg.trim_start_matches("--signal=")),
            // After the signal, `-1` is a pid: every process there is.
            _ => pids.push(arg),
        }
    }
    let probe = signal.is_some_and(|s| s.trim_start_matches('-') == "0");
    !probe && (pids.is_empty() || pids.iter().any(|pid| !is_own_pid(pid, own_pids)))
}

/// `$$` (the shell), `$!` (its last background child), a job spec, or a variable that
/// holds one of those; `-PID` is the process group that pid leads.
fn is_own_pid(word: &str, own_pids: &[String]) -> bool {
    const OWN: &[&str] = &["$$", "$!", "${!}", "${$}", "$BASHPID", "${BASHPID}"];
    let word = word.strip_prefix('-').unwrap_or(word);
    let variable = word
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| word.strip_prefix('$'));
    OWN.contains(&word)
        || word.starts_with('%')
        || variable.is_some_and(|v| own_pids.iter().any(|own| own == v))
}

/// The variables a line sets to one of its own pids (`pid=$!`).
pub(super) fn own_pid_variables(pipelines: &[Pipeline]) -> Vec<String> {
    let words = pipelines
        .iter()
        .flat_map(|p| p.commands.iter().flatten())
        .filter_map(|token| match token {
            Token::Word(word) => word.split_once('='),
            _ => None,
        });
    words
        .filter(|(name, value)| is_name(name) && is_own_pid(value, &[]))
        .map(|(name, _)| name.to_string())
        .collect()
}

fn is_name(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
