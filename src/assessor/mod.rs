//! The Assessor's static analysis of untrusted Python: decides LOW / MEDIUM / HIGH /
//! BLOCKED before any code runs, with findings that say why.
//!
//! # Layout
//! - `engine`: `assess`, the pipeline for one program (re-exported here).
//! - `limits`: size and nesting limits checked before parsing, folding budgets.
//! - `parser`: the only ruff-facing code: recovering parse and small views over the tree.
//! - `scan`: walks the tree, binds names as Python would, evaluates expressions.
//! - `calls`: applies the rules to each call; `commands`, `files` and `methods` hold the
//!   program-start, file and method-call parts of that.
//! - `value`: what is known about a value: dotted name, folded text, taint.
//! - `fold`: `%`/`format` substitution and hex/base64/rot13 decoding of constants.
//! - `catalog`: which library names are which APIs; module aliases; constants.
//! - `shell`: what a shell command line does.
//! - `paths`: system, secret, persistence and escape paths; indicator strings.
//! - `combine`: rules that need two capabilities together (reverse shell, exfiltration).
//! - [`rules`]: the rule table, as data (`docs/rules.md` is written from it).
//! - `report`: hits to `Finding`s: positions, snippets, origin downgrade, score.
//!
//! The NATS actor and request validation (`actor`, `validate`) sit beside these and call
//! only [`assess`].

pub mod actor;
mod calls;
mod catalog;
mod combine;
mod commands;
#[cfg(test)]
mod docs;
mod engine;
pub mod external;
mod files;
mod flow;
mod fold;
pub mod grant;
mod indicators;
mod limits;
mod methods;
pub mod output;
pub mod override_grant;
mod parser;
mod paths;
pub mod policy;
mod report;
pub mod rules;
mod scan;
mod shell;
pub mod validate;
mod value;

pub use engine::{assess, assess_with, normalised_code_sha256};
pub use policy::Policy;

#[cfg(test)]
mod tests;
