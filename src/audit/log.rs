//! `AuditLog`: the single writer of the hash-chained log in one directory. Called by the
//! AuditChain actor: `append` a batch, `sync` once (group commit), then acknowledge.
//! Invariants: entries only ever go at the end; nothing is acknowledged before `sync`
//! returns; after any write or sync error the log refuses further use (fsync failures
//! cannot be retried safely), so the process must reopen it.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use super::blobs::BlobError;
use super::chain::Chain;
use super::checkpoint::{Checkpoint, NoteSigner, NoteVerifier};
use super::checkpoint_store::{read_all, CheckpointStore, StoreError};
use super::entry::{Entry, EntryError, EntryHash};
use super::frame::MAX_PAYLOAD_BYTES;
use super::keyfile::{self, KeyError};
use super::merkle::{empty_root, leaf_hash, Frontier, Hash};
use super::payloads::Payloads;
use super::recent::{RecentIds, DEFAULT_RECENT_EVENT_IDS};
use super::retention::{archive_old, prunable, read_closed, Compacted, RetentionError};
use super::segment::{sync_dir, SegmentError, SegmentWriter, SEGMENTS_DIR};
use super::stored::{RetentionMark, StoredError, RETENTION_KIND};
use super::verify::{check_roots, open_checkpoints, scan, sizes_of, TornTail, VerifyError};
use crate::protocol::audit::AuditEvent;

/// The file whose lock makes a process the log's only writer.
const LOCK_FILE: &str = "lock";
/// Size at which a new segment is started, by default.
pub const DEFAULT_SEGMENT_BYTES: u64 = 64 * 1024 * 1024;
/// The checkpoint origin (and key name) of a log whose options do not name one.
pub const DEFAULT_ORIGIN: &str = "cordon/audit";

/// Why the log could not be opened or written.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("the audit log does not check out: {0}")]
    Corrupt(#[from] VerifyError),
    #[error(transparent)]
    Segment(#[from] SegmentError),
    #[error("another process holds the audit log in {}", .dir.display())]
    Locked { dir: PathBuf },
    #[error("event {event_id}: {source}")]
    Stored {
        event_id: String,
        #[source]
        source: StoredError,
    },
    #[error("event {event_id}: {source}")]
    Encode {
        event_id: String,
        #[source]
        source: EntryError,
    },
    #[error("event {event_id} encodes to {bytes} bytes, over the {MAX_PAYLOAD_BYTES}-byte limit")]
    TooLarge { event_id: String, bytes: usize },
    #[error("an earlier write or sync failed; the audit log must be reopened")]
    Failed,
    #[error("entry {index} has a body that is not MessagePack: {message}")]
    BadBody { index: u64, message: String },
    #[error("event {event_id}: cannot store a blob it names: {source}")]
    Blob {
        event_id: String,
        #[source]
        source: BlobError,
    },
    #[error(transparent)]
    Retention(#[from] RetentionError),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("refusing to sign size {size} with root {root}: the last checkpoint signed size {previous_size} with root {previous_root}")]
    Inconsistent {
        size: u64,
        root: String,
        previous_size: u64,
        previous_root: String,
    },
}

/// Tunables of an `AuditLog`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogOptions {
    /// The checkpoint origin and signing key name, used when the key is created.
    pub origin: String,
    /// A segment that would grow past this many bytes is closed and a new one started.
    pub segment_bytes: u64,
    /// How many recent event ids are remembered to drop redelivered events.
    pub recent_event_ids: usize,
}

impl LogOptions {
    /// The options `[audit]` gives (origin, segment size); defaults for the rest.
    pub fn from_settings(settings: &crate::config::AuditSettings) -> LogOptions {
        LogOptions {
            origin: settings.origin.clone(),
            segment_bytes: settings.segment_bytes,
            ..LogOptions::default()
        }
    }
}

impl Default for LogOptions {
    fn default() -> Self {
        LogOptions {
            origin: DEFAULT_ORIGIN.to_owned(),
            segment_bytes: DEFAULT_SEGMENT_BYTES,
            recent_event_ids: DEFAULT_RECENT_EVENT_IDS,
        }
    }
}

/// Where an appended event went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Appended {
    pub index: u64,
    /// The event id was already in the log; nothing was appended.
    pub duplicate: bool,
}

/// What `open` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    /// Entries in the log after recovery.
    pub entries: u64,
    pub head_hash: EntryHash,
    /// The incomplete last write that was cut off, if there was one.
    pub torn_tail: Option<TornTail>,
    /// The latest signed checkpoint, which the log was checked against.
    pub checkpoint: Option<Checkpoint>,
    /// Bytes of an incomplete last checkpoint that were cut off.
    pub torn_checkpoint_bytes: u64,
}

/// A checkpoint just signed and stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub checkpoint: Checkpoint,
    /// The signed note text, as stored and published.
    pub note: String,
}

/// The open, writable audit log.
#[derive(Debug)]
pub struct AuditLog {
    dir: PathBuf,
    segments_dir: PathBuf,
    options: LogOptions,
    chain: Chain,
    recent: RecentIds,
    payloads: Payloads,
    active: SegmentWriter,
    frontier: Frontier,
    signer: NoteSigner,
    store: CheckpointStore,
    latest: Option<Checkpoint>,
    failed: bool,
    _lock: File,
}

impl AuditLog {
    /// Opens (creating if needed) the log in `dir` with default options.
    pub fn open(dir: &Path) -> Result<(AuditLog, Recovery), AuditError> {
        AuditLog::open_with(dir, LogOptions::default())
    }

    /// Opens (creating if needed) the log in `dir`, checking every entry and every signed
    /// checkpoint (creating the signing key on first open). A torn frame at the very end
    /// of the last segment or of the checkpoint store is cut off and reported; anything
    /// else that does not check out, and any entry a signed checkpoint covers that is
    /// missing or different, is an error naming it (never repaired).
    pub fn open_with(dir: &Path, options: LogOptions) -> Result<(AuditLog, Recovery), AuditError> {
        let segments_dir = create_dirs(dir)?;
        let lock = lock_dir(dir)?;
        let signer = keyfile::load_or_create(dir, &options.origin)?;
        let stored = read_all(dir)?;
        let signed = open_checkpoints(Some(&signer.verifier()), &stored.notes)?;
        let mut recent = RecentIds::new(options.recent_event_ids);
        let mut payloads = Payloads::new(dir);
        let end = scan(dir, &sizes_of(&signed), |entry, _| {
            recent.insert(&entry.event_id, entry.index);
            payloads.observe(&entry.kind, &entry.request_id, &entry.body);
            Ok::<(), AuditError>(())
        })?;
        check_roots(&signed, &end).map_err(AuditError::Corrupt)?;
        if let Some(torn) = &end.torn {
            warn_torn_tail(torn);
        }
        if stored.torn_bytes > 0 {
            tracing::warn!(
                bytes = stored.torn_bytes,
                "audit log: cutting off a torn write at the end of the checkpoint store"
            );
        }
        let store = CheckpointStore::open(dir, stored.good_bytes)?;
        let active = match end.last {
            Some((segment, good)) if !segment.archived => {
                SegmentWriter::reopen(&segment.path, segment.first_index, good)?
            }
            _ => SegmentWriter::create(&segments_dir, end.chain.len())?,
        };
        let latest = signed.into_iter().last().map(|(_, c)| c);
        let recovery = Recovery {
            entries: end.chain.len(),
            head_hash: end.chain.head_hash(),
            torn_tail: end.torn,
            checkpoint: latest.clone(),
            torn_checkpoint_bytes: stored.torn_bytes,
        };
        let log = AuditLog {
            dir: dir.to_path_buf(),
            segments_dir,
            options,
            chain: end.chain,
            recent,
            payloads,
            active,
            frontier: end.frontier,
            signer,
            store,
            latest,
            failed: false,
            _lock: lock,
        };
        Ok((log, recovery))
    }

    /// Appends one event (buffered: durable after the next `sync`). Returns its index, or
    /// the index it already has if an event with the same id was appended recently.
    pub fn append(&mut self, request_id: &str, event: &AuditEvent) -> Result<Appended, AuditError> {
        self.check_usable()?;
        if let Some(index) = self.recent.get(&event.event_id) {
            return Ok(Appended {
                index,
                duplicate: true,
            });
        }
        let form = self
            .payloads
            .prepare(request_id, &event.record)
            .map_err(|source| AuditError::Stored {
                event_id: event.event_id.clone(),
                source,
            })?;
        let encoded = self.encode_next(request_id, event, form.body.clone())?;
        // Blobs are durable before the entry that names them can reach the disk.
        self.payloads
            .store_blobs(&form)
            .map_err(|source| AuditError::Blob {
                event_id: event.event_id.clone(),
                source,
            })?;
        let index = self.push_encoded(&encoded, &event.event_id)?;
        self.payloads
            .observe(event.record.name(), request_id, &form.body);
        Ok(Appended {
            index,
            duplicate: false,
        })
    }

    /// Writes an encoded entry at the end and advances chain, tree and recent ids.
    fn push_encoded(&mut self, encoded: &[u8], event_id: &str) -> Result<u64, AuditError> {
        self.write_entry(encoded)
            .inspect_err(|_| self.failed = true)?;
        let index = self.chain.len();
        self.chain.advance(encoded);
        self.frontier.push(leaf_hash(encoded));
        self.recent.insert(event_id, index);
        Ok(index)
    }

    /// Retention: compresses every closed segment whose entries are all older than
    /// `cutoff_ms` into a zstd archive, then deletes the blobs only their entries name,
    /// after appending (durably) a `retention` entry saying so; `now_ms` dates that entry.
    /// The active segment is closed first when it holds entries older than the cutoff, so
    /// a quiet log ages out too. Entries and checkpoints are never deleted.
    pub fn compact(&mut self, cutoff_ms: u64, now_ms: u64) -> Result<Compacted, AuditError> {
        self.sync()?;
        self.roll_if_older_than(cutoff_ms)?;
        let active_first = self.active.first_index();
        let (archived, candidates, horizon) = archive_old(&self.dir, active_first, cutoff_ms)?;
        if archived.is_empty() {
            return Ok(Compacted::default());
        }
        let doomed = prunable(&self.dir, self.payloads.store(), candidates)?;
        let mark = RetentionMark {
            kind: RETENTION_KIND.to_owned(),
            cutoff_ms,
            archived: archived.clone(),
            blobs_pruned_below: horizon,
            blobs_deleted: doomed.len() as u64,
        };
        let entry = self.append_retention(&mark, now_ms)?;
        super::blobs::write_pruned_below(&self.dir, horizon).map_err(RetentionError::from)?;
        for sha256 in &doomed {
            self.payloads
                .store()
                .remove(sha256)
                .map_err(RetentionError::from)?;
        }
        Ok(Compacted {
            archived,
            blobs_pruned_below: Some(horizon),
            blobs_deleted: doomed.len() as u64,
            entry: Some(entry),
        })
    }

    /// Closes the active segment when its oldest entry is older than `cutoff_ms`.
    fn roll_if_older_than(&mut self, cutoff_ms: u64) -> Result<(), AuditError> {
        if self.active.is_empty() {
            return Ok(());
        }
        let segment = super::segment::SegmentFile {
            first_index: 0,
            path: self.active.path().to_path_buf(),
            archived: false,
        };
        if read_closed(segment)?
            .oldest_ms
            .is_some_and(|t| t < cutoff_ms)
        {
            self.roll()?;
        }
        Ok(())
    }

    /// Appends and syncs the log's own `retention` entry; returns its index.
    fn append_retention(&mut self, mark: &RetentionMark, now_ms: u64) -> Result<u64, AuditError> {
        let event_id = format!("retention-{now_ms}-{}", self.chain.len());
        let body = rmp_serde::to_vec_named(mark).map_err(|source| AuditError::Stored {
            event_id: event_id.clone(),
            source: StoredError::Encode {
                kind: RETENTION_KIND,
                source,
            },
        })?;
        let (index, prev_hash) = self.chain.next_entry();
        let entry = Entry {
            index,
            prev_hash,
            at_ms: now_ms,
            request_id: String::new(),
            event_id: event_id.clone(),
            actor: "audit".into(),
            host: self.options.origin.clone(),
            kind: RETENTION_KIND.into(),
            body,
        };
        let encoded = entry.encode().map_err(|source| AuditError::Encode {
            event_id: event_id.clone(),
            source,
        })?;
        let index = self.push_encoded(&encoded, &event_id)?;
        self.sync()?;
        Ok(index)
    }

    /// Makes every appended entry durable (write + fdatasync). An error is fatal: the log
    /// refuses further use and nothing appended since the last good sync may be acked.
    pub fn sync(&mut self) -> Result<(), AuditError> {
        self.check_usable()?;
        self.active.sync().inspect_err(|_| self.failed = true)?;
        Ok(())
    }

    /// How many entries the log holds, synced or not.
    pub fn len(&self) -> u64 {
        self.chain.len()
    }

    pub fn is_empty(&self) -> bool {
        self.chain.is_empty()
    }

    /// Hash of the last entry; zeros when the log is empty.
    pub fn head_hash(&self) -> EntryHash {
        self.chain.head_hash()
    }

    /// The Merkle root over every entry appended, synced or not.
    pub fn root(&self) -> Hash {
        match self.frontier.is_empty() {
            true => empty_root(),
            false => self.frontier.root(),
        }
    }

    /// The latest signed checkpoint.
    pub fn latest_checkpoint(&self) -> Option<&Checkpoint> {
        self.latest.as_ref()
    }

    /// The public key checkpoints are signed with.
    pub fn verifier(&self) -> NoteVerifier {
        self.signer.verifier()
    }

    /// Syncs, then signs and stores (durably) a checkpoint of every entry, unless the
    /// latest one already covers them all: `None` then. The tree only ever grows by
    /// appends from the state the latest checkpoint was checked against on open, so each
    /// checkpoint is consistent with the one before; sizes and roots are checked again
    /// here, and a failure to store ends the log's use like a failed sync.
    pub fn checkpoint(&mut self) -> Result<Option<Signed>, AuditError> {
        self.sync()?;
        let checkpoint = Checkpoint {
            origin: self.signer.name().to_owned(),
            size: self.chain.len(),
            root: self.root(),
        };
        if let Some(previous) = &self.latest {
            let same_size = previous.size == checkpoint.size;
            if previous.size > checkpoint.size || (same_size && previous.root != checkpoint.root) {
                return Err(AuditError::Inconsistent {
                    size: checkpoint.size,
                    root: hex::encode(checkpoint.root),
                    previous_size: previous.size,
                    previous_root: hex::encode(previous.root),
                });
            }
            if same_size {
                return Ok(None);
            }
        }
        let note = self.signer.sign(&checkpoint);
        self.store
            .append(&note)
            .inspect_err(|_| self.failed = true)?;
        self.latest = Some(checkpoint.clone());
        Ok(Some(Signed { checkpoint, note }))
    }

    fn check_usable(&self) -> Result<(), AuditError> {
        if self.failed {
            return Err(AuditError::Failed);
        }
        Ok(())
    }

    fn encode_next(
        &self,
        request_id: &str,
        event: &AuditEvent,
        body: Vec<u8>,
    ) -> Result<Vec<u8>, AuditError> {
        let event_id = || event.event_id.clone();
        let (index, prev_hash) = self.chain.next_entry();
        let entry = Entry {
            index,
            prev_hash,
            at_ms: event.at_ms,
            request_id: request_id.to_owned(),
            event_id: event_id(),
            actor: event.actor.clone(),
            host: event.host.clone(),
            kind: event.record.name().to_owned(),
            body,
        };
        let encoded = entry.encode().map_err(|source| AuditError::Encode {
            event_id: event_id(),
            source,
        })?;
        if encoded.len() > MAX_PAYLOAD_BYTES {
            return Err(AuditError::TooLarge {
                event_id: event_id(),
                bytes: encoded.len(),
            });
        }
        Ok(encoded)
    }

    fn write_entry(&mut self, encoded: &[u8]) -> Result<(), AuditError> {
        let grown = self.active.len() + SegmentWriter::frame_len(encoded.len());
        if !self.active.is_empty() && grown > self.options.segment_bytes {
            self.roll()?;
        }
        self.active.push_frame(encoded)?;
        Ok(())
    }

    /// Closes the active segment (durably) and starts the next one at the next index.
    fn roll(&mut self) -> Result<(), AuditError> {
        self.active.sync()?;
        self.active = SegmentWriter::create(&self.segments_dir, self.chain.len())?;
        tracing::debug!(segment = %self.active.path().display(), "audit log: new segment");
        Ok(())
    }
}

impl Drop for AuditLog {
    /// Hands unsynced entries to the kernel (no fsync): they were never acknowledged, but
    /// keeping them spares a redelivery.
    fn drop(&mut self) {
        if !self.failed {
            let _ = self.active.write_pending();
        }
    }
}

fn warn_torn_tail(torn: &TornTail) {
    tracing::warn!(
        segment = %torn.segment.display(),
        offset = torn.offset,
        bytes = torn.bytes,
        index = torn.index,
        "audit log: cutting off a torn write at the end of the last segment"
    );
}

/// Creates `dir` and `dir/segments` if needed, durably; returns the segments directory.
fn create_dirs(dir: &Path) -> Result<PathBuf, AuditError> {
    let segments_dir = dir.join(SEGMENTS_DIR);
    if !segments_dir.is_dir() {
        fs::create_dir_all(&segments_dir).map_err(SegmentError::io("create", &segments_dir))?;
        sync_dir(dir)?;
        if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    Ok(segments_dir)
}

/// Takes the exclusive lock on `dir`, so two writers never interleave.
fn lock_dir(dir: &Path) -> Result<File, AuditError> {
    let path = dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(SegmentError::io("open", &path))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(AuditError::Locked {
            dir: dir.to_path_buf(),
        }),
        Err(TryLockError::Error(e)) => Err(SegmentError::io("lock", &path)(e).into()),
    }
}
