//! The assessor's policy: the `[security]` settings (score weights, score thresholds and
//! the known-threat signatures, plain data in `config::ScoringSettings`) plus the signature
//! matcher built from them. `assess` uses the compiled-in defaults and `assess_with` a
//! given policy. The matcher is built once per policy value and shared.

use rustc_hash::FxHashSet as HashSet;
use std::sync::{Arc, LazyLock, OnceLock};

use super::indicators::{MarkerSet, Tag};
use crate::config::{ScoringSettings, Signatures};
use crate::protocol::assessor::Level;

/// Everything configurable about the assessment: the `[security]` settings (plain data in
/// `config`, read through `Deref`) and the signature matcher built from them.
#[derive(Debug, Clone)]
pub struct Policy {
    scoring: ScoringSettings,
    compiled: SignatureCache,
}

impl std::ops::Deref for Policy {
    type Target = ScoringSettings;

    fn deref(&self) -> &ScoringSettings {
        &self.scoring
    }
}

/// Changing the settings (tests give other signatures) drops the matcher built so far.
impl std::ops::DerefMut for Policy {
    fn deref_mut(&mut self) -> &mut ScoringSettings {
        self.compiled = SignatureCache::default();
        &mut self.scoring
    }
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
    let scoring = config::Config::builder()
        .add_source(config::File::from_str(
            crate::config::DEFAULT_TOML,
            config::FileFormat::Toml,
        ))
        .build()
        .expect("config/default.toml parses")
        .get::<ScoringSettings>("security")
        .expect("config/default.toml has a valid [security] section");
    Policy::new(scoring)
});

impl Policy {
    /// The policy of these settings (its matcher is built on first use).
    pub fn new(scoring: ScoringSettings) -> Policy {
        Policy {
            scoring,
            compiled: SignatureCache::default(),
        }
    }

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
    use crate::config::Thresholds;

    fn policy(signatures: Signatures) -> Policy {
        let mut policy = Policy::defaults().clone();
        policy.signatures = signatures;
        policy
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
