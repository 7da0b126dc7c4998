//! cordon runs untrusted Python in fresh, hardened, watched Docker containers, driven by
//! five actors that speak MessagePack over NATS, and records everything in an audit log.
//!
//! # Layout
//! - [`protocol`]: subjects, the envelope and its codec, message types per actor (no I/O).
//! - [`bus`]: NATS and JetStream plumbing: connect, streams, publish, pull-and-ack loops.
//! - [`assessor`]: the Assessor actor: validates requests and assesses the code statically.
//! - [`scheduler`]: the Scheduler actor: turns trust + assessment into limits, admits work.
//! - [`supervisor`]: the ContainerSupervisor actor: runs each job in a fresh hardened sandbox.
//! - [`monitor`]: the ResourceMonitor actor: follows sandbox usage, orders kills.
//! - [`proxy`]: the egress proxy for `network: allowlist` requests, and its pure policy.
//! - [`audit`]: the AuditChain actor: the single writer of the hash-chained audit log.
//! - [`node`]: starts actors in one process (`up`, `serve`) and the embedded nats-server.
//! - [`client`]: submit a request and wait for its result (what `cordon exec` uses).
//! - [`docker`]: connecting to Docker, image presence, host capacity.
//! - [`panics`]: a panic fails one request (caught per message), or ends the process.
//! - [`owner`]: which supervisor process owns a sandbox, and whether it is provably gone.
//! - [`metrics`]: the Prometheus `/metrics` endpoint, observed from the bus.
//! - [`image`]: builds the sandbox image from Debian's packages.
//! - [`doctor`]: checks the machine and says what to fix.
//! - [`shutdown`]: the shutdown signal every long-running loop listens to.
//! - [`commands`]: what each command does.
//! - [`cli`]: the command line (clap declarations only); [`config`]: settings.

pub mod assessor;
pub mod audit;
pub mod bus;
pub mod cli;
pub mod client;
pub mod commands;
pub mod config;
pub mod docker;
pub mod doctor;
pub mod image;
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
