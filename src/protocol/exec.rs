//! Client-facing messages: the `ExecRequest` a client submits and the `ExecResult` it gets.
//! `ExecResult` is also what `cordon exec --json` prints, field for field.
//! Published on `cordon.v1.exec.submit.<client>` and
//! `cordon.v1.exec.result.<client>.<request_id>`.

use serde::{Deserialize, Serialize};

use super::assessor::Assessment;
use super::interpreter::{
    InputFile, NetworkDenial, OutputFile, RuntimeSummary, SessionInfo, SkippedFile,
};
use super::scheduler::Limits;

/// A request to run Python. Fields are loosely typed on purpose: the Assessor validates
/// them and answers bad ones with a `rejected` result that says what was wrong.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecRequest {
    /// The Python source. UTF-8; sent as a MessagePack str or bin.
    pub code: serde_bytes::ByteBuf,
    /// `untrusted` (default), `unknown` or `trusted`.
    #[serde(default)]
    pub trust: Option<String>,
    /// `external` (default) or `self` (written by the assistant itself).
    #[serde(default)]
    pub origin: Option<String>,
    /// Ask for a shorter deadline than the trust level allows, in milliseconds.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// A session key within the submitting client, kept in the audit log. Who the client
    /// is comes from the submit subject (`cordon.v1.exec.submit.<client>`), not from here.
    #[serde(default)]
    pub client: Option<String>,
    /// `none` (default: no network at all) or `allowlist` (read-only egress through
    /// cordon's proxy to the configured hosts; only for the trust levels config allows).
    #[serde(default)]
    pub network: Option<String>,
    /// A short name from the settings' `[sandbox.images]` (`default`, `data`, ...); none:
    /// the default image. A name not there is rejected with `unknown_image`.
    #[serde(default)]
    pub image: Option<String>,
    /// `"new"`: open a session and run this code as its first cell (empty code: open it
    /// only; the result carries the session's id); a session id: run this code as the
    /// next cell of that session, which must be this client's.
    #[serde(default)]
    pub session: Option<String>,
    /// With `session: "new"`: close the session after this many idle seconds (at most the
    /// trust level's `session_idle_secs`).
    #[serde(default)]
    pub idle_timeout_secs: Option<u64>,
    /// With `session`: close the session after this cell (`code` may then be empty).
    #[serde(default)]
    pub close_session: Option<bool>,
    /// Files placed in the working directory before the code runs.
    #[serde(default)]
    pub files: Option<Vec<InputFile>>,
    /// The program's standard input (it reads end of file after it).
    #[serde(default)]
    pub stdin: Option<serde_bytes::ByteBuf>,
    /// pip requirements (`name`, `name==1.2`, `name[extra]>=1`) installed as binary wheels
    /// from the configured index through the egress proxy before the code runs, into a
    /// directory the program can import from but not write. Needs `network: "allowlist"`;
    /// not in sessions.
    #[serde(default)]
    pub packages: Option<Vec<String>>,
    /// Return what the program writes under `./outputs/` and the figures it leaves open
    /// (always done in a session, or when `files` or `stdin` is given).
    #[serde(default)]
    pub return_files: Option<bool>,
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The program ran to its own end; `exit_code` is its own.
    Completed,
    /// The sandbox was killed for breaking a limit; see `violation`.
    Violation,
    /// The assessment was BLOCKED; the code never ran.
    Blocked,
    /// The request itself was bad; see `error`.
    Rejected,
    /// cordon could not run it (Docker, image, internal error); see `error`.
    Failed,
}

impl Status {
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Completed => "completed",
            Status::Violation => "violation",
            Status::Blocked => "blocked",
            Status::Rejected => "rejected",
            Status::Failed => "failed",
        }
    }
}

/// Which limit a sandbox broke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ViolationKind {
    Timeout,
    Memory,
    Pids,
    Output,
    Disk,
    Cpu,
    Network,
    /// The runtime record showed something the runtime policy forbids.
    Policy,
}

impl ViolationKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ViolationKind::Timeout => "timeout",
            ViolationKind::Memory => "memory",
            ViolationKind::Pids => "pids",
            ViolationKind::Output => "output",
            ViolationKind::Disk => "disk",
            ViolationKind::Cpu => "cpu",
            ViolationKind::Network => "network",
            ViolationKind::Policy => "policy",
        }
    }
}

/// A broken limit and what was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub kind: ViolationKind,
    pub detail: String,
}

/// What the sandbox used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub wall_ms: u64,
    pub cpu_ms: u64,
    pub peak_memory_bytes: u64,
    pub peak_pids: u64,
}

/// Where the request's final entry stands in the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRef {
    pub index: u64,
}

/// A machine-readable error code and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    pub code: String,
    pub message: String,
}

impl ErrorInfo {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorInfo {
            code: code.as_str().to_string(),
            message: message.into(),
        }
    }
}

/// The error codes a result can carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidMsgpack,
    UnsupportedSchema,
    InvalidRequest,
    InvalidRequestId,
    InvalidClient,
    EmptyCode,
    CodeTooLarge,
    CodeNotUtf8,
    UnknownTrustLevel,
    UnknownOrigin,
    UnknownNetwork,
    NetworkNotAllowed,
    TrustNotAllowed,
    UnknownImage,
    ImageMissing,
    SandboxLost,
    InvalidFile,
    InputTooLarge,
    UnknownSession,
    SessionLost,
    SessionClosed,
    SessionLimit,
    InvalidPackage,
    PackagesNeedNetwork,
    PackageInstallFailed,
    MessageTooLarge,
    Docker,
    Undeliverable,
    Internal,
}

impl ErrorCode {
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::InvalidMsgpack => "invalid_msgpack",
            ErrorCode::UnsupportedSchema => "unsupported_schema",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::InvalidRequestId => "invalid_request_id",
            ErrorCode::InvalidClient => "invalid_client",
            ErrorCode::EmptyCode => "empty_code",
            ErrorCode::CodeTooLarge => "code_too_large",
            ErrorCode::CodeNotUtf8 => "code_not_utf8",
            ErrorCode::UnknownTrustLevel => "unknown_trust_level",
            ErrorCode::UnknownOrigin => "unknown_origin",
            ErrorCode::UnknownNetwork => "unknown_network",
            ErrorCode::NetworkNotAllowed => "network_not_allowed",
            ErrorCode::TrustNotAllowed => "trust_not_allowed",
            ErrorCode::UnknownImage => "unknown_image",
            ErrorCode::ImageMissing => "image_missing",
            ErrorCode::SandboxLost => "sandbox_lost",
            ErrorCode::InvalidFile => "invalid_file",
            ErrorCode::InputTooLarge => "input_too_large",
            ErrorCode::UnknownSession => "unknown_session",
            ErrorCode::SessionLost => "session_lost",
            ErrorCode::SessionClosed => "session_closed",
            ErrorCode::SessionLimit => "session_limit",
            ErrorCode::InvalidPackage => "invalid_package",
            ErrorCode::PackagesNeedNetwork => "packages_need_network",
            ErrorCode::PackageInstallFailed => "package_install_failed",
            ErrorCode::MessageTooLarge => "message_too_large",
            ErrorCode::Docker => "docker",
            ErrorCode::Undeliverable => "undeliverable",
            ErrorCode::Internal => "internal",
        }
    }
}

/// The one document that says how a request ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExecResult {
    pub request_id: String,
    pub status: Status,
    pub exit_code: Option<i64>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub violation: Option<Violation>,
    pub assessment: Option<Assessment>,
    pub limits: Option<Limits>,
    pub usage: Option<Usage>,
    pub audit: Option<AuditRef>,
    pub error: Option<ErrorInfo>,
    /// The session this cell ran in, and whether it is still open.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionInfo>,
    /// Files the program wrote under `./outputs/` and figures it left open.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<OutputFile>,
    /// Output files not returned (over a cap), and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files_skipped: Vec<SkippedFile>,
    /// Connections the egress proxy refused during the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub network_denied: Vec<NetworkDenial>,
    /// What the program asked Python to do, summarised (every run that started).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeSummary>,
}

impl ExecResult {
    /// A result with nothing run: the shape of `rejected`, `blocked` and early `failed`.
    pub fn without_run(request_id: impl Into<String>, status: Status) -> Self {
        ExecResult {
            request_id: request_id.into(),
            status,
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            stdout_truncated: false,
            stderr_truncated: false,
            violation: None,
            assessment: None,
            limits: None,
            usage: None,
            audit: None,
            error: None,
            session: None,
            files: Vec::new(),
            files_skipped: Vec::new(),
            network_denied: Vec::new(),
            runtime: None,
        }
    }

    /// A `rejected` result for bad input.
    pub fn rejected(request_id: impl Into<String>, error: ErrorInfo) -> Self {
        ExecResult {
            error: Some(error),
            ..Self::without_run(request_id, Status::Rejected)
        }
    }
}

/// A piece of a request's output while it runs, on
/// `cordon.v1.exec.output.<client>.<request_id>` (core NATS, at most once). Chunks are
/// what the result will hold, in order and numbered from 0 so a missed one shows; the
/// result stays the authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputChunk {
    pub seq: u64,
    /// `stdout` or `stderr`.
    pub stream: String,
    pub data: serde_bytes::ByteBuf,
}

/// A message the server gave up on after its maximum deliveries; its request ends `failed`.
/// Published on `cordon.v1.events.dead_letter`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadLetterEvent {
    pub stream: String,
    pub consumer: String,
    pub stream_sequence: u64,
    pub deliveries: u64,
}
