//! The wire protocol: subjects, the envelope and its codec, and one file of message types
//! per actor. Nothing here does I/O; every actor and client speaks only these types.

pub mod assessor;
pub mod audit;
pub mod envelope;
pub mod exec;
pub mod grant;
pub mod interpreter;
pub mod monitor;
pub mod scheduler;
pub mod subjects;
pub mod supervisor;

pub use envelope::{decode, encode, now_ms, CodecError, Envelope, SCHEMA_VERSION};
pub use subjects::Subject;
