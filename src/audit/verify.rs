//! Walking a log on disk: every segment, every frame, every link of the hash chain. Used
//! by `verify` (which accepts nothing that does not check out), by `AuditLog::open`
//! (which also accepts and reports a torn tail, the trace of a crash mid-write) and by
//! `read_entries`. Names the first bad entry, its segment and byte offset, and why.

use std::path::{Path, PathBuf};

use super::archive::{list_log, read_segment};
use super::blobcheck::BlobCheck;
use super::blobs::BlobProblem;
use super::chain::{Chain, LinkError};
use super::checkpoint::{Checkpoint, CheckpointError, NoteVerifier};
use super::checkpoint_store::{read_all, StoreError};
use super::entry::{Entry, EntryHash};
use super::frame::{is_torn_tail, read_frame, FrameError, FrameRead, SegmentHeader, HEADER_LEN};
use super::keyfile::{self, KeyError};
use super::merkle::{empty_root, leaf_hash, Frontier, Hash};
use super::segment::{SegmentError, SegmentFile};

/// A log that checked out, end to end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub entries: u64,
    pub head_hash: EntryHash,
    /// The Merkle root over every entry.
    pub root: Hash,
    /// How many signed checkpoints were checked (signature, order, root).
    pub checkpoints: usize,
    /// The latest stored checkpoint, if any.
    pub latest: Option<Checkpoint>,
}

/// What `verify_with` checks beyond the log itself.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// The key checkpoints must be signed by; by default the log's own key file.
    pub verifier: Option<NoteVerifier>,
    /// A signed checkpoint kept elsewhere (by a witness, an auditor): the log must be
    /// consistent with it, which catches truncation and a rewritten, re-signed log.
    pub saved: Option<String>,
}

/// Where a log does not check out.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Segment(#[from] SegmentError),
    #[error("entry {index} in {} at byte {offset}: {problem}", .segment.display())]
    Entry {
        index: u64,
        segment: PathBuf,
        offset: u64,
        problem: Problem,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("entry {index}: {problem}")]
    Blob { index: u64, problem: BlobProblem },
    #[error("{PRUNED} says blobs below entry {claimed} were pruned, but the log's retention entries establish {established}: {why}", PRUNED = super::blobs::PRUNED_FILE)]
    PrunedMarker {
        claimed: u64,
        established: u64,
        why: String,
    },
    #[error("checkpoint #{number} in the store: {problem}")]
    Checkpoint {
        number: usize,
        problem: CheckpointProblem,
    },
    #[error("the saved checkpoint is not one of this log's: {0} (was the log replaced and re-signed by another key?)")]
    Saved(CheckpointError),
    #[error("the log holds {entries} entries but {which} signed {size}: entries {entries}.. were cut off")]
    Shorter {
        entries: u64,
        size: u64,
        which: String,
    },
    #[error("entries 0..{size} do not hash to the root {which} signed ({signed}, log has {found}): the log was rewritten")]
    RootMismatch {
        size: u64,
        which: String,
        signed: String,
        found: String,
    },
}

/// What is wrong with one stored checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointProblem {
    #[error("{0}")]
    Signature(CheckpointError),
    #[error("signs size {size}, smaller than the {previous} of the one before it")]
    Shrinks { previous: u64, size: u64 },
    #[error("signs size {size} as the one before it, with another root")]
    Forked { size: u64 },
    #[error("the last {bytes} bytes of the store are an incomplete checkpoint")]
    Torn { bytes: u64 },
    #[error("the store holds checkpoints but there is no key to check them: {0}")]
    NoKey(String),
}

impl VerifyError {
    /// The index of the entry named, when the problem is about one.
    pub fn index(&self) -> Option<u64> {
        match self {
            VerifyError::Entry { index, .. } | VerifyError::Blob { index, .. } => Some(*index),
            _ => None,
        }
    }
}

/// What is wrong with one entry (or with the place where it should be).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("segment header: {0}")]
    Header(FrameError),
    #[error("segment header says first index {header}, file name says {name}")]
    HeaderMismatch { header: u64, name: u64 },
    #[error("segment starts at index {found}, expected {expected} (segments missing or extra)")]
    SegmentGap { expected: u64, found: u64 },
    #[error("frame: {0}")]
    Frame(FrameError),
    #[error("{0}")]
    Link(LinkError),
    #[error(
        "the last {bytes} bytes of the segment are not a whole frame, and not a torn last write"
    )]
    Truncated { bytes: u64 },
    #[error("torn write: the last {bytes} bytes are an incomplete frame (a crash mid-append)")]
    TornTail { bytes: u64 },
}

/// The incomplete end of the last segment, left by a crash mid-write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    pub segment: PathBuf,
    /// Where the incomplete frame starts: the length the segment is cut back to.
    pub offset: u64,
    pub bytes: u64,
    /// The index the incomplete entry would have had.
    pub index: u64,
}

/// Where a scan ended.
#[derive(Debug)]
pub(crate) struct ScanEnd {
    pub chain: Chain,
    /// The Merkle tree's right edge over every entry read.
    pub frontier: Frontier,
    /// The root at each size asked for that the log reaches, in the order asked.
    pub roots: Vec<(u64, Hash)>,
    /// The last segment and how many of its bytes are good.
    pub last: Option<(SegmentFile, u64)>,
    pub torn: Option<TornTail>,
}

/// Re-reads the whole log in `dir` and checks every CRC, index and link of the chain, the
/// Merkle root against every stored checkpoint, every checkpoint's signature, and every
/// blob an entry names.
pub fn verify(dir: &Path) -> Result<VerifyReport, VerifyError> {
    verify_with(dir, &VerifyOptions::default())
}

/// `verify`, with another key and, if given, a checkpoint kept elsewhere.
pub fn verify_with(dir: &Path, options: &VerifyOptions) -> Result<VerifyReport, VerifyError> {
    let stored = read_all(dir)?;
    if stored.torn_bytes > 0 {
        let problem = CheckpointProblem::Torn {
            bytes: stored.torn_bytes,
        };
        let number = stored.notes.len();
        return Err(VerifyError::Checkpoint { number, problem });
    }
    let verifier = match &options.verifier {
        Some(verifier) => Some(verifier.clone()),
        None => log_verifier(dir, !stored.notes.is_empty() || options.saved.is_some())?,
    };
    let mut signed = open_checkpoints(verifier.as_ref(), &stored.notes)?;
    let count = signed.len();
    let latest = signed.last().map(|(_, c)| c.clone());
    if let (Some(text), Some(verifier)) = (&options.saved, &verifier) {
        let saved = verifier.open(text).map_err(VerifyError::Saved)?;
        signed.push(("the saved checkpoint".into(), saved));
    }
    let mut blobs = BlobCheck::new(dir)?;
    let end = scan(dir, &sizes_of(&signed), |entry, _| blobs.visit(entry))?;
    if let Some(torn) = end.torn {
        return Err(VerifyError::Entry {
            index: torn.index,
            segment: torn.segment,
            offset: torn.offset,
            problem: Problem::TornTail { bytes: torn.bytes },
        });
    }
    check_roots(&signed, &end)?;
    blobs.finish()?;
    Ok(VerifyReport {
        entries: end.chain.len(),
        head_hash: end.chain.head_hash(),
        root: root_of(&end.frontier),
        checkpoints: count,
        latest,
    })
}

/// The public key of the log in `dir`, from its key file; `None` when there is none and
/// none is `needed` (a log written before checkpoints).
fn log_verifier(dir: &Path, needed: bool) -> Result<Option<NoteVerifier>, VerifyError> {
    match keyfile::load(dir) {
        Ok(signer) => Ok(Some(signer.verifier())),
        Err(KeyError::Missing { .. }) if !needed => Ok(None),
        Err(KeyError::Missing { path }) => Err(VerifyError::Checkpoint {
            number: 0,
            problem: CheckpointProblem::NoKey(path.display().to_string()),
        }),
        Err(other) => Err(other.into()),
    }
}

fn root_of(frontier: &Frontier) -> Hash {
    match frontier.is_empty() {
        true => empty_root(),
        false => frontier.root(),
    }
}

/// Opens every stored note with `verifier`, checking that sizes never shrink and that two
/// checkpoints of one size agree; each comes labelled for error messages.
pub(crate) fn open_checkpoints(
    verifier: Option<&NoteVerifier>,
    notes: &[String],
) -> Result<Vec<(String, Checkpoint)>, VerifyError> {
    let Some(verifier) = verifier else {
        return Ok(Vec::new());
    };
    let mut opened: Vec<(String, Checkpoint)> = Vec::with_capacity(notes.len());
    for (number, note) in notes.iter().enumerate() {
        let fail = |problem| VerifyError::Checkpoint { number, problem };
        let checkpoint = verifier
            .open(note)
            .map_err(|e| fail(CheckpointProblem::Signature(e)))?;
        if let Some((_, previous)) = opened.last() {
            let size = checkpoint.size;
            if size < previous.size {
                let previous = previous.size;
                return Err(fail(CheckpointProblem::Shrinks { previous, size }));
            }
            if size == previous.size && checkpoint.root != previous.root {
                return Err(fail(CheckpointProblem::Forked { size }));
            }
        }
        opened.push((format!("checkpoint #{number}"), checkpoint));
    }
    Ok(opened)
}

/// The distinct sizes of `signed`, ascending, as `scan` wants them.
pub(crate) fn sizes_of(signed: &[(String, Checkpoint)]) -> Vec<u64> {
    let mut sizes: Vec<u64> = signed.iter().map(|(_, c)| c.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// Every checkpoint's size must be reached by the log and its root match.
pub(crate) fn check_roots(
    signed: &[(String, Checkpoint)],
    end: &ScanEnd,
) -> Result<(), VerifyError> {
    for (which, checkpoint) in signed {
        let found = end.roots.iter().find(|(size, _)| *size == checkpoint.size);
        let Some((_, root)) = found else {
            return Err(VerifyError::Shorter {
                entries: end.chain.len(),
                size: checkpoint.size,
                which: which.clone(),
            });
        };
        if *root != checkpoint.root {
            return Err(VerifyError::RootMismatch {
                size: checkpoint.size,
                which: which.clone(),
                signed: hex::encode(checkpoint.root),
                found: hex::encode(root),
            });
        }
    }
    Ok(())
}

/// Walks every entry of the log in `dir` (archived segments included), handing each with its hash to `visit`, and
/// notes the Merkle root at each of `sizes` (ascending) the log reaches. A torn tail at
/// the end of the last segment ends the walk and is returned, not an error.
pub(crate) fn scan<E>(
    dir: &Path,
    sizes: &[u64],
    mut visit: impl FnMut(&Entry, &EntryHash) -> Result<(), E>,
) -> Result<ScanEnd, E>
where
    E: From<VerifyError>,
{
    let segments = list_log(dir).map_err(VerifyError::from)?;
    let mut end = ScanEnd {
        chain: Chain::new(),
        frontier: Frontier::new(),
        roots: Vec::new(),
        last: None,
        torn: None,
    };
    let mut wanted = RootsWanted { sizes, next: 0 };
    wanted.take(&end.frontier, &mut end.roots);
    let count = segments.len();
    for (position, segment) in segments.into_iter().enumerate() {
        let is_last = position + 1 == count && !segment.archived;
        let bytes = read_segment(&segment).map_err(VerifyError::from)?;
        let mut walk = SegmentWalk {
            segment: &segment,
            bytes: &bytes,
            is_last,
            chain: &mut end.chain,
            frontier: &mut end.frontier,
            wanted: &mut wanted,
            roots: &mut end.roots,
        };
        let (good, torn) = walk.run(&mut visit)?;
        end.torn = torn;
        end.last = Some((segment, good));
    }
    Ok(end)
}

/// The sizes whose roots a scan notes, and the next one to reach.
struct RootsWanted<'a> {
    sizes: &'a [u64],
    next: usize,
}

impl RootsWanted<'_> {
    /// Notes the root for every wanted size equal to the frontier's.
    fn take(&mut self, frontier: &Frontier, roots: &mut Vec<(u64, Hash)>) {
        while self.sizes.get(self.next) == Some(&frontier.len()) {
            let root = match frontier.is_empty() {
                true => empty_root(),
                false => frontier.root(),
            };
            roots.push((frontier.len(), root));
            self.next += 1;
        }
    }
}

/// One segment's bytes being walked.
struct SegmentWalk<'a, 's> {
    segment: &'a SegmentFile,
    bytes: &'a [u8],
    is_last: bool,
    chain: &'a mut Chain,
    frontier: &'a mut Frontier,
    wanted: &'a mut RootsWanted<'s>,
    roots: &'a mut Vec<(u64, Hash)>,
}

impl SegmentWalk<'_, '_> {
    /// Returns how many bytes are good, and the torn tail if there is one.
    fn run<E: From<VerifyError>>(
        &mut self,
        visit: &mut impl FnMut(&Entry, &EntryHash) -> Result<(), E>,
    ) -> Result<(u64, Option<TornTail>), E> {
        self.check_starts_where_chain_ends()?;
        if self.bytes.len() < HEADER_LEN || self.bytes.iter().all(|&b| b == 0) {
            let bytes = self.bytes.len() as u64;
            return Ok((0, Some(self.torn_at(0, Problem::Truncated { bytes })?)));
        }
        self.check_header()?;
        let mut at = HEADER_LEN;
        loop {
            match read_frame(self.bytes, at) {
                FrameRead::End => return Ok((at as u64, None)),
                FrameRead::Frame { payload, next } => {
                    let entry = self
                        .chain
                        .link(payload)
                        .map_err(|e| self.error(at, Problem::Link(e)))?;
                    self.frontier.push(leaf_hash(payload));
                    self.wanted.take(self.frontier, self.roots);
                    visit(&entry, &self.chain.head_hash())?;
                    at = next;
                }
                FrameRead::Incomplete { .. } => {
                    let bytes = (self.bytes.len() - at) as u64;
                    let torn = self.torn_at(at, Problem::Truncated { bytes })?;
                    return Ok((at as u64, Some(torn)));
                }
                FrameRead::Bad(e) => {
                    let torn = self.torn_at(at, Problem::Frame(e))?;
                    return Ok((at as u64, Some(torn)));
                }
            }
        }
    }

    fn check_header(&self) -> Result<(), VerifyError> {
        let header = match SegmentHeader::decode(self.bytes) {
            Some(Ok(header)) => header,
            Some(Err(e)) => return Err(self.error(0, Problem::Header(e))),
            None => {
                return Err(self.error(
                    0,
                    Problem::Truncated {
                        bytes: self.bytes.len() as u64,
                    },
                ))
            }
        };
        let name = self.segment.first_index;
        if header.first_index != name {
            let problem = Problem::HeaderMismatch {
                header: header.first_index,
                name,
            };
            return Err(self.error(0, problem));
        }
        Ok(())
    }

    /// The segment's name must say the index right after the previous segment's last.
    fn check_starts_where_chain_ends(&self) -> Result<(), VerifyError> {
        let (expected, found) = (self.chain.len(), self.segment.first_index);
        if found != expected {
            return Err(self.error(0, Problem::SegmentGap { expected, found }));
        }
        Ok(())
    }

    /// The bytes from `at` on do not hold a valid frame: a torn tail if this is the last
    /// segment and they look like an interrupted write, otherwise `problem`.
    fn torn_at(&self, at: usize, problem: Problem) -> Result<TornTail, VerifyError> {
        let header_torn =
            at == 0 && (self.bytes.len() < HEADER_LEN || self.bytes.iter().all(|&b| b == 0));
        let torn = header_torn || is_torn_tail(self.bytes, at);
        if !(self.is_last && torn) {
            return Err(self.error(at, problem));
        }
        Ok(TornTail {
            segment: self.segment.path.clone(),
            offset: at as u64,
            bytes: (self.bytes.len() - at) as u64,
            index: self.chain.len(),
        })
    }

    fn error(&self, at: usize, problem: Problem) -> VerifyError {
        VerifyError::Entry {
            index: self.chain.len(),
            segment: self.segment.path.clone(),
            offset: at as u64,
            problem,
        }
    }
}
