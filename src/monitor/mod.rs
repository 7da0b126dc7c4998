//! The ResourceMonitor: follows each running sandbox's usage, publishes samples with peaks,
//! and orders a kill when it sees a limit broken first (CPU time, pids). Readings come from
//! the container's cgroup files where readable (`cgroup`), else Docker's stats API (`stats`).

pub mod actor;
pub mod cgroup;
pub mod stats;
pub mod watch;
