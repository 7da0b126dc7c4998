//! The ContainerSupervisor's Docker side: container lifecycle over bollard, hardening,
//! output caps, and the reaper. The supervisor actor (NATS glue) calls `run_program` once
//! per scheduled job (sessions keep an `InterpreterSandbox` across jobs) and
//! `reaper::reap_orphans` at startup; everything here keeps one invariant: every container
//! it creates is removed, whatever happens to the run.
//!
//! - `spec`: `SandboxSpec`, `Lifecycle`, `SandboxOutcome`.
//! - `hardening`: the container configuration (pure).
//! - `seccomp`: cordon's own seccomp profile, stricter than Docker's default (pure).
//! - `sandbox`: `run_program`, from create to removal, and the Docker steps it takes.
//! - `ending`: killing a sandbox, and what the way it ended means.
//! - `output`: output caps and reading a full disk from stderr (pure).
//! - `guard`: removal when the run is cancelled.
//! - `changes`: the sandbox's filesystem changes (`docker diff`) before removal, bounded.
//! - `reaper`: `force_remove`, `reap_orphans` (owners provably gone) and `remove_own`.
//! - `pool`: warm sandboxes made ahead of their jobs, one job each.
//! - `uids`: a uid of its own for every sandbox, held while its container exists.
//! - `runner` (+ `runner.py`): the interpreter runner and its wire format (pure).
//! - `interpreter`: a sandbox running the runner, fed cells one at a time.
//! - `sessions`: the sessions this host holds, each a task owning one such sandbox.

pub(crate) mod actor;
pub mod changes;
mod ending;
mod guard;
pub mod hardening;
mod init_process;
pub mod interpreter;
pub(crate) mod output;
pub mod policy;
pub mod pool;
pub mod reaper;
pub(crate) mod result;
pub mod runner;
pub(crate) mod sandbox;
pub(crate) mod seccomp;
pub(crate) mod sessions;
pub(crate) mod spec;
pub mod uids;

use bollard::errors::Error as BollardError;

pub use interpreter::CellLimits;
pub use pool::{WarmContainer, WarmPool};
pub use sandbox::{run_program, run_sandbox, run_sandbox_warm, Packages, Program};
pub use spec::{Lifecycle, SandboxEgress, SandboxOutcome, SandboxSpec};

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    // Before the container exists.
    #[error("refusing to run request {request_id}: {why}")]
    InvalidLimits { request_id: String, why: String },
    #[error("image {image} is not on this host; build it with `cordon image build`")]
    ImageMissing { image: String },
    #[error("no uid for a sandbox: {why}")]
    NoUid { why: String },
    #[error("cannot create a sandbox from image {image}: {source}")]
    Create {
        image: String,
        #[source]
        source: BollardError,
    },

    #[error("refusing to run in sandbox {container}: its socket buffers cannot be charged to its memory limit ({why}); see `cordon doctor`")]
    Uncharged { container: String, why: String },

    // While it runs.
    #[error("cannot attach to sandbox {container}: {source}")]
    Attach {
        container: String,
        #[source]
        source: BollardError,
    },
    #[error("cannot start sandbox {container}: {source}")]
    Start {
        container: String,
        #[source]
        source: BollardError,
    },
    #[error("cannot inspect sandbox {container} after it ended: {source}")]
    Inspect {
        container: String,
        #[source]
        source: BollardError,
    },

    // Cleaning up.
    #[error("cannot remove sandbox {container} (it will be retried, and `reap` removes it at the next start): {source}")]
    Remove {
        container: String,
        #[source]
        source: BollardError,
    },
    #[error("cannot list the sandboxes of host {host}: {source}")]
    List {
        host: String,
        #[source]
        source: BollardError,
    },
}
