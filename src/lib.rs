//! cordon runs untrusted Python in fresh, hardened, watched Docker containers, driven by
//! five actors that speak MessagePack over NATS, and records everything in an audit log.
//!
//! # Layout
//! From the bottom up; each layer imports only the ones under it, and no actor imports
//! another (`tests/architecture.rs` checks).
//!
//! Below the actors:
//! - [`protocol`]: subjects, the envelope and its codec, message types per actor (no I/O).
//! - [`bus`]: NATS and JetStream plumbing: connect, streams, publish, pull-and-ack loops,
//!   the reporter every actor records audit events through.
//! - [`config`]: settings as plain types (each actor checks its own section).
//! - [`actor`]: the actor contract: env, error, roles and their names, the task-actor shell.
//! - [`cgroup`]: where a container's cgroup is; charging its socket buffers.
//! - [`docker`]: connecting to Docker, image presence, host capacity, names, removal.
//! - [`owner`]: which supervisor process owns a sandbox, and whether it is provably gone.
//! - [`job_limits`]: the limits a job asks for, from trust, assessment and code size.
//! - [`panics`]: a panic fails one request (caught per message), or ends the process.
//! - [`text`]: text helpers shared by actors (character-safe previews).
//! - [`shutdown`]: the shutdown signal every long-running loop listens to.
//! - [`metrics`]: the Prometheus `/metrics` endpoint, observed from the bus.
//!
//! The actors, one folder each:
//! - [`assessor`]: validates requests and assesses the code statically (`engine/`, the
//!   actor and overrides, `report/`).
//! - [`scheduler`]: scales the limits a job asks for to a host's free room, admits work.
//! - [`supervisor`]: runs each job in a fresh hardened sandbox, with its host's
//!   [`proxy`] (the egress proxy for `network: allowlist` requests).
//! - [`monitor`]: follows sandbox usage, orders kills.
//! - [`audit`]: the single writer of the hash-chained audit log.
//!
//! Above them:
//! - [`node`]: composition: which actors run in a process (`up`, `serve`), the embedded
//!   nats-server.
//! - [`client`]: submit a request and wait for its result (what `cordon exec` uses).
//! - [`image`]: builds the sandbox images (default, data) from Debian's packages and lists an
//!   image's Python packages; [`doctor`]: checks the machine and says what to fix.
//! - [`commands`]: what each command does; [`cli`]: the command line (clap declarations).

pub mod actor;
pub mod assessor;
pub mod audit;
pub mod bus;
pub mod cgroup;
pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod docker;
pub mod doctor;
pub mod image;
pub mod job_limits;
pub mod mcp;
pub mod metrics;
pub mod monitor;
pub mod node;
pub mod owner;
pub mod panics;
pub mod protocol;
pub mod proxy;
pub mod scheduler;
pub mod shutdown;
pub mod supervisor;
pub mod text;
