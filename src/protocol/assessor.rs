//! Messages the Assessor produces: the validated `Job`, its `Assessment`, the `Assessed`
//! hand-off to the Scheduler (`cordon.v1.exec.assessed`) and the `BlockedEvent`
//! (`cordon.v1.events.blocked.<client>`), and `AnalyserRun`, how each analyser took part.

use serde::{Deserialize, Serialize};

/// How much the submitter is trusted; picks the base limits. Ordered from least to most
/// trusted, so a client's ceiling (`[clients]`) compares with `<=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrustLevel {
    Untrusted,
    Unknown,
    Trusted,
}

impl TrustLevel {
    pub const ALL: [TrustLevel; 3] = [
        TrustLevel::Untrusted,
        TrustLevel::Unknown,
        TrustLevel::Trusted,
    ];

    pub fn as_str(&self) -> &'static str {
        match self {
            TrustLevel::Untrusted => "untrusted",
            TrustLevel::Unknown => "unknown",
            TrustLevel::Trusted => "trusted",
        }
    }

    pub fn parse(text: &str) -> Option<TrustLevel> {
        Self::ALL.into_iter().find(|t| t.as_str() == text)
    }
}

/// Who wrote the code: the assistant itself (`self`) or anyone else (`external`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    #[serde(rename = "self")]
    SelfWritten,
    External,
}

impl Origin {
    pub fn as_str(&self) -> &'static str {
        match self {
            Origin::SelfWritten => "self",
            Origin::External => "external",
        }
    }

    pub fn parse(text: &str) -> Option<Origin> {
        [Origin::SelfWritten, Origin::External]
            .into_iter()
            .find(|o| o.as_str() == text)
    }
}

/// A request that passed validation: what every later stage works on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub code: String,
    /// Hex SHA-256 of `code`.
    pub code_sha256: String,
    pub trust: TrustLevel,
    pub origin: Origin,
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub client: Option<String>,
    /// The network the request asked for (the Scheduler may still force `none`).
    #[serde(default)]
    pub network: super::scheduler::Network,
    /// The image the request named, a short name of `[sandbox.images]` the Assessor
    /// checked; `None`: the default image. The supervisor resolves it with its own settings.
    #[serde(default)]
    pub image: Option<String>,
    /// Sessions, files and stdin; `None`: a plain program (one cell, no files in or out).
    #[serde(default)]
    pub interpreter: Option<super::interpreter::CellInput>,
}

/// Risk level, lowest to highest; ordered so `max` picks the worst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Low,
    Medium,
    High,
    Blocked,
}

impl Level {
    pub fn as_str(&self) -> &'static str {
        match self {
            Level::Low => "LOW",
            Level::Medium => "MEDIUM",
            Level::High => "HIGH",
            Level::Blocked => "BLOCKED",
        }
    }
}

/// One reason for the level.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable rule id, e.g. `CRD101`.
    pub rule: String,
    pub title: String,
    pub severity: Level,
    /// `low`, `medium` or `high`.
    pub confidence: String,
    /// 1-based line and column of the offending code.
    pub line: u32,
    pub column: u32,
    /// Why this matters, in one sentence.
    pub message: String,
    #[serde(default)]
    pub cwe: Option<String>,
    #[serde(default)]
    pub snippet: String,
}

/// The Assessor's verdict on one program.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assessment {
    pub level: Level,
    pub score: u32,
    pub findings: Vec<Finding>,
}

/// Assessor -> Scheduler.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assessed {
    pub job: Job,
    pub assessment: Assessment,
}

/// Published when a request is held because it is BLOCKED.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockedEvent {
    pub code_sha256: String,
    pub assessment: Assessment,
    /// The analysers that decided, when external ones are configured.
    #[serde(default)]
    pub analysers: Vec<AnalyserRun>,
}

/// How one analyser took part in an assessment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyserRun {
    /// `cordon`, `bandit` or `semgrep`.
    pub name: String,
    /// `ok`, `missing` (not installed), `timeout`, or `failed`.
    pub status: String,
    /// Findings it contributed.
    #[serde(default)]
    pub findings: usize,
    #[serde(default)]
    pub elapsed_ms: u64,
    /// Why it did not contribute, for people.
    #[serde(default)]
    pub detail: Option<String>,
}

impl AnalyserRun {
    /// The native analyser, which always runs.
    pub fn native() -> AnalyserRun {
        AnalyserRun {
            name: "cordon".into(),
            status: "ok".into(),
            findings: 0,
            elapsed_ms: 0,
            detail: None,
        }
    }

    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }

    /// One sentence: what happened and that the native analyser decided alone.
    pub fn describe(&self) -> String {
        let detail = self.detail.as_deref().unwrap_or("");
        format!(
            "{} {} ({detail}); its findings are not included",
            self.name, self.status
        )
    }
}
