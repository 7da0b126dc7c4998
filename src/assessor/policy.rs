//! The assessor's settings (`[security]` in `config/default.toml`): score weights, score
//! thresholds and the known-threat signatures, plus the signature matcher built from them.
//!
//! `config::Settings` deserialises it; `assess` uses the compiled-in defaults and
//! `assess_with` a given policy. The matcher is built once per policy value and shared.

use rustc_hash::FxHashSet as HashSet;
use std::sync::{Arc, LazyLock, OnceLock};

use serde::Deserialize;

use super::indicators::{MarkerSet, Tag};
use crate::protocol::assessor::Level;

/// Everything configurable about the assessment.
#[derive(Debug, Clone, Deserialize)]
pub struct Policy {
    pub weights: Weights,
    pub thresholds: Thresholds,
    pub signatures: Signatures,
    #[serde(skip)]
    compiled: SignatureCache,
}

/// The matcher built from `signatures` on first use. A clone starts empty, so a policy
/// cloned and then given other signatures never matches with the old ones.
#[derive(Debug, Default)]
struct SignatureCache(OnceLock<Arc<CompiledSignatures>>);

impl Clone for SignatureCache {
    fn clone(&self) -> SignatureCache {
        SignatureCache::default()
    }
}

/// Score added per finding, by the finding's final severity.
#[derive(Debug, Clone, Deserialize)]
pub struct Weights {
    pub low: u32,
    pub medium: u32,
    pub high: u32,
    pub blocked: u32,
}

/// Scores from which the level is raised to at least MEDIUM or HIGH; 0 turns one off.
#[derive(Debug, Clone, Deserialize)]
pub struct Thresholds {
    pub medium_score: u32,
    pub high_score: u32,
}

/// Known threats: any match is BLOCKED. Set them before the policy is first used: the
/// matcher is built from them once per policy value.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Signatures {
    /// SHA-256 (hex) of programs' normalised code (see `normalised_code_sha256`).
    #[serde(default)]
    pub code_sha256: Vec<String>,
    /// Strings whose presence anywhere in the program's text is a known indicator.
    #[serde(default)]
    pub ioc_strings: Vec<String>,
    /// Domains (and their subdomains) of known-hostile services.
    #[serde(default)]
    pub domains: Vec<String>,
    /// IP addresses of known-hostile hosts.
    #[serde(default)]
    pub ips: Vec<String>,
    /// Mining pool domains (a match is crypto-mining).
    #[serde(default)]
    pub mining_pools: Vec<String>,
}

/// What one piece of text matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreatMatch {
    KnownThreat,
    MiningPool,
}

/// Signatures in the shape the scanner checks quickly.
#[derive(Debug, Default)]
pub struct CompiledSignatures {
    code_sha256: HashSet<String>,
    iocs: MarkerSet,
    domains: HashSet<String>,
    pools: HashSet<String>,
    ips: HashSet<String>,
}

/// The `[security]` section of the compiled-in `config/default.toml`.
static DEFAULT_POLICY: LazyLock<Policy> = LazyLock::new(|| {
    let config = config::Config::builder()
        .add_source(config::File::from_str(
            crate::config::DEFAULT_TOML,
            config::FileFormat::Toml,
        ))
        .build()
        .expect("config/default.toml parses");
    config
        .get::<Policy>("security")
        .expect("config/default.toml has a valid [security] section")
});

impl Policy {
    /// The defaults from `config/default.toml`.
    pub fn defaults() -> &'static Policy {
        &DEFAULT_POLICY
    }

    pub fn weight(&self, level: Level) -> u32 {
        match level {
            Level::Low => self.weights.low,
            Level::Medium => self.weights.medium,
            Level::High => self.weights.high,
            Level::Blocked => self.weights.blocked,
        }
    }

    /// The least level a score implies (LOW when below every threshold).
    pub fn level_for_score(&self, score: u32) -> Level {
        let reaches = |threshold: u32| threshold > 0 && score >= threshold;
        if reaches(self.thresholds.high_score) {
            Level::High
        } else if reaches(self.thresholds.medium_score) {
            Level::Medium
        } else {
            Level::Low
        }
    }

    pub fn compiled(&self) -> Arc<CompiledSignatures> {
        self.compiled
            .0
            .get_or_init(|| Arc::new(CompiledSignatures::new(&self.signatures)))
            .clone()
    }

    /// Checks the signature lists; returns the first entry that cannot match anything.
    pub fn invalid_signature(&self) -> Option<String> {
        let bad_hash = |h: &&String| h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit());
        let too_short = |s: &&String| s.trim().len() < 2;
        let s = &self.signatures;
        s.code_sha256
            .iter()
            .find(bad_hash)
            .or_else(|| s.ioc_strings.iter().find(too_short))
            .or_else(|| s.domains.iter().chain(&s.mining_pools).find(too_short))
            .or_else(|| {
                s.ips
                    .iter()
                    .find(|ip| ip.parse::<std::net::IpAddr>().is_err())
            })
            .cloned()
    }
}

impl CompiledSignatures {
    fn new(signatures: &Signatures) -> CompiledSignatures {
        let lower = |list: &[String]| -> HashSet<String> {
            list.iter().map(|s| s.trim().to_ascii_lowercase()).collect()
        };
        CompiledSignatures {
            code_sha256: lower(&signatures.code_sha256),
            iocs: MarkerSet::new(
                signatures
                    .ioc_strings
                    .iter()
                    .map(|s| (s.as_str(), Tag::Ioc)),
            ),
            domains: lower(&signatures.domains),
            pools: lower(&signatures.mining_pools),
            ips: lower(&signatures.ips),
        }
    }

    pub fn wants_code_hash(&self) -> bool {
        !self.code_sha256.is_empty()
    }

    pub fn known_code(&self, sha256_hex: &str) -> bool {
        self.code_sha256.contains(sha256_hex)
    }

    /// Matches one string of the program against IOC strings, domains, pools and IPs.
    pub fn check(&self, text: &str) -> Option<ThreatMatch> {
        let mut found = None;
        self.iocs
            .find(text, |_| found = Some(ThreatMatch::KnownThreat));
        if found.is_some() || !text.contains('.') {
            return found;
        }
        host_words(text).find_map(|host| self.classify_host(&host))
    }

    fn classify_host(&self, host: &str) -> Option<ThreatMatch> {
        if self.ips.contains(host) {
            return Some(ThreatMatch::KnownThreat);
        }
        let mut suffix = host;
        loop {
            if self.pools.contains(suffix) {
                return Some(ThreatMatch::MiningPool);
            }
            if self.domains.contains(suffix) {
                return Some(ThreatMatch::KnownThreat);
            }
            suffix = suffix.split_once('.')?.1;
        }
    }
}

/// Runs of host-name characters that contain a dot, lowercased (`a.oast.pro`, `10.0.0.1`).
fn host_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-'))
        .map(|w| w.trim_matches('.'))
        .filter(|w| w.contains('.'))
        .map(str::to_ascii_lowercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(signatures: Signatures) -> Policy {
        Policy {
            signatures,
            ..Policy::defaults().clone()
        }
    }

    #[test]
    fn defaults_load_from_the_config_file() {
        // The compiled-in [security] section parses and every default signature is valid.
        let defaults = Policy::defaults();
        assert!(defaults.weights.blocked > defaults.weights.high);
        assert_eq!(defaults.invalid_signature(), None);
        assert!(!defaults.signatures.mining_pools.is_empty());
    }

    #[test]
    fn domains_match_with_subdomains_only_on_label_boundaries() {
        // `x.oast.pro` matches `oast.pro`; `notoast.pro` does not.
        let p = policy(Signatures {
            domains: vec!["oast.pro".into()],
            ..Default::default()
        });
        let c = p.compiled();
        assert_eq!(
            c.check("https://x.OAST.pro/a"),
            Some(ThreatMatch::KnownThreat)
        );
        assert_eq!(
            c.check("ping `id`.abc.oast.pro"),
            Some(ThreatMatch::KnownThreat)
        );
        assert_eq!(c.check("https://notoast.pro/"), None);
        assert_eq!(c.check("oast.production.example"), None);
    }

    #[test]
    fn ips_pools_and_ioc_strings_match() {
        // Exact IPs, pool domains (as mining) and IOC substrings, case-insensitively.
        let p = policy(Signatures {
            ips: vec!["203.0.113.9".into()],
            mining_pools: vec!["supportxmr.com".into()],
            ioc_strings: vec!["Kinsing".into()],
            ..Default::default()
        });
        let c = p.compiled();
        assert_eq!(c.check("203.0.113.9:443"), Some(ThreatMatch::KnownThreat));
        assert_eq!(c.check("203.0.113.90"), None);
        assert_eq!(
            c.check("pool.supportxmr.com"),
            Some(ThreatMatch::MiningPool)
        );
        assert_eq!(c.check("/tmp/kinsing"), Some(ThreatMatch::KnownThreat));
    }

    #[test]
    fn malformed_signatures_are_reported() {
        // A hash that is not 64 hex digits or an IP that does not parse is invalid.
        let p = policy(Signatures {
            code_sha256: vec!["abc".into()],
            ..Default::default()
        });
        assert_eq!(p.invalid_signature(), Some("abc".into()));
        let p = policy(Signatures {
            ips: vec!["999.1.1.1".into()],
            ..Default::default()
        });
        assert!(p.invalid_signature().is_some());
    }

    #[test]
    fn score_thresholds_raise_the_level() {
        // With thresholds set, a score reaching one implies at least that level; 0 is off.
        let mut p = Policy::defaults().clone();
        p.thresholds = Thresholds {
            medium_score: 20,
            high_score: 0,
        };
        assert_eq!(p.level_for_score(19), Level::Low);
        assert_eq!(p.level_for_score(20), Level::Medium);
        assert_eq!(p.level_for_score(10_000), Level::Medium);
    }
}
