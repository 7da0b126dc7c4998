//! Every NATS subject cordon uses, built AND parsed here, so the two cannot drift.
//! Subjects read noun-then-verb with whole words (`cordon.v1.exec.result.<client>.<id>`),
//! so wildcards work. `API` is the only place the version prefix is spelled.
//!
//! A client's subjects carry its name (`<client>`) so the NATS server can enforce who may
//! say and read what: a client may publish only on `cordon.v1.exec.submit.<client>` and
//! read only `cordon.v1.exec.result.<client>.>` (see `deploy/nats/cordon.conf`). The
//! Assessor takes a request's client from the subject the server accepted, never from
//! the message body.

use std::fmt;

/// The versioned prefix of every subject. A breaking wire change gets `cordon.v2`.
pub const API: &str = "cordon.v1";

/// One subject, as cordon understands it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// Client `client` publishes `ExecRequest`s here (JetStream work queue, deduplicated by
    /// request id).
    ExecSubmit { client: String },
    /// Assessor -> Scheduler: an `Assessed` job.
    ExecAssessed,
    /// Scheduler -> ContainerSupervisor of one host: a `Scheduled` job.
    ExecScheduled { host: String },
    /// AuditChain -> client `client`: the final `ExecResult` of one of its requests.
    ExecResult { client: String, request_id: String },
    /// ContainerSupervisor -> Scheduler: what a host runs and has free (`HostLoad`).
    HostLoad { host: String },
    /// ContainerSupervisor -> ResourceMonitor: a sandbox started (`ContainerStarted`).
    ContainerStarted { host: String },
    /// ContainerSupervisor -> ResourceMonitor: a sandbox ended (`ContainerExited`).
    ContainerExited { host: String },
    /// ResourceMonitor -> ContainerSupervisor: kill a sandbox (`KillOrder`).
    ContainerKill { host: String },
    /// ResourceMonitor -> ContainerSupervisor and anyone watching: a `UsageSample`.
    ContainerUsage { request_id: String },
    /// Every actor -> AuditChain: an `AuditEvent` to append (JetStream work queue).
    AuditAppend,
    /// AuditChain -> witnesses: a signed checkpoint (`CheckpointPublished`).
    AuditCheckpoint,
    /// A sandbox of client `client` was killed for breaking a limit (`ViolationEvent`).
    EventsViolation { client: String },
    /// A request of client `client` was held because its assessment is BLOCKED
    /// (`BlockedEvent`).
    EventsBlocked { client: String },
    /// ContainerSupervisor -> client `client`: live output of one of its requests while it
    /// runs (`OutputChunk`, plain NATS; the result stays the authority).
    ExecOutput { client: String, request_id: String },
    /// Client `client` -> Scheduler, request/reply: the sessions it holds open
    /// (`SessionList`).
    SessionList { client: String },
    /// A message was given up on after its maximum deliveries (`DeadLetterEvent`).
    EventsDeadLetter,
    /// Violations, overrides, tampering and recovery alarms for operators (`Alert`).
    EventsAlert,
    /// Assessor's store of one held BLOCKED request (`HeldRequest`, last one kept).
    ExecHeld { request_id: String },
    /// Operators -> Assessor: a signed `OverrideGrant` (JetStream work queue).
    ExecOverride,
    /// Assessor -> operators and anyone watching: a `GrantDecision`.
    EventsOverride,
}

impl Subject {
    /// The subject string to publish or subscribe to.
    pub fn to_subject(&self) -> String {
        match self {
            Subject::ExecSubmit { client } => format!("{API}.exec.submit.{client}"),
            Subject::ExecAssessed => format!("{API}.exec.assessed"),
            Subject::ExecScheduled { host } => format!("{API}.exec.scheduled.{host}"),
            Subject::ExecResult { client, request_id } => {
                format!("{API}.exec.result.{client}.{request_id}")
            }
            Subject::HostLoad { host } => format!("{API}.host.load.{host}"),
            Subject::ContainerStarted { host } => format!("{API}.container.started.{host}"),
            Subject::ContainerExited { host } => format!("{API}.container.exited.{host}"),
            Subject::ContainerKill { host } => format!("{API}.container.kill.{host}"),
            Subject::ContainerUsage { request_id } => {
                format!("{API}.container.usage.{request_id}")
            }
            Subject::AuditAppend => format!("{API}.audit.append"),
            Subject::AuditCheckpoint => format!("{API}.audit.checkpoint"),
            Subject::EventsViolation { client } => format!("{API}.events.violation.{client}"),
            Subject::EventsBlocked { client } => format!("{API}.events.blocked.{client}"),
            Subject::ExecOutput { client, request_id } => {
                format!("{API}.exec.output.{client}.{request_id}")
            }
            Subject::SessionList { client } => format!("{API}.session.list.{client}"),
            Subject::EventsDeadLetter => format!("{API}.events.dead_letter"),
            Subject::EventsAlert => format!("{API}.events.alert"),
            Subject::ExecHeld { request_id } => format!("{API}.exec.held.{request_id}"),
            Subject::ExecOverride => format!("{API}.exec.override"),
            Subject::EventsOverride => format!("{API}.events.override"),
        }
    }

    /// Parses a subject string back into a `Subject`.
    pub fn parse(subject: &str) -> Result<Subject, SubjectError> {
        let rest = subject
            .strip_prefix(API)
            .and_then(|r| r.strip_prefix('.'))
            .ok_or_else(|| SubjectError::NotCordon(subject.to_string()))?;
        let parts: Vec<&str> = rest.split('.').collect();
        let owned = |s: &str| s.to_string();
        let parsed = match parts.as_slice() {
            ["exec", "submit", client] => Subject::ExecSubmit {
                client: owned(client),
            },
            ["exec", "assessed"] => Subject::ExecAssessed,
            ["exec", "scheduled", host] => Subject::ExecScheduled { host: owned(host) },
            ["exec", "result", client, id] => Subject::ExecResult {
                client: owned(client),
                request_id: owned(id),
            },
            ["host", "load", host] => Subject::HostLoad { host: owned(host) },
            ["container", "started", host] => Subject::ContainerStarted { host: owned(host) },
            ["container", "exited", host] => Subject::ContainerExited { host: owned(host) },
            ["container", "kill", host] => Subject::ContainerKill { host: owned(host) },
            ["container", "usage", id] => Subject::ContainerUsage {
                request_id: owned(id),
            },
            ["audit", "append"] => Subject::AuditAppend,
            ["audit", "checkpoint"] => Subject::AuditCheckpoint,
            ["events", "violation", client] => Subject::EventsViolation {
                client: owned(client),
            },
            ["events", "blocked", client] => Subject::EventsBlocked {
                client: owned(client),
            },
            ["exec", "output", client, id] => Subject::ExecOutput {
                client: owned(client),
                request_id: owned(id),
            },
            ["session", "list", client] => Subject::SessionList {
                client: owned(client),
            },
            ["events", "dead_letter"] => Subject::EventsDeadLetter,
            ["events", "alert"] => Subject::EventsAlert,
            ["exec", "held", id] => Subject::ExecHeld {
                request_id: owned(id),
            },
            ["exec", "override"] => Subject::ExecOverride,
            ["events", "override"] => Subject::EventsOverride,
            _ => return Err(SubjectError::Unknown(subject.to_string())),
        };
        Ok(parsed)
    }
}

impl Subject {
    /// One subject of every kind, with example tokens: what docs and contract tests
    /// enumerate. A new kind of subject must be added here.
    pub fn examples() -> Vec<Subject> {
        let host = "worker-1".to_string();
        let request_id = "01J9ZQ3V7Y8K2M4N6P8R0T2V4X".to_string();
        let client = "alice".to_string();
        vec![
            Subject::ExecSubmit {
                client: client.clone(),
            },
            Subject::ExecAssessed,
            Subject::ExecScheduled { host: host.clone() },
            Subject::ExecResult {
                client: client.clone(),
                request_id: request_id.clone(),
            },
            Subject::ExecHeld {
                request_id: request_id.clone(),
            },
            Subject::ExecOutput {
                client: client.clone(),
                request_id: request_id.clone(),
            },
            Subject::SessionList {
                client: client.clone(),
            },
            Subject::ExecOverride,
            Subject::HostLoad { host: host.clone() },
            Subject::ContainerStarted { host: host.clone() },
            Subject::ContainerExited { host: host.clone() },
            Subject::ContainerKill { host },
            Subject::ContainerUsage { request_id },
            Subject::AuditAppend,
            Subject::AuditCheckpoint,
            Subject::EventsViolation {
                client: client.clone(),
            },
            Subject::EventsBlocked { client },
            Subject::EventsDeadLetter,
            Subject::EventsAlert,
            Subject::EventsOverride,
        ]
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_subject())
    }
}

/// Wildcard subjects for streams and subscriptions that cover many requests or hosts.
pub mod wildcard {
    use super::API;

    /// Every scheduled job, whatever its host (the scheduled stream's subjects).
    pub fn exec_scheduled_all() -> String {
        format!("{API}.exec.scheduled.>")
    }
    /// Every submission, whatever its client (the submit stream's subjects).
    pub fn exec_submit_all() -> String {
        format!("{API}.exec.submit.>")
    }
    /// Every final result (the results stream's subjects).
    pub fn exec_result_all() -> String {
        format!("{API}.exec.result.>")
    }
    /// Every client's session list requests (the Scheduler answers them).
    pub fn session_list_all() -> String {
        format!("{API}.session.list.*")
    }
    /// Every host's load report.
    pub fn host_load_all() -> String {
        format!("{API}.host.load.>")
    }
    /// Every event (violations, blocked requests, override decisions).
    pub fn events_all() -> String {
        format!("{API}.events.>")
    }
    /// Every client's violations (for operators and metrics).
    pub fn events_violation_all() -> String {
        format!("{API}.events.violation.*")
    }
    /// Every held request (the held stream's subjects).
    pub fn exec_held_all() -> String {
        format!("{API}.exec.held.>")
    }
}

/// Whether `token` may stand as one subject token (a host name, client name or request id).
/// NATS gives `.`, `*`, `>` and white space special meaning; we also keep tokens short.
pub fn is_valid_token(token: &str) -> bool {
    !token.is_empty()
        && token.len() <= 128
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SubjectError {
    #[error("subject {0:?} is not under {API}")]
    NotCordon(String),
    #[error("subject {0:?} is not a cordon subject")]
    Unknown(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_subject_round_trips_through_its_parser() {
        for subject in Subject::examples() {
            let text = subject.to_subject();
            assert!(text.starts_with("cordon.v1."), "{text}");
            assert_eq!(Subject::parse(&text), Ok(subject));
        }
    }

    #[test]
    fn foreign_and_malformed_subjects_are_refused() {
        assert!(matches!(
            Subject::parse("other.v1.exec.submit.alice"),
            Err(SubjectError::NotCordon(_))
        ));
        assert!(matches!(
            Subject::parse("cordon.v2.exec.submit.alice"),
            Err(SubjectError::NotCordon(_))
        ));
        assert!(matches!(
            Subject::parse("cordon.v1.exec.result"),
            Err(SubjectError::Unknown(_))
        ));
        assert!(matches!(
            Subject::parse("cordon.v1.exec.result.a"),
            Err(SubjectError::Unknown(_))
        ));
        assert!(matches!(
            Subject::parse("cordon.v1.exec.result.a.b.c"),
            Err(SubjectError::Unknown(_))
        ));
        assert!(matches!(
            Subject::parse("cordon.v1.exec.submit"),
            Err(SubjectError::Unknown(_))
        ));
    }

    #[test]
    fn wildcards_cover_the_subjects_they_name() {
        let result = Subject::ExecResult {
            client: "alice".into(),
            request_id: "abc".into(),
        }
        .to_subject();
        assert!(result.starts_with(wildcard::exec_result_all().trim_end_matches('>')));
        let submit = Subject::ExecSubmit {
            client: "alice".into(),
        }
        .to_subject();
        assert!(submit.starts_with(wildcard::exec_submit_all().trim_end_matches('>')));
        let alert = Subject::EventsAlert.to_subject();
        assert!(alert.starts_with(wildcard::events_all().trim_end_matches('>')));
        let scheduled = Subject::ExecScheduled { host: "h".into() }.to_subject();
        assert!(scheduled.starts_with(wildcard::exec_scheduled_all().trim_end_matches('>')));
        let held = Subject::ExecHeld {
            request_id: "r".into(),
        }
        .to_subject();
        assert!(held.starts_with(wildcard::exec_held_all().trim_end_matches('>')));
        let violation = Subject::EventsViolation { client: "c".into() }.to_subject();
        assert_eq!(
            wildcard::events_violation_all().replace('*', "c"),
            violation
        );
        let decided = Subject::EventsOverride.to_subject();
        assert!(decided.starts_with(wildcard::events_all().trim_end_matches('>')));
    }

    #[test]
    fn tokens_with_subject_syntax_are_invalid() {
        assert!(is_valid_token("01J9ZQ3V7Y8K2M4N6P8R0T2V4X"));
        assert!(is_valid_token("host_a-1"));
        for bad in ["", "a.b", "a*", ">", "a b", "é", &"x".repeat(129)] {
            assert!(!is_valid_token(bad), "{bad:?}");
        }
    }
}
