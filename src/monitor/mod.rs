//! The ResourceMonitor: follows each running sandbox's usage, publishes samples with peaks,
//! and orders a kill when it sees a limit broken first (CPU time, pids). Readings come from
//! the container's cgroup files where readable (`crate::cgroup::counters`), else Docker's stats API (`stats`).

pub(crate) mod actor;
mod gvisor;
pub(crate) mod stats;
pub(crate) mod watch;
