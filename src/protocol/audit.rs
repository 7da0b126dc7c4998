//! Messages for the AuditChain (`cordon.v1.audit.append`): every actor sends an
//! `AuditEvent` for each thing that happened to a request. The `Finished` record carries the
//! final result, which the AuditChain publishes once it is durably appended. Also what the
//! AuditChain publishes itself: signed checkpoints (`cordon.v1.audit.checkpoint`, for
//! witnesses) and alerts (`cordon.v1.events.alert`, for operators).

use serde::{Deserialize, Serialize};

use super::assessor::{AnalyserRun, Assessment, Origin, TrustLevel};
use super::exec::{ErrorInfo, ExecResult, Violation};
use super::scheduler::Limits;

/// How much of a rejected payload its audit event carries.
pub const MAX_REJECTED_PAYLOAD_BYTES: usize = 64 * 1024;

impl AuditRecord {
    /// The record of `payload` rejected with `error`: its SHA-256, size and head.
    pub fn rejected(error: ErrorInfo, payload: &[u8]) -> AuditRecord {
        use sha2::{Digest, Sha256};
        let head = &payload[..payload.len().min(MAX_REJECTED_PAYLOAD_BYTES)];
        AuditRecord::Rejected {
            error,
            payload_sha256: hex::encode(Sha256::digest(payload)),
            payload_bytes: payload.len() as u64,
            payload_head: (!head.is_empty()).then(|| serde_bytes::ByteBuf::from(head.to_vec())),
        }
    }
}

/// One event about one request, to be appended to the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEvent {
    /// Unique per event and stable across redelivery (`<request_id>.<what>`), so a
    /// re-published event is appended once.
    pub event_id: String,
    /// The actor that saw it: `assessor`, `scheduler`, `supervisor`, `monitor`, `audit`.
    pub actor: String,
    pub host: String,
    pub at_ms: u64,
    pub record: AuditRecord,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AuditRecord {
    Received {
        code_sha256: String,
        code_bytes: u64,
        trust: TrustLevel,
        origin: Origin,
        /// The request body's own `client` (a session key within the submitting client).
        client: Option<String>,
        /// The client the server let submit it (the `<client>` of its submit subject).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        submitter: String,
        /// The code itself: the AuditChain keeps it as a blob (by SHA-256) with a unified
        /// diff against the client's previous submission, never inline in the entry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// Its session action, files and stdin; the AuditChain keeps each file and stdin
        /// as a blob and the entry their names, sizes and hashes.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<super::interpreter::CellInput>,
    },
    Rejected {
        error: ErrorInfo,
        payload_sha256: String,
        payload_bytes: u64,
        /// The payload's first `MAX_REJECTED_PAYLOAD_BYTES` bytes, kept by the AuditChain
        /// as a blob (the entry keeps only its hash).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        payload_head: Option<serde_bytes::ByteBuf>,
    },
    Assessed {
        assessment: Assessment,
        /// How each analyser took part; only when external analysers are configured.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        analysers: Vec<AnalyserRun>,
    },
    Scheduled {
        limits: Limits,
        host: String,
        trust: TrustLevel,
    },
    ContainerCreated {
        container_id: String,
        /// The image as the settings name it.
        image: String,
        /// The image id (sha256 digest) the engine ran.
        #[serde(default)]
        image_id: String,
        /// The OCI runtime (`runc`, `runsc`).
        runtime: String,
    },
    ContainerStarted {
        container_id: String,
    },
    ContainerExited {
        container_id: String,
        exit_code: Option<i64>,
        oom_killed: bool,
    },
    ContainerRemoved {
        container_id: String,
        /// The sandbox's filesystem changes (`docker diff`) read just before removal.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        changes: Option<FsChanges>,
    },
    Violation {
        container_id: String,
        violation: Violation,
    },
    Finished {
        result: Box<ExecResult>,
    },
    /// A request's packages installed (or not) before its code ran.
    PackagesInstalled {
        requirements: Vec<String>,
        index: String,
        exit_code: Option<i64>,
        /// pip's output (its last 64 KiB).
        output: String,
        took_ms: u64,
    },
    /// The runtime record of one run (or session cell): each distinct thing the program
    /// asked Python to do, with its count and times; `dropped` past the cap.
    Runtime {
        container_id: String,
        events: Vec<super::interpreter::RuntimeEvent>,
        dropped: u64,
    },
    /// One connection attempt through the egress proxy, allowed or not, once it is over.
    NetworkConnection {
        /// `GET`, `HEAD`, `CONNECT`, a refused method, or `?` when unreadable.
        method: String,
        host: String,
        port: u16,
        /// The address connected to, when it got that far.
        #[serde(default)]
        address: Option<String>,
        allowed: bool,
        /// Why it was refused or cut, or how it ended.
        reason: String,
        bytes_sent: u64,
        bytes_received: u64,
    },
    /// An override grant arrived for a held request; kept whether accepted or not.
    OverrideGrant {
        #[serde(default)]
        grant_id: String,
        #[serde(default)]
        operator: String,
        #[serde(default)]
        reason: String,
        /// Base64 public key the grant names.
        #[serde(default)]
        public_key: String,
        #[serde(default)]
        accepted: bool,
        /// `accepted` or why not (see `GrantDecision::decision`).
        #[serde(default)]
        decision: String,
        #[serde(default)]
        message: String,
    },
}

impl AuditRecord {
    /// A short name for the record, used in event ids and for people.
    pub fn name(&self) -> &'static str {
        match self {
            AuditRecord::Received { .. } => "received",
            AuditRecord::Rejected { .. } => "rejected",
            AuditRecord::Assessed { .. } => "assessed",
            AuditRecord::Scheduled { .. } => "scheduled",
            AuditRecord::ContainerCreated { .. } => "container_created",
            AuditRecord::ContainerStarted { .. } => "container_started",
            AuditRecord::ContainerExited { .. } => "container_exited",
            AuditRecord::ContainerRemoved { .. } => "container_removed",
            AuditRecord::Violation { .. } => "violation",
            AuditRecord::Finished { .. } => "finished",
            AuditRecord::Runtime { .. } => "runtime",
            AuditRecord::PackagesInstalled { .. } => "packages_installed",
            AuditRecord::NetworkConnection { .. } => "network_connection",
            AuditRecord::OverrideGrant { .. } => "override_grant",
        }
    }
}

/// What `docker diff` said of a sandbox before it was removed: paths added, changed and
/// deleted in its writable layer, at most `FsChanges::MAX_PATHS` in all, the rest counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FsChanges {
    #[serde(default)]
    pub added: Vec<String>,
    #[serde(default)]
    pub changed: Vec<String>,
    #[serde(default)]
    pub deleted: Vec<String>,
    /// Paths left out past the cap.
    #[serde(default)]
    pub omitted: u64,
    /// Why Docker could not say (the lists are then empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl FsChanges {
    /// Most paths kept in one record.
    pub const MAX_PATHS: usize = 256;
    /// Longest path kept, in bytes (longer ones are cut on a character boundary).
    pub const MAX_PATH_BYTES: usize = 512;
}

/// A checkpoint the AuditChain just signed and stored (`cordon.v1.audit.checkpoint`).
/// Witnesses keep `note`; `cordon audit verify --checkpoint FILE` checks the log against it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointPublished {
    pub origin: String,
    pub size: u64,
    /// Hex of the Merkle root (the note carries it in base64).
    pub root: String,
    /// The C2SP signed note, exactly as stored.
    pub note: String,
}

/// Something a person should look at now (`cordon.v1.events.alert`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alert {
    pub kind: AlertKind,
    pub host: String,
    /// The request concerned, when there is one.
    #[serde(default)]
    pub request_id: Option<String>,
    pub detail: String,
}

/// What an alert is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A sandbox broke a limit and was killed.
    Violation,
    /// An operator overrode a decision.
    Override,
    /// The audit log contradicts itself or a signed checkpoint.
    Tampering,
    /// The audit log was recovered after a crash (a torn last write was cut off).
    Recovery,
    /// cordon itself failed on a request (a panic): it was answered `failed`
    /// (`internal`), or its assessment held at HIGH with finding CRD004.
    Internal,
}
