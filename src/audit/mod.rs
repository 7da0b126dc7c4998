//! The audit log: an append-only, hash-chained, CRC-framed record of everything that
//! happened to every request, kept so it can be checked entry by entry later (in court),
//! whose entries are the leaves of an RFC 6962 Merkle tree under signed checkpoints.
//! The AuditChain actor is its single writer.
//!
//! # Layout
//! - [`entry`]: one entry and its deterministic binary encoding; the entry hash (no I/O).
//! - [`stored`]: the stored form of a record (outputs as digests, blob refs) for the body (no I/O).
//! - [`codediff`]: unified diffs of a client's code against its previous submission (no I/O).
//! - [`blobs`]: the content-addressed blob store (code, diffs, outputs, large bodies).
//! - [`payloads`]: events into bodies + blobs, remembering each client's last code.
//! - [`frame`]: segment header and `len | crc32c | payload` frames over byte slices (no I/O).
//! - [`chain`]: the hash chain: next index, previous hash, head (no I/O).
//! - [`merkle`]: the RFC 6962 tree: roots, inclusion and consistency proofs (no I/O).
//! - [`checkpoint`]: C2SP checkpoints and Ed25519 signed notes, keys as text (no I/O).
//! - [`keyfile`]: the signing key file (0600), created on first open.
//! - [`checkpoint_store`]: the append-only store of every signed checkpoint.
//! - [`recent`]: recently appended event ids, to append a redelivered event once.
//! - [`segment`]: segment files: naming, listing, creating, the active segment's writer.
//! - `blobcheck`: checks, while verifying, every blob an entry names.
//! - [`archive`]: zstd archives of old segments, read by every walk of the log.
//! - [`retention`]: compaction: archiving old segments, pruning their blobs.
//! - [`verify`]: walks the log on disk and names the first entry that does not check out.
//! - [`log`]: `AuditLog`, the writer: open with crash recovery, append, group-commit sync.
//! - [`read`]: entries decoded for people (`cordon audit show`).
//! - [`proofs`]: inclusion and consistency proofs from a log on disk (`cordon audit prove`).
//!
//! # On disk
//! `<dir>/lock` (held by the writer), `<dir>/signing.key`, `<dir>/checkpoints` (frames of
//! signed notes), `<dir>/segments/<first index:020>.seg`, `<dir>/archive/<first
//! index:020>.seg.zst` (segments past retention, zstd), `<dir>/blobs/<2 hex>/<sha256>`
//! (payloads entries name) and `<dir>/pruned_below`. A segment
//! is a 20-byte header (`CRDNAUDT`, format u32, first index u64) then frames
//! `len u32 LE | crc32c(payload) u32 LE | payload`; each payload is one encoded [`Entry`].

pub(crate) mod actor;
pub mod archive;
mod blobcheck;
pub mod blobs;
pub mod chain;
pub mod checkpoint;
pub mod checkpoint_store;
pub(crate) mod codediff;
pub mod entry;
pub mod frame;
pub mod keyfile;
pub(crate) mod log;
pub mod merkle;
pub(crate) mod payloads;
pub mod proofs;
pub mod read;
pub(crate) mod recent;
pub mod retention;
pub mod segment;
pub mod stored;
pub mod verify;

pub use entry::{entry_hash, Entry, EntryHash};
pub use log::{Appended, AuditError, AuditLog, LogOptions, Recovery, Signed};
pub use read::{read_entries, StoredEntry};
pub use verify::{
    verify, verify_with, CheckpointProblem, Problem, TornTail, VerifyError, VerifyOptions,
    VerifyReport,
};
