//! Which warm sandboxes a supervisor keeps: for each trust level with a `[pool]` size, the
//! spec the Scheduler gives LOW-risk code of that level on a host with room (computed by
//! the Scheduler's own `requested_limits`, so the shapes cannot drift apart), and the
//! room: the host's capacity minus the Scheduler's reserve. Pure.

use super::{PoolClass, Room};
use crate::config::Settings;
use crate::docker::HostCapacity;
use crate::job_limits::requested_limits;
use crate::owner::OwnerTag;
use crate::protocol::assessor::{Level, TrustLevel};
use crate::supervisor::spec::SandboxSpec;
use crate::supervisor::uids::UidRange;

const TRUST_LEVELS: [TrustLevel; 3] = [
    TrustLevel::Untrusted,
    TrustLevel::Unknown,
    TrustLevel::Trusted,
];

/// The pooled classes of this host, by trust level; classes of size 0 are left out.
pub fn pool_classes(
    settings: &Settings,
    host_id: &str,
    (owner, uids): (&OwnerTag, &Option<UidRange>),
) -> Vec<PoolClass> {
    // One class per trust level (a one-off program and a session's first cell start the
    // same way); the pool fills them in this order while the host has room.
    TRUST_LEVELS
        .iter()
        .map(|trust| PoolClass {
            template: template_for(settings, (host_id, owner, uids), *trust),
            size: settings.pool.size_for(*trust) as usize,
        })
        .filter(|class| class.size > 0)
        .collect()
}

/// What warm sandboxes and jobs together may hold on this host.
pub fn pool_room(settings: &Settings, capacity: HostCapacity) -> Room {
    let scheduler = &settings.scheduler;
    Room {
        cpus: (capacity.cpus - scheduler.reserve_cpus).max(0.0),
        memory_bytes: capacity
            .memory_bytes
            .saturating_sub(scheduler.reserve_memory_bytes),
    }
}

fn template_for(
    settings: &Settings,
    (host_id, owner, uids): (&str, &OwnerTag, &Option<UidRange>),
    trust: TrustLevel,
) -> SandboxSpec {
    let sandbox = &settings.sandbox;
    SandboxSpec {
        request_id: super::super::hardening::WARM_REQUEST_ID.to_string(),
        host_id: host_id.to_string(),
        owner: owner.clone(),
        uids: uids.clone(),
        image: sandbox.image.clone(),
        runtime: sandbox.runtime_for(trust),
        user: sandbox.user.clone(),
        workdir: sandbox.workdir.clone(),
        limits: requested_limits(settings, trust, Level::Low, 0, None),
        nofile: settings.caps.nofile,
        fsize_bytes: settings.caps.fsize_bytes,
        egress: None,
        record_fs_changes: settings.sandbox.record_fs_changes,
        packages_dir: false,
        live: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::pool::Shape;

    #[test]
    fn low_risk_code_of_a_pooled_level_matches_its_class_whatever_its_size() {
        let settings = Settings::load(None).unwrap();
        let classes = pool_classes(&settings, "h", (&OwnerTag::unlocked("test"), &None));
        let untrusted = &classes[0];
        assert_eq!(untrusted.size, settings.pool.untrusted as usize);
        for code_bytes in [1, 10_000, 1 << 20] {
            let mut job = untrusted.template.clone();
            job.request_id = "r".into();
            job.limits = requested_limits(
                &settings,
                TrustLevel::Untrusted,
                Level::Low,
                code_bytes,
                Some(2_000),
            );
            assert_eq!(Shape::of(&job), Shape::of(&untrusted.template));
        }
    }

    #[test]
    fn riskier_code_gets_another_shape_and_runs_cold() {
        let settings = Settings::load(None).unwrap();
        let class = &pool_classes(&settings, "h", (&OwnerTag::unlocked("test"), &None))[0];
        let mut job = class.template.clone();
        job.limits = requested_limits(&settings, TrustLevel::Untrusted, Level::Medium, 1, None);
        assert_ne!(Shape::of(&job), Shape::of(&class.template));
    }

    #[test]
    fn levels_of_size_zero_are_not_pooled_and_the_reserve_is_kept_back() {
        let mut settings = Settings::load(None).unwrap();
        settings.pool = crate::config::PoolSettings::disabled();
        assert!(pool_classes(&settings, "h", (&OwnerTag::unlocked("test"), &None)).is_empty());
        settings.scheduler.reserve_cpus = 0.5;
        let capacity = HostCapacity {
            cpus: 2.0,
            memory_bytes: 1 << 30,
        };
        let room = pool_room(&settings, capacity);
        assert_eq!(room.cpus, 1.5);
        assert_eq!(
            room.memory_bytes,
            (1 << 30) - settings.scheduler.reserve_memory_bytes
        );
    }
}
