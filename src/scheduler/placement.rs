//! Chooses a host for a job and scales its limits down to what that host has free, or
//! says "hold it": never overcommits. Pure; the Scheduler feeds it the hosts' latest load
//! reports and its own reservations (jobs scheduled but not yet in a report). Several
//! supervisor processes may serve one host id (a rolling restart, two `cordon serve`):
//! a host's load is the sum of its live instances' reports.
//!
//! Fairness: while another client has a job waiting, a client that already holds its share
//! of the slots (all live hosts' slots divided by the clients running or waiting) is not
//! given another, so one client's backlog cannot keep everyone else waiting.

use std::collections::HashMap;

use crate::config::SchedulerSettings;
use crate::protocol::scheduler::Limits;
use crate::protocol::supervisor::{HostLoad, OpenSession};

/// A job the Scheduler has sent to a host and not yet seen in that host's report.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    pub request_id: String,
    pub client: String,
    pub host: String,
    pub cpus: f64,
    pub memory_bytes: u64,
    pub expires_at_ms: u64,
}

/// The latest report of each supervisor instance of each host, and when it arrived.
#[derive(Debug, Default)]
pub struct Capacity {
    pub hosts: HashMap<String, HashMap<String, (HostLoad, u64)>>,
    pub reservations: Vec<Reservation>,
    /// Clients with a job held for room, and when it last asked.
    pub waiting: HashMap<String, u64>,
}

/// What a job is, for placing it: its request and client, and the limits it asks for.
pub struct Wanted<'a> {
    pub request_id: &'a str,
    pub client: &'a str,
    pub limits: &'a Limits,
}

/// What one host can still give.
#[derive(Debug, Clone, PartialEq)]
struct Free {
    cpus: f64,
    memory_bytes: u64,
    job_slots: u32,
}

impl Capacity {
    /// Takes a host's report; reservations it now lists are counted through it instead.
    pub fn record_load(&mut self, load: HostLoad, now_ms: u64) {
        let listed: Vec<&str> = load.running.iter().map(|j| j.request_id.as_str()).collect();
        self.reservations
            .retain(|r| !(r.host == load.host && listed.contains(&r.request_id.as_str())));
        let instances = self.hosts.entry(load.host.clone()).or_default();
        instances.insert(load.instance.clone(), (load, now_ms));
    }

    /// Drops reports older than `stale_ms` (an instance that stopped, a host that left).
    fn forget_stale(&mut self, now_ms: u64, stale_ms: u64) {
        for instances in self.hosts.values_mut() {
            instances.retain(|_, (_, seen)| now_ms.saturating_sub(*seen) <= stale_ms);
        }
        self.hosts.retain(|_, instances| !instances.is_empty());
    }

    /// Each host's load as the sum of its instances that reported within `stale_ms`.
    fn live_loads(&self, now_ms: u64, stale_ms: u64) -> Vec<HostLoad> {
        let fresh = |seen: &u64| now_ms.saturating_sub(*seen) <= stale_ms;
        self.hosts
            .values()
            .filter_map(|instances| {
                let mut live = instances.values().filter(|(_, seen)| fresh(seen));
                let (first, _) = live.next()?;
                let mut total = first.clone();
                for (load, _) in live {
                    total.running.extend(load.running.iter().cloned());
                    total.sessions.extend(load.sessions.iter().cloned());
                }
                Some(total)
            })
            .collect()
    }

    /// Whether `host` has a live supervisor (one that reported within `host_stale_ms`).
    pub fn host_is_live(&self, host: &str, policy: &SchedulerSettings, now_ms: u64) -> bool {
        self.live_loads(now_ms, policy.host_stale_ms)
            .iter()
            .any(|load| load.host == host)
    }

    /// The sessions `client` holds open on all live hosts.
    pub fn sessions_of(
        &self,
        client: &str,
        policy: &SchedulerSettings,
        now_ms: u64,
    ) -> Vec<OpenSession> {
        self.live_loads(now_ms, policy.host_stale_ms)
            .into_iter()
            .flat_map(|load| load.sessions)
            .filter(|session| session.client == client)
            .collect()
    }

    /// A job ended: its reservation, if still held, is released.
    pub fn release(&mut self, request_id: &str) {
        self.reservations.retain(|r| r.request_id != request_id);
    }

    /// Picks the host with the most free CPU that fits the job, reserves it there and
    /// returns the host and the scaled limits; `None` means hold the job (its client is
    /// then counted as waiting).
    pub fn place(
        &mut self,
        job: &Wanted,
        policy: &SchedulerSettings,
        now_ms: u64,
    ) -> Option<(String, Limits)> {
        let placed = self.try_place(job, policy, now_ms);
        match placed {
            Some(_) => self.waiting.remove(job.client),
            None => self.waiting.insert(job.client.to_string(), now_ms),
        };
        placed
    }

    fn try_place(
        &mut self,
        job: &Wanted,
        policy: &SchedulerSettings,
        now_ms: u64,
    ) -> Option<(String, Limits)> {
        let (request_id, wanted) = (job.request_id, job.limits);
        self.reservations.retain(|r| r.expires_at_ms > now_ms);
        self.forget_stale(now_ms, policy.host_stale_ms);
        let waiting_window = policy.hold_retry_ms.saturating_mul(3) + 1_000;
        self.waiting
            .retain(|_, seen| now_ms.saturating_sub(*seen) <= waiting_window);
        let loads = self.live_loads(now_ms, policy.host_stale_ms);
        if self.over_fair_share(job.client, &loads, policy) {
            return None;
        }
        let (host, free) = loads
            .into_iter()
            .map(|load| (load.host.clone(), self.free_on(&load, policy)))
            .filter(|(_, free)| fits(free, policy))
            .max_by(|a, b| a.1.cpus.total_cmp(&b.1.cpus))?;
        let mut limits = wanted.clone();
        limits.cpus = wanted.cpus.min(free.cpus);
        limits.memory_bytes = wanted.memory_bytes.min(free.memory_bytes);
        self.reservations.push(Reservation {
            request_id: request_id.to_string(),
            client: job.client.to_string(),
            host: host.clone(),
            cpus: limits.cpus,
            memory_bytes: limits.memory_bytes,
            expires_at_ms: now_ms + limits.timeout_ms + 60_000,
        });
        Some((host, limits))
    }

    /// Whether `client` holds at least its share of all live slots while another client
    /// has a job waiting.
    fn over_fair_share(
        &self,
        client: &str,
        loads: &[HostLoad],
        policy: &SchedulerSettings,
    ) -> bool {
        if !self.waiting.keys().any(|other| other != client) {
            return false;
        }
        let slots: u32 = loads.iter().map(|l| max_jobs_of(l, policy)).sum();
        let running = loads.iter().flat_map(|l| l.running.iter());
        let running_clients = running.clone().map(|j| j.client.as_str());
        let reserved_clients = self.reservations.iter().map(|r| r.client.as_str());
        let mut clients: Vec<&str> = running_clients
            .chain(reserved_clients)
            .chain(self.waiting.keys().map(String::as_str))
            .chain([client])
            .collect();
        clients.sort_unstable();
        clients.dedup();
        let share = slots.div_ceil(clients.len() as u32).max(1);
        let held = running.filter(|j| j.client == client).count()
            + self
                .reservations
                .iter()
                .filter(|r| r.client == client)
                .count();
        held as u32 >= share
    }

    fn free_on(&self, load: &HostLoad, policy: &SchedulerSettings) -> Free {
        let reserved = self.reservations.iter().filter(|r| r.host == load.host);
        let running_cpus: f64 = load.running.iter().map(|j| j.cpus).sum();
        // An open session holds its memory between cells too (its CPU only while a cell
        // runs, when the cell is listed as a running job).
        let running_memory: u64 = load.running.iter().map(|j| j.memory_bytes).sum::<u64>()
            + load.sessions.iter().map(|s| s.memory_bytes).sum::<u64>();
        let reserved_cpus: f64 = reserved.clone().map(|r| r.cpus).sum();
        let reserved_memory: u64 = reserved.clone().map(|r| r.memory_bytes).sum();
        let jobs = load.running.len() as u32 + reserved.count() as u32;
        let max_jobs = max_jobs_of(load, policy);
        Free {
            cpus: load.cpus_total - policy.reserve_cpus - running_cpus - reserved_cpus,
            memory_bytes: load
                .memory_total_bytes
                .saturating_sub(policy.reserve_memory_bytes)
                .saturating_sub(running_memory)
                .saturating_sub(reserved_memory),
            job_slots: max_jobs.saturating_sub(jobs),
        }
    }
}

/// A host's job slots: the setting when given, else what the host reports.
fn max_jobs_of(load: &HostLoad, policy: &SchedulerSettings) -> u32 {
    if policy.max_jobs > 0 {
        policy.max_jobs
    } else {
        load.max_jobs
    }
}

fn fits(free: &Free, policy: &SchedulerSettings) -> bool {
    free.job_slots > 0
        && free.cpus >= policy.min_cpus
        && free.memory_bytes >= policy.min_memory_bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::protocol::supervisor::RunningJob;

    const GIB: u64 = 1 << 30;

    fn policy() -> SchedulerSettings {
        let mut p = Settings::load(None).unwrap().scheduler;
        p.reserve_cpus = 0.0;
        p.reserve_memory_bytes = 0;
        p.max_jobs = 0;
        p
    }

    fn wanted(cpus: f64, memory_bytes: u64) -> Limits {
        let s = Settings::load(None).unwrap();
        let mut l = crate::job_limits::requested_limits(
            &s,
            crate::protocol::assessor::TrustLevel::Trusted,
            crate::protocol::assessor::Level::Low,
            1,
            None,
        );
        l.cpus = cpus;
        l.memory_bytes = memory_bytes;
        l
    }

    fn load(
        host: &str,
        cpus: f64,
        memory: u64,
        max_jobs: u32,
        running: &[(&str, f64, u64)],
    ) -> HostLoad {
        HostLoad {
            host: host.into(),
            instance: String::new(),
            cpus_total: cpus,
            memory_total_bytes: memory,
            max_jobs,
            running: running
                .iter()
                .map(|(id, c, m)| RunningJob {
                    request_id: (*id).into(),
                    cpus: *c,
                    memory_bytes: *m,
                    client: "a".into(),
                })
                .collect(),
            sessions: Vec::new(),
        }
    }

    fn job<'a>(request_id: &'a str, client: &'a str, limits: &'a Limits) -> Wanted<'a> {
        Wanted {
            request_id,
            client,
            limits,
        }
    }

    #[test]
    fn a_job_is_scaled_down_to_what_the_host_has_free() {
        let mut capacity = Capacity::default();
        capacity.record_load(load("h", 2.0, 2 * GIB, 4, &[("a", 1.5, GIB + GIB / 2)]), 0);
        let (host, limits) = capacity
            .place(&job("b", "a", &wanted(2.0, GIB)), &policy(), 0)
            .unwrap();
        assert_eq!(host, "h");
        assert_eq!(limits.cpus, 0.5);
        assert_eq!(limits.memory_bytes, GIB / 2);
    }

    #[test]
    fn a_full_host_holds_the_job_instead_of_overcommitting() {
        let mut capacity = Capacity::default();
        capacity.record_load(load("h", 1.0, 4 * GIB, 1, &[]), 0);
        assert!(capacity
            .place(&job("a", "a", &wanted(1.0, GIB)), &policy(), 0)
            .is_some());
        // "a" is reserved but not yet reported: the one slot is taken.
        assert!(capacity
            .place(&job("b", "a", &wanted(1.0, GIB)), &policy(), 0)
            .is_none());
        capacity.release("a");
        assert!(capacity
            .place(&job("b", "a", &wanted(1.0, GIB)), &policy(), 0)
            .is_some());
    }

    #[test]
    fn a_reservation_listed_in_a_report_is_counted_once() {
        let mut capacity = Capacity::default();
        capacity.record_load(load("h", 2.0, 4 * GIB, 8, &[]), 0);
        capacity
            .place(&job("a", "a", &wanted(1.0, GIB)), &policy(), 0)
            .unwrap();
        capacity.record_load(load("h", 2.0, 4 * GIB, 8, &[("a", 1.0, GIB)]), 10);
        assert!(capacity.reservations.is_empty());
        let (_, limits) = capacity
            .place(&job("b", "a", &wanted(2.0, GIB)), &policy(), 10)
            .unwrap();
        assert_eq!(limits.cpus, 1.0);
    }

    #[test]
    fn stale_hosts_get_no_work_and_the_freest_host_wins() {
        let mut capacity = Capacity::default();
        capacity.record_load(load("old", 64.0, 64 * GIB, 8, &[]), 0);
        capacity.record_load(load("busy", 2.0, 4 * GIB, 8, &[("x", 1.5, GIB)]), 9_000);
        capacity.record_load(load("idle", 2.0, 4 * GIB, 8, &[]), 9_000);
        let (host, _) = capacity
            .place(&job("a", "a", &wanted(1.0, GIB)), &policy(), 10_000)
            .unwrap();
        assert_eq!(host, "idle");
    }

    #[test]
    fn two_instances_of_one_host_share_its_room() {
        let mut capacity = Capacity::default();
        let mut old = load("h", 2.0, 4 * GIB, 2, &[("a", 1.0, GIB)]);
        old.instance = "old".into();
        let mut new = load("h", 2.0, 4 * GIB, 2, &[("b", 0.5, GIB)]);
        new.instance = "new".into();
        capacity.record_load(old, 9_000);
        capacity.record_load(new, 9_500);
        assert!(
            capacity
                .place(&job("c", "a", &wanted(0.5, GIB)), &policy(), 10_000)
                .is_none(),
            "two jobs run in all: both slots are taken"
        );
        capacity.hosts.get_mut("h").unwrap().remove("old");
        let (_, limits) = capacity
            .place(&job("c", "a", &wanted(2.0, GIB)), &policy(), 10_000)
            .unwrap();
        assert_eq!(limits.cpus, 1.5, "only the live instance's job is counted");
    }

    #[test]
    fn a_client_holding_its_share_waits_while_another_client_waits() {
        let mut capacity = Capacity::default();
        let limits = wanted(0.5, GIB);
        capacity.record_load(
            load("h", 4.0, 8 * GIB, 2, &[("a1", 0.5, GIB), ("a2", 0.5, GIB)]),
            0,
        );
        assert!(
            capacity
                .place(&job("b1", "b", &limits), &policy(), 10)
                .is_none(),
            "full"
        );
        // a1 ends: one slot is free; "a" already holds one of the two shares.
        capacity.record_load(load("h", 4.0, 8 * GIB, 2, &[("a2", 0.5, GIB)]), 20);
        assert!(
            capacity
                .place(&job("a3", "a", &limits), &policy(), 30)
                .is_none(),
            "a holds its share while b waits"
        );
        assert!(capacity
            .place(&job("b1", "b", &limits), &policy(), 40)
            .is_some());
    }

    #[test]
    fn with_no_one_else_waiting_one_client_may_fill_every_slot() {
        let mut capacity = Capacity::default();
        let limits = wanted(0.5, GIB);
        capacity.record_load(load("h", 4.0, 8 * GIB, 3, &[("a1", 0.5, GIB)]), 0);
        assert!(capacity
            .place(&job("a2", "a", &limits), &policy(), 10)
            .is_some());
        assert!(capacity
            .place(&job("a3", "a", &limits), &policy(), 20)
            .is_some());
        assert!(
            capacity
                .place(&job("a4", "a", &limits), &policy(), 30)
                .is_none(),
            "full"
        );
    }

    #[test]
    fn no_report_at_all_means_hold() {
        let mut capacity = Capacity::default();
        assert!(capacity
            .place(&job("a", "a", &wanted(1.0, GIB)), &policy(), 0)
            .is_none());
    }
}
