//! The Assessor's static analysis of untrusted Python, with no I/O: decides LOW / MEDIUM /
//! HIGH / BLOCKED with findings that say why.
//!
//! # Layout
//! - `pipeline`: `assess`, the pipeline for one program (re-exported here).
//! - `source_text`: a file's bytes to the text Python would read (PEP 263), or not text.
//! - `input_limits`: size and nesting limits checked before parsing, folding budgets.
//! - `parser`: the only ruff-facing code: recovering parse and small views over the tree.
//! - `scan`: walks the tree, binds names as Python would, evaluates expressions.
//! - `calls`: applies the rules to each call; `process_calls`, `files` and `methods` hold
//!   the program-start, file and method-call parts of that.
//! - `command_objects`: `sh` and `plumbum` command objects, run as argvs when called.
//! - `classes`: the program's classes and the code that runs as one is created.
//! - `forks`: fork bombs: loops and functions that start processes without end.
//! - `containers`: lists and dicts filled at run time (`d[k] = f`, `append`, `update`).
//! - `queues`: what producers put in queues is what the workers started on them get.
//! - `flow`: values followed through assignments and the program's own functions.
//! - `value`: what is known about a value: dotted name, folded text, taint.
//! - `fold`: `%`/`format` substitution and hex/base64/rot13 decoding of constants.
//! - `catalog`: which library names are which APIs; module aliases; constants.
//! - `shell`: what a shell command line does; `pickle`: what a constant pickle imports.
//! - `paths`, `indicators`: system, secret, persistence and escape paths; indicator strings.
//! - `combine`: rules that need two capabilities together (reverse shell, exfiltration).
//! - [`rules`]: the rule table, as data (`docs/rules.md` is written from it).
//! - `findings`: hits to `Finding`s: positions, snippets, origin downgrade, score.
//! - [`policy`]: weights, thresholds and known-threat signatures, and their matcher.

mod calls;
mod catalog;
mod classes;
mod combine;
mod command_objects;
mod containers;
mod files;
pub(crate) mod findings;
mod flow;
mod fold;
mod forks;
mod indicators;
pub(crate) mod input_limits;
mod methods;
mod parser;
mod paths;
mod pickle;
mod pipeline;
pub(crate) mod policy;
mod process_calls;
mod queues;
pub mod rules;
pub(crate) mod scan;
mod shell;
mod source_text;
mod value;

pub use pipeline::{assess, assess_with, normalised_code_sha256, not_python_source};
pub use policy::Policy;
pub use source_text::{decode_source, SourceText};

#[cfg(test)]
mod tests;
