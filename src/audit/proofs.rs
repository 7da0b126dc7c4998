//! Proofs from a log on disk for `cordon audit prove` and `consistency`: rebuilds the whole
//! Merkle tree from the segments (each entry checked on the way, as `verify` does) and
//! answers with the hashes and the latest signed checkpoint, as JSON-ready values.

use std::path::Path;

use serde::Serialize;

use super::checkpoint_store::read_all;
use super::log::AuditError;
use super::merkle::{leaf_hash, MerkleError, Tree};
use super::verify::scan;

/// Why a proof could not be given.
#[derive(Debug, thiserror::Error)]
pub enum ProofError {
    #[error(transparent)]
    Log(#[from] AuditError),
    #[error(transparent)]
    Merkle(#[from] MerkleError),
    #[error("entry {index} could not be re-encoded: {message}")]
    Encode { index: u64, message: String },
}

/// An inclusion proof, with everything needed to check it.
#[derive(Debug, Clone, Serialize)]
pub struct InclusionAnswer {
    pub index: u64,
    pub size: u64,
    /// Hex of `SHA-256(0x00 || entry bytes)`.
    pub leaf: String,
    pub root: String,
    /// Hex hashes, nearest sibling first (RFC 9162).
    pub proof: Vec<String>,
    /// The latest signed checkpoint note, when its size is `size`.
    pub checkpoint: Option<String>,
}

/// A consistency proof between two tree sizes.
#[derive(Debug, Clone, Serialize)]
pub struct ConsistencyAnswer {
    pub old: u64,
    pub new: u64,
    pub old_root: String,
    pub new_root: String,
    pub proof: Vec<String>,
}

/// The whole tree of the log in `dir` (a torn tail is left out, as a reader would).
pub fn tree_of(dir: &Path) -> Result<Tree, ProofError> {
    let mut tree = Tree::new();
    let mut failed = None;
    scan(dir, &[], |entry, _| {
        match entry.encode() {
            Ok(bytes) => tree.push(leaf_hash(&bytes)),
            Err(e) if failed.is_none() => failed = Some((entry.index, e.to_string())),
            Err(_) => {}
        }
        Ok::<(), AuditError>(())
    })?;
    match failed {
        Some((index, message)) => Err(ProofError::Encode { index, message }),
        None => Ok(tree),
    }
}

/// Proves entry `index` in the tree of the latest checkpoint (or of the whole log when it
/// has none, or the checkpoint does not cover `index` yet).
pub fn prove(dir: &Path, index: u64) -> Result<InclusionAnswer, ProofError> {
    let tree = tree_of(dir)?;
    let latest = read_all(dir)
        .map_err(AuditError::from)?
        .notes
        .pop()
        .and_then(|note| Some((size_of_note(&note)?, note)))
        .filter(|(size, _)| *size > index && *size <= tree.len());
    let size = latest.as_ref().map_or(tree.len(), |(size, _)| *size);
    let proof = tree.inclusion_proof(index, size)?;
    let leaf = tree
        .leaf(index)
        .ok_or(MerkleError::IndexOutOfRange { index, size })?;
    Ok(InclusionAnswer {
        index,
        size,
        leaf: hex::encode(leaf),
        root: hex::encode(tree.root_at(size)?),
        proof: proof.iter().map(hex::encode).collect(),
        checkpoint: latest.map(|(_, note)| note),
    })
}

/// Proves the tree of `old` entries a prefix of the tree of `new`.
pub fn consistency(dir: &Path, old: u64, new: u64) -> Result<ConsistencyAnswer, ProofError> {
    let tree = tree_of(dir)?;
    let proof = tree.consistency_proof(old, new)?;
    Ok(ConsistencyAnswer {
        old,
        new,
        old_root: hex::encode(tree.root_at(old)?),
        new_root: hex::encode(tree.root_at(new)?),
        proof: proof.iter().map(hex::encode).collect(),
    })
}

/// The size line of a note (its signature is checked by `verify`, not here).
fn size_of_note(note: &str) -> Option<u64> {
    note.lines().nth(1)?.parse().ok()
}
