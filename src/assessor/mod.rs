//! The Assessor: decides LOW / MEDIUM / HIGH / BLOCKED for untrusted Python before any of
//! it runs, with findings that say why. Three parts:
//!
//! # Layout
//! - [`engine`]: the analysis itself, with no I/O: parser adapter, scan, rules, scoring.
//! - the NATS actor ([`actor`]), request validation ([`validate`]) and operator overrides
//!   ([`grant`]: signed grants; [`overrides`]: the override actor loop).
//! - [`report`]: what `cordon assess` prints (text, JSON, SARIF), the optional external
//!   analysers (Bandit, Semgrep), and `docs/rules.md`.
//!
//! The actor and the reports call the engine only through [`assess`] / [`assess_with`].

pub(crate) mod actor;
pub mod engine;
pub mod grant;
pub(crate) mod overrides;
pub(crate) mod report;
pub(crate) mod validate;

pub use engine::{assess, assess_with, normalised_code_sha256, Policy};
