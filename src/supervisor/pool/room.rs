//! How much sandbox capacity a host has and how much is held, in the Scheduler's units
//! (CPU cores and memory bytes of limits). Warm sandboxes live only in room no job holds:
//! the Scheduler sees jobs alone, so the pool must never make jobs plus warm sandboxes
//! exceed the host. Pure.

/// Tolerance for sums of fractional CPU limits.
const CPU_EPSILON: f64 = 1e-9;

/// What the host can give sandboxes: its capacity minus the Scheduler's reserve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Room {
    pub cpus: f64,
    pub memory_bytes: u64,
}

/// Limits held by some sandboxes, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Held {
    pub cpus: f64,
    pub memory_bytes: u64,
}

impl Held {
    pub fn plus(self, cpus: f64, memory_bytes: u64) -> Held {
        Held {
            cpus: self.cpus + cpus,
            memory_bytes: self.memory_bytes.saturating_add(memory_bytes),
        }
    }

    pub fn and(self, other: Held) -> Held {
        self.plus(other.cpus, other.memory_bytes)
    }
}

impl Room {
    /// Whether `held` fits in this room.
    pub fn holds(&self, held: Held) -> bool {
        held.cpus <= self.cpus + CPU_EPSILON && held.memory_bytes <= self.memory_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn four_half_cpu_sandboxes_fill_two_cpus_and_a_fifth_does_not_fit() {
        let room = Room {
            cpus: 2.0,
            memory_bytes: 4 * GIB,
        };
        let four = (0..4).fold(Held::default(), |held, _| held.plus(0.5, GIB / 4));
        assert!(room.holds(four));
        assert!(!room.holds(four.plus(0.5, 0)));
    }

    #[test]
    fn memory_counts_as_much_as_cpu() {
        let room = Room {
            cpus: 8.0,
            memory_bytes: GIB,
        };
        let jobs = Held::default().plus(1.0, GIB);
        assert!(room.holds(jobs));
        assert!(!room.holds(jobs.and(Held::default().plus(0.1, 1))));
    }

    #[test]
    fn sums_of_tenths_are_not_refused_for_rounding() {
        let room = Room {
            cpus: 0.3,
            memory_bytes: 3,
        };
        let held = (0..3).fold(Held::default(), |held, _| held.plus(0.1, 1));
        assert!(room.holds(held));
    }
}
