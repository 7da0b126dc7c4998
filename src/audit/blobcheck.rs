//! Checking, during `verify`, every blob each entry names: present, the right size, and
//! hashing to its name. A blob may be missing only when retention pruned it: the entry
//! naming it lies below `<dir>/pruned_below`, and a `retention` entry in the log (covered
//! by the chain and the checkpoints) says pruning went at least that far.

use std::path::Path;

use super::blobs::{read_pruned_below, BlobProblem, BlobStore};
use super::entry::Entry;
use super::stored::{blob_refs, RetentionMark, RETENTION_KIND};
use super::verify::VerifyError;

/// The blob side of one verification walk.
#[derive(Debug)]
pub(crate) struct BlobCheck {
    store: BlobStore,
    /// What `<dir>/pruned_below` claims.
    pruned_below: u64,
    /// What `retention` entries seen so far establish.
    established: u64,
}

impl BlobCheck {
    pub fn new(dir: &Path) -> Result<BlobCheck, VerifyError> {
        let pruned_below = read_pruned_below(dir).map_err(|e| VerifyError::PrunedMarker {
            claimed: 0,
            established: 0,
            why: e.to_string(),
        })?;
        Ok(BlobCheck {
            store: BlobStore::new(dir),
            pruned_below,
            established: 0,
        })
    }

    /// Checks every blob `entry` names, and notes how far a `retention` entry pruned.
    pub fn visit(&mut self, entry: &Entry) -> Result<(), VerifyError> {
        if entry.kind == RETENTION_KIND {
            self.note_retention(entry)?;
        }
        for blob in blob_refs(&entry.body) {
            match self.store.check(&blob.sha256, blob.bytes, &blob.what) {
                Ok(()) => {}
                Err(BlobProblem::Missing { .. }) if entry.index < self.pruned_below => {}
                Err(problem) => {
                    return Err(VerifyError::Blob {
                        index: entry.index,
                        problem,
                    })
                }
            }
        }
        Ok(())
    }

    /// After the walk: the pruning the marker file claims must be backed by the log.
    pub fn finish(&self) -> Result<(), VerifyError> {
        if self.pruned_below > self.established {
            return Err(VerifyError::PrunedMarker {
                claimed: self.pruned_below,
                established: self.established,
                why: "no retention entry in the log pruned that far".into(),
            });
        }
        Ok(())
    }

    fn note_retention(&mut self, entry: &Entry) -> Result<(), VerifyError> {
        let bad = |why: String| VerifyError::PrunedMarker {
            claimed: self.pruned_below,
            established: self.established,
            why: format!("retention entry {}: {why}", entry.index),
        };
        let mark: RetentionMark =
            rmp_serde::from_slice(&entry.body).map_err(|e| bad(e.to_string()))?;
        if mark.blobs_pruned_below > entry.index {
            return Err(bad(format!(
                "prunes below {}, past itself",
                mark.blobs_pruned_below
            )));
        }
        self.established = self.established.max(mark.blobs_pruned_below);
        Ok(())
    }
}
