//! What a request asks of cordon's interpreter and what comes back: sessions that keep a
//! namespace across cells, files placed before the code runs, standard input, and files the
//! program writes (or figures it draws) returned in the result. A request that uses none of
//! these runs as one cell with no files in or out.

use serde::{Deserialize, Serialize};

/// `session` in an `ExecRequest` that opens a new session.
pub const NEW_SESSION: &str = "new";

/// A file a request places in the sandbox's working directory before its code runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// Relative path under the working directory: `/`-separated, no `..`, `.` or empty
    /// parts, at most `MAX_PATH_BYTES`.
    pub path: String,
    pub content: serde_bytes::ByteBuf,
}

impl InputFile {
    pub const MAX_PATH_BYTES: usize = 255;
}

/// What a job does with sessions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", content = "id", rename_all = "snake_case")]
pub enum SessionAction {
    /// Open a session, run this cell first, and keep the sandbox.
    Open,
    /// Run this cell in the session.
    Cell(String),
    /// Run this cell (when there is code) in the session, then close it.
    Close(String),
}

impl SessionAction {
    /// The session named, unless this opens one.
    pub fn id(&self) -> Option<&str> {
        match self {
            SessionAction::Open => None,
            SessionAction::Cell(id) | SessionAction::Close(id) => Some(id),
        }
    }
}

/// The interpreter part of a job: present when the request used any of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellInput {
    #[serde(default)]
    pub session: Option<SessionAction>,
    #[serde(default)]
    pub files: Vec<InputFile>,
    #[serde(default)]
    pub stdin: Option<serde_bytes::ByteBuf>,
    /// For `Open`: the idle timeout the request asked for, seconds.
    #[serde(default)]
    pub idle_secs: Option<u64>,
    /// pip requirements to install before the code runs (one-off runs with network).
    #[serde(default)]
    pub packages: Vec<String>,
}

/// Most requirements one request may list.
pub const MAX_PACKAGES: usize = 16;

/// Why `requirement` is not a plain pip requirement (a name, extras and version
/// specifiers); `None` when it is. Options, URLs, paths and markers are refused, so the
/// install reads nothing but the configured index.
pub fn bad_requirement(requirement: &str) -> Option<String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-[],<>=!~ ".contains(c);
    let starts_with_name = requirement.starts_with(|c: char| c.is_ascii_alphanumeric());
    let fine = !requirement.is_empty()
        && requirement.len() <= 200
        && starts_with_name
        && requirement.chars().all(allowed);
    (!fine).then(|| {
        format!(
            "package {:?} is not a plain requirement (a name, extras and version specifiers; no options, URLs or paths)",
            crate::text::preview_of(requirement, 64)
        )
    })
}

/// A file the program wrote under `./outputs/`, or a matplotlib figure it left open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputFile {
    /// `outputs/<path>` for a written file, `figure-<cell>-<n>.png` for a figure.
    pub name: String,
    pub bytes: u64,
    /// Hex SHA-256 of `content`.
    pub sha256: String,
    pub media_type: String,
    pub content: serde_bytes::ByteBuf,
}

/// What the audit log keeps of a file in or out: its name, size and SHA-256 (the content
/// is kept as a blob of that name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub media_type: String,
}

/// A file not returned, and why (over a cap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    pub name: String,
    pub reason: String,
}

/// A connection the egress proxy refused, as the result reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkDenial {
    pub host: String,
    pub reason: String,
}

/// Where a session stands after a cell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// `<random>@<host>`: the host part routes its cells.
    pub id: String,
    /// Whether it still runs (false once closed, expired or ended by a violation).
    pub open: bool,
    /// Cells it has run, this one included.
    pub cells: u64,
}

/// One kind of thing a program asked Python to do (a PEP 578 audit event and what it was
/// about: a path, an address, a command, a module), how often, and when (seconds from the
/// start of its cell).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuntimeEvent {
    pub event: String,
    pub detail: String,
    pub count: u64,
    pub first_s: f64,
    pub last_s: f64,
}

/// What the runtime record says of a run, in its result: capped lists of the files read
/// and written, the addresses it connected to, the processes it started and the modules it
/// imported; and whether a policy rule stopped a run the Assessor had judged LOW.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeSummary {
    pub files_read: Vec<String>,
    pub files_written: Vec<String>,
    pub connections: Vec<String>,
    pub processes: Vec<String>,
    pub modules: Vec<String>,
    /// Events not kept (past the record's cap on distinct events).
    pub dropped: u64,
    /// A `policy` violation ended a run the Assessor had judged LOW: it missed this one.
    pub assessor_missed: bool,
}

impl RuntimeSummary {
    /// Most entries kept in each list.
    pub const MAX_LISTED: usize = 32;
}

/// A session id: a random part and the host that holds it.
pub fn session_id(random: &str, host: &str) -> String {
    format!("{random}@{host}")
}

/// The host of a session id, if it is well formed.
pub fn host_of_session(id: &str) -> Option<&str> {
    let (random, host) = id.rsplit_once('@')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.len() <= 128
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    (token(random) && token(host)).then_some(host)
}

/// Why a file path cannot be placed in the working directory; `None` when it can.
pub fn unsafe_path(path: &str) -> Option<String> {
    if path.is_empty() || path.len() > InputFile::MAX_PATH_BYTES {
        return Some(format!(
            "file path {path:?} must be 1 to {} bytes",
            InputFile::MAX_PATH_BYTES
        ));
    }
    if path.starts_with('/') || path.split('/').any(|p| matches!(p, "" | "." | "..")) {
        return Some(format!(
            "file path {path:?} must be relative, with no empty, '.' or '..' parts"
        ));
    }
    if path.chars().any(|c| c.is_control()) {
        return Some(format!("file path {path:?} has control characters"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_name_their_host() {
        let id = session_id("a1b2", "node-1");
        assert_eq!(host_of_session(&id), Some("node-1"));
        for bad in ["", "a1b2", "@node", "a1b2@", "a/b@node", "a@no de"] {
            assert_eq!(host_of_session(bad), None, "{bad}");
        }
    }

    #[test]
    fn only_plain_relative_paths_are_placed() {
        for good in ["data.csv", "inputs/ref.json", "a b/c.txt"] {
            assert_eq!(unsafe_path(good), None, "{good}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "./a",
            "a/",
            "x\ny",
        ] {
            assert!(unsafe_path(bad).is_some(), "{bad:?}");
        }
        assert!(unsafe_path(&"a".repeat(256)).is_some());
    }

    #[test]
    fn only_plain_requirements_are_taken() {
        for good in [
            "numpy",
            "pandas==2.1.0",
            "requests[socks]>=2,<3",
            "zope.interface",
        ] {
            assert_eq!(bad_requirement(good), None, "{good}");
        }
        for bad in [
            "",
            "--index-url=http://x",
            "-e .",
            "pkg @ http://x/p.whl",
            "./local",
            "x; python_version<'4'",
        ] {
            assert!(bad_requirement(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn session_actions_serialize_tagged() {
        let action = SessionAction::Cell("x@h".into());
        let json = serde_json::to_string(&action).unwrap();
        assert_eq!(json, r#"{"action":"cell","id":"x@h"}"#);
        assert_eq!(action.id(), Some("x@h"));
        assert_eq!(SessionAction::Open.id(), None);
    }
}
