//! What the ResourceMonitor knows about one sandbox: its limits, its peaks so far, and
//! whether it has already ordered a kill. Pure: fed raw samples, it answers with the usage
//! to publish and the violation to act on, if any (each sandbox is killed at most once).

pub use crate::cgroup::counters::RawSample;
use crate::protocol::exec::{Violation, ViolationKind};
use crate::protocol::monitor::UsageSample;
use crate::protocol::scheduler::Limits;

/// The limits the monitor itself enforces (the kernel and the supervisor enforce the rest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchLimits {
    pub pids: u64,
    pub cpu_time_ms: u64,
}

impl From<&Limits> for WatchLimits {
    fn from(limits: &Limits) -> Self {
        WatchLimits {
            pids: limits.pids,
            cpu_time_ms: limits.cpu_time_ms,
        }
    }
}

/// The monitor's view of one running sandbox.
#[derive(Debug, Clone)]
pub struct Watch {
    pub container_id: String,
    limits: WatchLimits,
    last: UsageSample,
    kill_ordered: bool,
}

impl Watch {
    pub fn new(container_id: &str, limits: WatchLimits) -> Watch {
        Watch {
            container_id: container_id.to_string(),
            limits,
            last: UsageSample {
                container_id: container_id.to_string(),
                ..Default::default()
            },
            kill_ordered: false,
        }
    }

    /// Takes a reading; returns the usage to publish and a violation to kill for (once).
    pub fn observe(&mut self, raw: RawSample) -> (UsageSample, Option<Violation>) {
        let usage = &mut self.last;
        usage.cpu_ms = usage.cpu_ms.max(raw.cpu_ns / 1_000_000);
        usage.memory_bytes = raw.memory_bytes;
        usage.peak_memory_bytes = usage
            .peak_memory_bytes
            .max(raw.memory_bytes)
            .max(raw.max_memory_bytes);
        usage.pids = raw.pids;
        usage.peak_pids = usage.peak_pids.max(raw.pids);
        let violation = if self.kill_ordered {
            None
        } else {
            self.broken_limit()
        };
        self.kill_ordered |= violation.is_some();
        (self.last.clone(), violation)
    }

    /// The usage to report when the sandbox is gone.
    pub fn last_sample(&self) -> UsageSample {
        UsageSample {
            last: true,
            ..self.last.clone()
        }
    }

    fn broken_limit(&self) -> Option<Violation> {
        let usage = &self.last;
        if usage.cpu_ms > self.limits.cpu_time_ms {
            return Some(Violation {
                kind: ViolationKind::Cpu,
                detail: format!(
                    "used {} ms of CPU time; the budget is {} ms",
                    usage.cpu_ms, self.limits.cpu_time_ms
                ),
            });
        }
        if usage.pids >= self.limits.pids {
            return Some(Violation {
                kind: ViolationKind::Pids,
                detail: format!(
                    "{} processes and threads: the limit of {} is exhausted",
                    usage.pids, self.limits.pids
                ),
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> WatchLimits {
        WatchLimits {
            pids: 16,
            cpu_time_ms: 2_000,
        }
    }

    fn sample(cpu_ms: u64, memory: u64, pids: u64) -> RawSample {
        RawSample {
            cpu_ns: cpu_ms * 1_000_000,
            memory_bytes: memory,
            max_memory_bytes: 0,
            pids,
        }
    }

    #[test]
    fn peaks_survive_lower_later_readings() {
        let mut watch = Watch::new("c", limits());
        watch.observe(sample(10, 5_000, 9));
        let (usage, violation) = watch.observe(sample(20, 1_000, 2));
        assert_eq!(
            (usage.peak_memory_bytes, usage.peak_pids, usage.cpu_ms),
            (5_000, 9, 20)
        );
        assert_eq!(violation, None);
        assert!(watch.last_sample().last);
    }

    #[test]
    fn spending_the_cpu_budget_is_a_cpu_violation() {
        let mut watch = Watch::new("c", limits());
        let (_, violation) = watch.observe(sample(2_001, 0, 1));
        assert_eq!(violation.map(|v| v.kind), Some(ViolationKind::Cpu));
    }

    #[test]
    fn exhausting_the_pids_limit_is_a_pids_violation_ordered_once() {
        let mut watch = Watch::new("c", limits());
        let (_, first) = watch.observe(sample(1, 0, 16));
        let (_, second) = watch.observe(sample(1, 0, 16));
        assert_eq!(first.map(|v| v.kind), Some(ViolationKind::Pids));
        assert_eq!(second, None);
    }
}
