//! Messages of the BLOCKED-request override: the `HeldRequest` the Assessor keeps
//! (`cordon.v1.exec.held.<request_id>`, last one per request), the operator's signed
//! `OverrideGrant` (`cordon.v1.exec.override`, a work queue), and the Assessor's
//! `GrantDecision` about each grant (`cordon.v1.events.override`).

use serde::{Deserialize, Serialize};

use super::assessor::{Assessment, Job};

/// A BLOCKED request waiting for an operator, or released by one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldRequest {
    pub job: Job,
    pub assessment: Assessment,
    pub held_at_ms: u64,
    /// Set once a grant released it; a request is released at most once.
    #[serde(default)]
    pub released: Option<Release>,
}

/// Which grant released a held request, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Release {
    pub grant_id: String,
    pub operator: String,
    pub at_ms: u64,
}

/// An operator's permission to run one held request, signed with Ed25519.
/// The signature covers every other field (see `assessor::grant::signed_bytes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverrideGrant {
    /// Unique per grant (a ULID).
    pub grant_id: String,
    pub request_id: String,
    /// Hex SHA-256 of the code the operator allows.
    pub code_sha256: String,
    /// Who grants it, for the audit log.
    pub operator: String,
    /// Why, for the audit log.
    pub reason: String,
    pub issued_at_ms: u64,
    pub expires_at_ms: u64,
    /// Base64 Ed25519 public key; must be listed in `overrides.operator_keys`.
    pub public_key: String,
    /// Base64 Ed25519 signature; empty means unsigned.
    #[serde(default)]
    pub signature: String,
}

/// What the Assessor decided about one grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantDecision {
    pub grant_id: String,
    pub request_id: String,
    pub operator: String,
    pub accepted: bool,
    /// `accepted`, or why not: `unsigned`, `unknown_key`, `bad_signature`,
    /// `request_mismatch`, `not_yet_valid`, `expired`, `ttl_too_long`, `not_held`,
    /// `replayed`, `already_released`, `code_mismatch`, `invalid`.
    pub decision: String,
    /// A sentence for people.
    pub message: String,
}
