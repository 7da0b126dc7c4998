//! Override grants, the pure part: Ed25519 key files, the exact bytes a grant's signature
//! covers, signing, and every check a grant must pass that needs no I/O (signature, listed
//! key, request id, validity window). `cordon keygen` and `cordon override` sign with it;
//! the Assessor's `override_grant` handler verifies with it, then checks the held request.
//! Key files are written and read by `commands::keygen`.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use crate::config::OverrideSettings;
use crate::protocol::grant::OverrideGrant;

/// Domain separation: these bytes start every signed message, so a grant signature can
/// never be mistaken for a signature over anything else.
const DOMAIN: &[u8] = b"cordon override grant v1\0";

/// Why a grant is refused before the held request is even looked at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the grant is not signed")]
    Unsigned,
    #[error("the grant's key is not in overrides.operator_keys")]
    UnknownKey,
    #[error("the signature does not match the grant")]
    BadSignature,
    #[error("the grant names request {grant} but was sent for {envelope}")]
    RequestMismatch { grant: String, envelope: String },
    #[error("the grant is issued in the future")]
    NotYetValid,
    #[error("the grant expired")]
    Expired,
    #[error("the grant is valid for {asked_secs} s; at most {max_secs} s is allowed")]
    TtlTooLong { asked_secs: u64, max_secs: u64 },
    #[error("no BLOCKED request {0} is held")]
    NotHeld(String),
    #[error("this grant was already used to release request {0}")]
    Replayed(String),
    #[error("request {0} was already released by another grant")]
    AlreadyReleased(String),
    #[error("the grant is for code {grant} but the held request's code is {held}")]
    CodeMismatch { grant: String, held: String },
    #[error("the grant is unreadable: {0}")]
    Invalid(String),
}

impl Refusal {
    /// The machine-readable decision code (`GrantDecision::decision`).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Unsigned => "unsigned",
            Refusal::UnknownKey => "unknown_key",
            Refusal::BadSignature => "bad_signature",
            Refusal::RequestMismatch { .. } => "request_mismatch",
            Refusal::NotYetValid => "not_yet_valid",
            Refusal::Expired => "expired",
            Refusal::TtlTooLong { .. } => "ttl_too_long",
            Refusal::NotHeld(_) => "not_held",
            Refusal::Replayed(_) => "replayed",
            Refusal::AlreadyReleased(_) => "already_released",
            Refusal::CodeMismatch { .. } => "code_mismatch",
            Refusal::Invalid(_) => "invalid",
        }
    }
}

/// The bytes a grant's signature covers: a domain tag, then every field but the
/// signature, each as a little-endian u32 length and its UTF-8 bytes.
pub fn signed_bytes(grant: &OverrideGrant) -> Vec<u8> {
    let issued = grant.issued_at_ms.to_string();
    let expires = grant.expires_at_ms.to_string();
    let fields = [
        grant.grant_id.as_str(),
        &grant.request_id,
        &grant.code_sha256,
        &grant.operator,
        &grant.reason,
        &issued,
        &expires,
        &grant.public_key,
    ];
    let mut out = DOMAIN.to_vec();
    for field in fields {
        out.extend_from_slice(&(field.len() as u32).to_le_bytes());
        out.extend_from_slice(field.as_bytes());
    }
    out
}

/// Fills in `public_key` and `signature` with `key`.
pub fn sign(grant: &mut OverrideGrant, key: &SigningKey) {
    grant.public_key = B64.encode(key.verifying_key().as_bytes());
    grant.signature = B64.encode(key.sign(&signed_bytes(grant)).to_bytes());
}

/// Every check that needs no I/O, in the order a refusal is reported.
pub fn check(
    grant: &OverrideGrant,
    envelope_request_id: &str,
    overrides: &OverrideSettings,
    now_ms: u64,
) -> Result<(), Refusal> {
    if grant.signature.is_empty() {
        return Err(Refusal::Unsigned);
    }
    let listed = overrides
        .operator_keys
        .iter()
        .any(|k| k.trim() == grant.public_key);
    if !listed {
        return Err(Refusal::UnknownKey);
    }
    verify_signature(grant)?;
    if grant.request_id != envelope_request_id {
        return Err(Refusal::RequestMismatch {
            grant: grant.request_id.clone(),
            envelope: envelope_request_id.to_string(),
        });
    }
    check_window(grant, overrides, now_ms)
}

fn verify_signature(grant: &OverrideGrant) -> Result<(), Refusal> {
    let key_bytes: [u8; 32] = decode_fixed(&grant.public_key).ok_or(Refusal::BadSignature)?;
    let signature: [u8; 64] = decode_fixed(&grant.signature).ok_or(Refusal::BadSignature)?;
    let key = VerifyingKey::from_bytes(&key_bytes).map_err(|_| Refusal::BadSignature)?;
    key.verify_strict(&signed_bytes(grant), &Signature::from_bytes(&signature))
        .map_err(|_| Refusal::BadSignature)
}

fn check_window(
    grant: &OverrideGrant,
    overrides: &OverrideSettings,
    now_ms: u64,
) -> Result<(), Refusal> {
    let skew_ms = overrides.clock_skew_secs.saturating_mul(1000);
    if grant.issued_at_ms > now_ms.saturating_add(skew_ms) {
        return Err(Refusal::NotYetValid);
    }
    if grant.expires_at_ms <= now_ms {
        return Err(Refusal::Expired);
    }
    let asked_ms = grant.expires_at_ms.saturating_sub(grant.issued_at_ms);
    let max_ms = overrides.max_grant_ttl_secs.saturating_mul(1000);
    if asked_ms > max_ms {
        return Err(Refusal::TtlTooLong {
            asked_secs: asked_ms / 1000,
            max_secs: overrides.max_grant_ttl_secs,
        });
    }
    Ok(())
}

/// Base64 text that decodes to exactly `N` bytes.
pub fn decode_fixed<const N: usize>(text: &str) -> Option<[u8; N]> {
    B64.decode(text.trim()).ok()?.try_into().ok()
}

/// The base64 public key of `key`, as `overrides.operator_keys` lists it.
pub fn public_key_text(key: &SigningKey) -> String {
    B64.encode(key.verifying_key().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_800_000_000_000;

    fn key_of(n: u8) -> SigningKey {
        SigningKey::from_bytes(&[n; 32])
    }

    fn overrides(keys: Vec<String>) -> OverrideSettings {
        OverrideSettings {
            operator_keys: keys,
            max_grant_ttl_secs: 3600,
            clock_skew_secs: 60,
        }
    }

    fn signed(key: &SigningKey) -> OverrideGrant {
        let mut grant = OverrideGrant {
            grant_id: "g1".into(),
            request_id: "r1".into(),
            code_sha256: "ab".repeat(32),
            operator: "alice".into(),
            reason: "reviewed by hand".into(),
            issued_at_ms: NOW,
            expires_at_ms: NOW + 60_000,
            public_key: String::new(),
            signature: String::new(),
        };
        sign(&mut grant, key);
        grant
    }

    fn refusal(grant: &OverrideGrant, key: &SigningKey) -> Option<&'static str> {
        let settings = overrides(vec![public_key_text(key)]);
        check(grant, "r1", &settings, NOW + 1)
            .err()
            .map(|r| r.code())
    }

    #[test]
    fn a_signed_grant_from_a_listed_key_passes() {
        // Sign, then verify against the allow-list: accepted.
        let key = key_of(1);
        assert_eq!(refusal(&signed(&key), &key), None);
    }

    #[test]
    fn every_covered_field_is_protected_by_the_signature() {
        // Changing any signed field after signing breaks the signature.
        let key = key_of(1);
        let edits: [fn(&mut OverrideGrant); 6] = [
            |g| g.grant_id.push('x'),
            |g| g.code_sha256 = "cd".repeat(32),
            |g| g.operator.push('x'),
            |g| g.reason.push('x'),
            |g| g.issued_at_ms -= 1,
            |g| g.expires_at_ms += 1,
        ];
        for edit in edits {
            let mut grant = signed(&key);
            edit(&mut grant);
            assert_eq!(refusal(&grant, &key), Some("bad_signature"));
        }
        let mut other_request = signed(&key);
        other_request.request_id = "r2".into();
        assert_eq!(refusal(&other_request, &key), Some("bad_signature"));
    }

    #[test]
    fn unsigned_unknown_and_out_of_window_grants_are_refused() {
        // Each failure has its own decision code.
        let key = key_of(1);
        let mut unsigned = signed(&key);
        unsigned.signature.clear();
        assert_eq!(refusal(&unsigned, &key), Some("unsigned"));
        let stranger = key_of(2);
        assert_eq!(refusal(&signed(&stranger), &key), Some("unknown_key"));
        let mut late = signed(&key);
        late.expires_at_ms = NOW;
        sign(&mut late, &key);
        assert_eq!(refusal(&late, &key), Some("expired"));
        let mut long = signed(&key);
        long.expires_at_ms = NOW + 7_200_000;
        sign(&mut long, &key);
        assert_eq!(refusal(&long, &key), Some("ttl_too_long"));
        let mut future = signed(&key);
        future.issued_at_ms = NOW + 3_600_000;
        future.expires_at_ms = NOW + 3_601_000;
        sign(&mut future, &key);
        assert_eq!(refusal(&future, &key), Some("not_yet_valid"));
        let settings = overrides(vec![public_key_text(&key)]);
        let sent_for_other = check(&signed(&key), "r2", &settings, NOW).unwrap_err();
        assert_eq!(sent_for_other.code(), "request_mismatch");
    }

    #[test]
    fn garbage_keys_and_signatures_are_bad_signatures_not_panics() {
        // Base64 of the wrong length or not base64 at all is refused cleanly.
        let key = key_of(1);
        let mut grant = signed(&key);
        grant.signature = "!!!".into();
        assert_eq!(refusal(&grant, &key), Some("bad_signature"));
        grant.signature = B64.encode([0u8; 10]);
        assert_eq!(refusal(&grant, &key), Some("bad_signature"));
    }
}
