//! Turns trust level, assessment and code size into the limits a job asks for. Pure and
//! shared: the Scheduler calls it (then scales the result down to what a host has free),
//! and the supervisor's warm pool sizes its sandboxes with it, so the two cannot drift.

use crate::config::Settings;
use crate::protocol::assessor::{Level, TrustLevel};
use crate::protocol::scheduler::{Limits, Network};

/// Smallest pids limit a Python interpreter can start with.
const MIN_PIDS: u64 = 8;
/// Smallest deadline worth starting a container for, in milliseconds.
const MIN_TIMEOUT_MS: u64 = 100;

/// The limits a job asks for before host capacity is considered.
pub fn requested_limits(
    settings: &Settings,
    trust: TrustLevel,
    level: Level,
    code_bytes: u64,
    requested_timeout_ms: Option<u64>,
) -> Limits {
    let base = settings.limits.for_trust(trust);
    let factor = risk_factor(settings, level);
    let scale = |value: u64| ((value as f64) * factor) as u64;
    let code_memory = code_bytes.saturating_mul(settings.assessment.memory_per_code_byte);
    let memory_bytes = scale(base.memory_bytes)
        .saturating_add(code_memory)
        .min(base.memory_bytes);
    let mut timeout_ms = scale(base.timeout_ms).max(MIN_TIMEOUT_MS);
    if let Some(asked) = requested_timeout_ms {
        timeout_ms = timeout_ms.min(asked.max(MIN_TIMEOUT_MS));
    }
    Limits {
        cpus: (base.cpus * factor).max(settings.scheduler.min_cpus),
        memory_bytes: memory_bytes.max(settings.scheduler.min_memory_bytes),
        pids: scale(base.pids).max(MIN_PIDS),
        timeout_ms,
        network: Network::None,
        cpu_time_ms: scale(base.cpu_time_ms).max(MIN_TIMEOUT_MS),
        stdout_bytes: settings.caps.stdout_bytes,
        stderr_bytes: settings.caps.stderr_bytes,
        tmpfs_bytes: settings.caps.tmpfs_bytes,
    }
}

/// `limits` no larger than the highest trust level's and the caps allow: what a supervisor
/// runs whatever a scheduled message says, so a forged or buggy one cannot ask a host for
/// more than cordon would ever grant. The network is left as it is (the supervisor gives
/// an allowlist only through its proxy, to requests granted it).
pub fn clamped_to_ceiling(settings: &Settings, limits: &Limits) -> Limits {
    let levels = [
        &settings.limits.untrusted,
        &settings.limits.unknown,
        &settings.limits.trusted,
    ];
    let highest = |of: fn(&crate::config::LevelLimits) -> u64| {
        levels.iter().map(|l| of(l)).max().unwrap_or(0)
    };
    let cpus = levels.iter().map(|l| l.cpus).fold(0.0, f64::max);
    let caps = &settings.caps;
    Limits {
        cpus: limits.cpus.min(cpus),
        memory_bytes: limits.memory_bytes.min(highest(|l| l.memory_bytes)),
        pids: limits.pids.min(highest(|l| l.pids)),
        timeout_ms: limits.timeout_ms.min(highest(|l| l.timeout_ms)),
        network: limits.network,
        cpu_time_ms: limits.cpu_time_ms.min(highest(|l| l.cpu_time_ms)),
        stdout_bytes: limits.stdout_bytes.min(caps.stdout_bytes),
        stderr_bytes: limits.stderr_bytes.min(caps.stderr_bytes),
        tmpfs_bytes: limits.tmpfs_bytes.min(caps.tmpfs_bytes),
    }
}

/// The network a job gets: what it asked for, except that code assessed at
/// `[network] force_none_at` or above gets none (it still runs, without network).
pub fn granted_network(settings: &Settings, asked: Network, level: Level) -> Network {
    match asked {
        Network::Allowlist if level < settings.network.force_none_at => Network::Allowlist,
        _ => Network::None,
    }
}

/// Riskier code runs with less: LOW gets the trust level's limits, MEDIUM and HIGH a share.
fn risk_factor(settings: &Settings, level: Level) -> f64 {
    match level {
        Level::Low => 1.0,
        Level::Medium => settings.assessment.medium_factor,
        Level::High | Level::Blocked => settings.assessment.high_factor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings::load(None).unwrap()
    }

    #[test]
    fn trusted_low_risk_code_gets_the_design_limits() {
        let limits = requested_limits(&settings(), TrustLevel::Trusted, Level::Low, 100, None);
        assert_eq!(limits.cpus, 2.0);
        assert_eq!(limits.memory_bytes, 1 << 30);
        assert_eq!(limits.timeout_ms, 120_000);
        assert_eq!(limits.network, Network::None);
    }

    #[test]
    fn risky_code_loses_the_network_it_asked_for() {
        let s = settings();
        assert_eq!(
            granted_network(&s, Network::Allowlist, Level::Medium),
            Network::Allowlist
        );
        assert_eq!(
            granted_network(&s, Network::Allowlist, Level::High),
            Network::None
        );
        assert_eq!(
            granted_network(&s, Network::None, Level::Low),
            Network::None
        );
    }

    #[test]
    fn less_trust_and_more_risk_each_tighten_the_limits() {
        let s = settings();
        let trusted = requested_limits(&s, TrustLevel::Trusted, Level::Low, 100, None);
        let untrusted = requested_limits(&s, TrustLevel::Untrusted, Level::Low, 100, None);
        let risky = requested_limits(&s, TrustLevel::Untrusted, Level::High, 100, None);
        assert!(untrusted.cpus < trusted.cpus && untrusted.memory_bytes < trusted.memory_bytes);
        assert!(risky.cpus < untrusted.cpus && risky.timeout_ms < untrusted.timeout_ms);
        assert!(risky.pids < untrusted.pids);
    }

    #[test]
    fn a_scheduled_job_never_gets_more_than_the_highest_level_allows() {
        let s = settings();
        let trusted = requested_limits(&s, TrustLevel::Trusted, Level::Low, 1, None);
        assert_eq!(
            clamped_to_ceiling(&s, &trusted),
            trusted,
            "real grants pass as they are"
        );
        let forged = Limits {
            cpus: 64.0,
            memory_bytes: 1 << 40,
            pids: 1 << 20,
            timeout_ms: u64::MAX,
            cpu_time_ms: u64::MAX,
            stdout_bytes: u64::MAX,
            stderr_bytes: u64::MAX,
            tmpfs_bytes: u64::MAX,
            ..trusted.clone()
        };
        let clamped = clamped_to_ceiling(&s, &forged);
        assert_eq!(clamped.cpus, s.limits.trusted.cpus);
        assert_eq!(clamped.memory_bytes, s.limits.trusted.memory_bytes);
        assert_eq!(clamped.pids, s.limits.trusted.pids);
        assert_eq!(clamped.timeout_ms, s.limits.trusted.timeout_ms);
        assert_eq!(clamped.stdout_bytes, s.caps.stdout_bytes);
        assert_eq!(clamped.tmpfs_bytes, s.caps.tmpfs_bytes);
    }

    #[test]
    fn a_requested_timeout_can_only_shorten_the_deadline() {
        let s = settings();
        let short = requested_limits(&s, TrustLevel::Untrusted, Level::Low, 1, Some(2_000));
        let long = requested_limits(&s, TrustLevel::Untrusted, Level::Low, 1, Some(999_000));
        assert_eq!(short.timeout_ms, 2_000);
        assert_eq!(long.timeout_ms, s.limits.untrusted.timeout_ms);
    }

    #[test]
    fn large_code_gets_memory_to_compile_but_never_past_the_trust_ceiling() {
        let s = settings();
        let small = requested_limits(&s, TrustLevel::Untrusted, Level::High, 10, None);
        let large = requested_limits(&s, TrustLevel::Untrusted, Level::High, 1 << 20, None);
        assert!(large.memory_bytes > small.memory_bytes);
        assert!(large.memory_bytes <= s.limits.untrusted.memory_bytes);
    }
}
