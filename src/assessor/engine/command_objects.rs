//! Command objects of the `sh` and `plumbum` libraries: `sh.rm("-rf", p)`,
//! `sh.sudo.bake("-n").systemctl("restart", svc)`, `local["curl"][url] & FG`. Each is a
//! program name with the arguments baked into it, run as an argv when it is called.
//!
//! Called by `scan` (names, attributes, items, `&`/`|`) and `calls` (calls).

use std::rc::Rc;

use super::calls::Args;
use super::parser::BinOp;
use super::process_calls::{command_line, process};
use super::scan::Scanner;
use super::value::{piece, Kind, Piece, Taint, Value};

/// The name a command object is kept under, bound to its argv words.
const COMMAND: &str = "command object";

/// The name prefix a command object's method is kept under, bound to the command.
const COMMAND_METHOD: &str = "command object method:";

/// Names of the `sh` module that are its own API, not programs.
const SH_API: &[&str] = &[
    "Command",
    "CommandNotFound",
    "ErrorReturnCode",
    "RunningCommand",
    "SignalException",
    "TimeoutException",
    "ForkException",
    "contrib",
    "glob",
    "pushd",
    "args",
];

/// Methods of a command object that run it (plumbum's `run`, `popen`...).
const RUNS: &[&str] = &[
    "run",
    "popen",
    "run_fg",
    "run_bg",
    "run_tee",
    "run_retcode",
    "run_nohup",
];

/// The command object a dotted name stands for: `sh.rm`, `sh.git.push`,
/// `plumbum.cmd.curl`, `plumbum.local.cmd.rm`.
pub(super) fn named(name: &str) -> Option<Value> {
    // `sh.contrib.sudo`, `sh.contrib.git`: the same programs with friendlier defaults.
    let name = match name.strip_prefix("sh.contrib.") {
        Some(program) => format!("sh.{program}"),
        None => name.to_string(),
    };
    let words = match name.strip_prefix("sh.") {
        Some(rest) => {
            let first = rest.split('.').next().unwrap_or(rest);
            if SH_API.contains(&first) || first.starts_with("ErrorReturnCode") {
                return None;
            }
            rest
        }
        None => name
            .strip_prefix("plumbum.cmd.")
            .or_else(|| name.strip_prefix("plumbum.local.cmd."))?,
    };
    let words = words.split('.').map(word).collect();
    Some(command(words))
}

/// `sh.Command(path)`, `plumbum.local.get(name)`, `local.which(name)`: the command object
/// for that program.
pub(super) fn created(name: &str, args: &Args<'_>) -> Option<Value> {
    match name {
        "sh.Command"
        | "plumbum.local.get"
        | "plumbum.machines.local.get"
        | "plumbum.local.which"
        | "plumbum.machines.local.which" => Some(command(vec![args.positional.first()?.clone()])),
        _ => None,
    }
}

/// `local["rm"]`, `cmd["-rf", "/"]`: a command object with the key as program or as
/// arguments.
pub(super) fn item(container: &Value, key: &Value) -> Option<Value> {
    if !matches!(container.kind, Kind::Name(_) | Kind::Partial(_)) {
        return None;
    }
    let keys = key
        .items()
        .map_or_else(|| vec![key.clone()], <[Value]>::to_vec);
    match &container.kind {
        Kind::Name(name) if matches!(&**name, "plumbum.local" | "plumbum.machines.local") => {
            Some(command(keys))
        }
        _ => Some(command([words(container)?, &keys].concat())),
    }
}

/// `cmd.bake`, `cmd.run`, or (`sh`) a subcommand: `sh.git.push`, `sudo.systemctl`.
pub(super) fn attribute(object: &Value, attr: &str) -> Option<Value> {
    let words = words(object)?;
    if attr == "bake" || RUNS.contains(&attr) {
        let name = Value::name(&format!("{COMMAND_METHOD}{attr}"));
        return Some(partial(name, vec![object.clone()]));
    }
    Some(command([words, &[word(attr)]].concat()))
}

/// Calls a command object, or one of its methods, kept under `name` with `bound`; `None`
/// for any other kept partial.
pub(super) fn call(
    s: &mut Scanner<'_>,
    name: &str,
    bound: &[Value],
    args: &Args<'_>,
    at: u32,
) -> Option<Value> {
    let given = || arguments(args);
    match (name, bound) {
        (COMMAND, words) => Some(run(s, [words, &given()].concat(), args, at)),
        (method, [object]) if method.starts_with(COMMAND_METHOD) => {
            let words = [words(object)?, &given()].concat();
            Some(match &method[COMMAND_METHOD.len()..] {
                "bake" => command(words),
                _ => run(s, words, args, at),
            })
        }
        _ => None,
    }
}

/// `cmd & FG` (or `BG`, `TF`, `RETCODE`) runs the command; `a | b` is a pipeline, read as
/// the shell line `a | b`; `cmd << data` is the command fed `data`.
pub(super) fn binary(
    s: &mut Scanner<'_>,
    left: &Value,
    op: BinOp,
    right: &Value,
    at: u32,
) -> Option<Value> {
    let words = words(left)?.to_vec();
    match op {
        BinOp::BitAnd => {
            let none = Args {
                positional: Vec::new(),
                keywords: Vec::new(),
            };
            Some(run(s, words, &none, at))
        }
        BinOp::BitOr => {
            let right = self::words(right)?.to_vec();
            let (left, right) = (s.folder.seq(words), s.folder.seq(right));
            let (left, right) = (command_line(s, &left), command_line(s, &right));
            let line = s.folder.join(
                [piece(&left), Piece::Known(" | "), piece(&right)],
                Taint::NONE,
            );
            let shell = [s.folder.literal("sh"), s.folder.literal("-c"), line];
            Some(command(shell.to_vec()))
        }
        // `crontab["-"] << table`: the same command, given its input.
        BinOp::LShift => Some(command(words)),
        _ => None,
    }
}

/// A word of a command line written in the program (a name or attribute).
fn word(text: &str) -> Value {
    Value {
        kind: Kind::Text {
            text: text.into(),
            exact: true,
        },
        taint: Taint::NONE,
    }
}

fn command(words: Vec<Value>) -> Value {
    partial(Value::name(COMMAND), words)
}

fn partial(function: Value, bound: Vec<Value>) -> Value {
    Value {
        kind: Kind::Partial(Rc::new((function, bound))),
        taint: Taint::NONE,
    }
}

/// The argv words of a command object.
fn words(value: &Value) -> Option<&[Value]> {
    match &value.kind {
        Kind::Partial(partial) if partial.0.qualified_name() == Some(COMMAND) => Some(&partial.1),
        _ => None,
    }
}

/// A call's arguments as argv words: lists are spread (`sh.ls(["-l", d])`); keywords are
/// the library's options (`_bg=True`), not words.
fn arguments(args: &Args<'_>) -> Vec<Value> {
    let spread = |v: &Value| v.items().map_or_else(|| vec![v.clone()], <[Value]>::to_vec);
    args.positional.iter().flat_map(spread).collect()
}

/// Runs `words` as an argv; `_in=data` is what the program reads on stdin.
fn run(s: &mut Scanner<'_>, words: Vec<Value>, args: &Args<'_>, at: u32) -> Value {
    let argv = s.folder.seq(words);
    let mut keywords = Vec::new();
    if let Some(input) = args.keyword("_in") {
        keywords.push((Some("input"), input.clone()));
    }
    let run_args = Args {
        positional: vec![argv],
        keywords,
    };
    process(s, &run_args, at)
}
