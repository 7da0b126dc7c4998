//! The AuditChain actor, the log's single writer: pulls `AuditEvent`s from
//! `cordon.v1.audit.append` in batches, appends them, makes them durable with one fdatasync
//! (group commit), then publishes the results of finished requests (with their audit index)
//! on `cordon.v1.exec.result.<client>.<request_id>` (the client its envelope carries), and
//! only then acknowledges the batch. The audit role alone may publish results. A failed
//! fsync ends the process: nothing is acknowledged that is not on disk.
//! While there are new entries it signs a checkpoint every `audit.checkpoint_interval_ms`
//! (and one on shutdown), stores it, then publishes it on `cordon.v1.audit.checkpoint`.
//! Violations, a recovered crash and a log that contradicts itself or a signed checkpoint
//! are also published as alerts on `cordon.v1.events.alert`. Every
//! `audit.compact_interval_secs` it runs retention (`AuditLog::compact`), between batches.

use std::time::{Duration, Instant};

use async_nats::jetstream::{AckKind, Message};
use futures::{FutureExt, StreamExt};
use sha2::{Digest, Sha256};

use super::{Appended, AuditError, AuditLog, LogOptions, Recovery, Signed};
use crate::actor::{ActorEnv, ActorError, Role};
use crate::bus::streams::StreamKind;
use crate::bus::{trace_of, Bus, BusError};
use crate::protocol::audit::{Alert, AlertKind, AuditEvent, AuditRecord, CheckpointPublished};
use crate::protocol::exec::{AuditRef, ErrorCode, ErrorInfo, ExecResult};
use crate::protocol::subjects::is_valid_token;
use crate::protocol::{decode, now_ms, Envelope, Subject};

const NAME: &str = Role::Audit.name();
/// Most events appended under one fdatasync.
const MAX_BATCH: usize = 512;

crate::actor::task_actor!(
    /// The AuditChain as an actix actor: its life is the batch loop below.
    AuditChain,
    NAME,
    run
);

/// One appended event and what must be published once it is durable.
struct PendingAck {
    message: Message,
    /// The finishing event's id and the result it carries.
    result: Option<(String, Envelope<ExecResult>)>,
    alert: Option<Alert>,
}

async fn run(env: ActorEnv) -> Result<(), ActorError> {
    let host = env.settings.node.host_id.clone();
    let (mut log, recovery) = open_log(&env).await?;
    report_recovery(&env.bus, &host, &recovery).await;
    let consumer = env
        .bus
        .durable_consumer(StreamKind::Audit, NAME, None)
        .await?;
    let mut messages = consumer
        .stream()
        .max_messages_per_batch(MAX_BATCH)
        .heartbeat(Duration::from_secs(5))
        .messages()
        .await
        .map_err(|e| BusError::Consume {
            consumer: NAME.into(),
            message: e.to_string(),
        })?;
    let mut shutdown = env.shutdown.clone();
    let interval = Duration::from_millis(env.settings.audit.checkpoint_interval_ms.max(1));
    let mut ticker = tokio::time::interval(interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_checkpoint = Instant::now();
    let compact_every = Duration::from_secs(env.settings.audit.compact_interval_secs.max(1));
    let mut compactions = tokio::time::interval(compact_every);
    compactions.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let first = tokio::select! {
            next = messages.next() => next,
            _ = ticker.tick() => {
                checkpoint(&env.bus, &mut log).await;
                last_checkpoint = Instant::now();
                continue;
            }
            _ = compactions.tick() => {
                compact(&env, &mut log).await;
                continue;
            }
            _ = shutdown.wait() => {
                checkpoint(&env.bus, &mut log).await;
                return Ok(());
            }
        };
        let Some(first) = first else {
            return Err(ActorError::Fatal("audit stream ended".into()));
        };
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Ok(message) => batch.push(message),
                Err(error) => tracing::warn!(%error, "audit consumer hiccup"),
            }
            if batch.len() < MAX_BATCH {
                next = messages.next().now_or_never().flatten();
            }
        }
        commit_batch(&env.bus, &mut log, &host, batch).await;
        if last_checkpoint.elapsed() >= interval {
            checkpoint(&env.bus, &mut log).await;
            last_checkpoint = Instant::now();
        }
    }
}

/// Opens the log in `<data_dir>/audit`; a log that does not check out is raised as an
/// alert before the actor gives up (it is never repaired).
async fn open_log(env: &ActorEnv) -> Result<(AuditLog, Recovery), ActorError> {
    let dir = env.settings.data_dir().join("audit");
    let options = LogOptions::from_settings(&env.settings.audit);
    let opened = AuditLog::open_with(&dir, options);
    let error = match opened {
        Ok(opened) => {
            tracing::info!(entries = opened.1.entries, dir = %dir.display(), "audit log open");
            return Ok(opened);
        }
        Err(error) => error,
    };
    let detail = format!("cannot open the audit log in {}: {error}", dir.display());
    if matches!(error, AuditError::Corrupt(_)) {
        let host = &env.settings.node.host_id;
        publish_alert(&env.bus, alert(host, AlertKind::Tampering, None, &detail)).await;
    }
    Err(ActorError::Fatal(detail))
}

/// Logs and raises as an alert whatever open had to cut off after a crash.
async fn report_recovery(bus: &Bus, host: &str, recovery: &Recovery) {
    let mut cut = Vec::new();
    if let Some(torn) = &recovery.torn_tail {
        tracing::warn!(?torn, "cut off an incomplete last write left by a crash");
        cut.push(format!(
            "{} bytes of an incomplete entry {} at byte {} of {}",
            torn.bytes,
            torn.index,
            torn.offset,
            torn.segment.display()
        ));
    }
    if recovery.torn_checkpoint_bytes > 0 {
        let bytes = recovery.torn_checkpoint_bytes;
        cut.push(format!("{bytes} bytes of an incomplete last checkpoint"));
    }
    if !cut.is_empty() {
        let detail = format!(
            "audit log recovered after a crash: cut off {}",
            cut.join("; ")
        );
        publish_alert(bus, alert(host, AlertKind::Recovery, None, &detail)).await;
    }
}

/// Signs, stores and publishes a checkpoint if there are new entries. Failing to sign or
/// store one ends the process like a failed fsync; failing to publish is only logged
/// (the checkpoint is stored, and the next one covers it).
async fn checkpoint(bus: &Bus, log: &mut AuditLog) {
    let signed = match log.checkpoint() {
        Ok(Some(signed)) => signed,
        Ok(None) => return,
        Err(error) => die(&format!(
            "cannot sign a checkpoint of the audit log: {error}"
        )),
    };
    let Signed { checkpoint, note } = signed;
    let body = CheckpointPublished {
        origin: checkpoint.origin.clone(),
        size: checkpoint.size,
        root: hex::encode(checkpoint.root),
        note,
    };
    let id = format!("checkpoint-{}", checkpoint.size);
    let envelope = Envelope::new(id.clone(), now_ms(), body);
    let trace = crate::bus::trace::TraceContext::for_request(&id);
    if let Err(error) = bus
        .publish(&Subject::AuditCheckpoint, &trace, &envelope)
        .await
    {
        tracing::warn!(%error, size = checkpoint.size, "cannot publish a checkpoint");
    }
}

/// Runs retention when it is on, then signs a checkpoint over the `retention` entry. A
/// failure is logged and retried next time; a write that failed leaves the log unusable,
/// which the next append turns into the end of the process.
async fn compact(env: &ActorEnv, log: &mut AuditLog) {
    let now = now_ms();
    let Some(cutoff) = env.settings.audit.retention_cutoff(now) else {
        return;
    };
    match log.compact(cutoff, now) {
        Ok(done) if done.archived.is_empty() => {}
        Ok(done) => {
            tracing::info!(?done, "audit retention: archived old segments");
            checkpoint(&env.bus, log).await;
        }
        Err(error) => tracing::warn!(%error, "audit retention failed; will retry"),
    }
}

fn alert(host: &str, kind: AlertKind, request_id: Option<&str>, detail: &str) -> Alert {
    Alert {
        kind,
        host: host.to_owned(),
        request_id: request_id.map(str::to_owned),
        detail: detail.to_owned(),
    }
}

/// Publishes an alert into the events stream (at least once; failures are only logged).
async fn publish_alert(bus: &Bus, alert: Alert) {
    let id = alert.request_id.clone().unwrap_or_else(|| "none".into());
    let key = format!("alert.{id}.{:?}.{}", alert.kind, now_ms());
    let envelope = Envelope::new(id.clone(), now_ms(), alert);
    let trace = crate::bus::trace::TraceContext::for_request(&id);
    let published = bus
        .publish_durable(&Subject::EventsAlert, &key, &trace, &envelope)
        .await;
    if let Err(error) = published {
        tracing::warn!(%error, "cannot publish an alert");
    }
}

/// Appends a batch, syncs once, publishes results, acknowledges.
async fn commit_batch(bus: &Bus, log: &mut AuditLog, host: &str, batch: Vec<Message>) {
    let mut appended = Vec::with_capacity(batch.len());
    for message in batch {
        match append_one(log, host, &message) {
            Ok((result, alert)) => appended.push(PendingAck {
                message,
                result,
                alert,
            }),
            Err(error) => die(&format!("cannot append to the audit log: {error}")),
        }
    }
    if let Err(error) = log.sync() {
        die(&format!("fdatasync of the audit log failed: {error}"));
    }
    for entry in appended {
        if let Some(alert) = entry.alert.clone() {
            publish_alert(bus, alert).await;
        }
        let settled = match &entry.result {
            Some(result) => publish_result(bus, &entry.message, result).await,
            None => Ok(()),
        };
        let ack = if settled.is_ok() {
            AckKind::Ack
        } else {
            AckKind::Nak(Some(Duration::from_secs(1)))
        };
        if let Err(error) = entry.message.ack_with(ack).await {
            tracing::warn!(%error, "cannot acknowledge an audit event; it will be redelivered and kept once");
        }
    }
}

/// What to publish once an appended event is durable: a result, an alert.
type AfterSync = (Option<(String, Envelope<ExecResult>)>, Option<Alert>);

/// Appends one message's event (or a record of its being unreadable); returns the result to
/// publish when the event finished a request, and the alert to raise for a violation.
fn append_one(log: &mut AuditLog, host: &str, message: &Message) -> Result<AfterSync, AuditError> {
    let envelope = match decode::<AuditEvent>(&message.payload) {
        Ok(envelope) => envelope,
        Err(error) => {
            let event = unreadable_event(host, message, &error.to_string());
            log.append("", &event)?;
            return Ok((None, None));
        }
    };
    let Appended { index, duplicate } = log.append(&envelope.request_id, &envelope.body)?;
    let request_id = envelope.request_id.as_str();
    match &envelope.body.record {
        AuditRecord::Finished { result } if is_valid_token(request_id) => {
            let mut result = (**result).clone();
            result.audit = Some(AuditRef { index });
            let event_id = envelope.body.event_id.clone();
            let internal = result.error.as_ref().filter(|e| e.code == "internal");
            let alarm = internal.filter(|_| !duplicate).map(|error| {
                let detail = format!("{} (audit entry {index})", error.message);
                alert(host, AlertKind::Internal, Some(request_id), &detail)
            });
            Ok((Some((event_id, envelope.reply(result))), alarm))
        }
        AuditRecord::Assessed { assessment, .. } if !duplicate && analysis_failed(assessment) => {
            let detail = format!(
                "the analysis of this program failed; it is held at {:?} (audit entry {index})",
                assessment.level
            );
            Ok((
                None,
                Some(alert(host, AlertKind::Internal, Some(request_id), &detail)),
            ))
        }
        AuditRecord::Violation { violation, .. } if !duplicate => {
            let detail = format!("violation {violation:?} (audit entry {index})");
            let kind = AlertKind::Violation;
            Ok((None, Some(alert(host, kind, Some(request_id), &detail))))
        }
        AuditRecord::OverrideGrant {
            operator,
            reason,
            accepted,
            decision,
            ..
        } if !duplicate => {
            let outcome = if *accepted { "accepted" } else { "refused" };
            let detail = format!(
                "override by {operator:?} {outcome} ({decision}): {reason:?} (audit entry {index})"
            );
            Ok((
                None,
                Some(alert(host, AlertKind::Override, Some(request_id), &detail)),
            ))
        }
        _ => Ok((None, None)),
    }
}

/// Whether the assessor's own analysis failed on the program (finding CRD004).
fn analysis_failed(assessment: &crate::protocol::assessor::Assessment) -> bool {
    assessment.findings.iter().any(|f| f.rule == "CRD004")
}

/// The event recorded for a message on the audit subject that cannot be read.
fn unreadable_event(host: &str, message: &Message, why: &str) -> AuditEvent {
    let digest = Sha256::digest(&message.payload);
    let key = match message.info() {
        Ok(info) => format!("bad-audit-{}", info.stream_sequence),
        Err(_) => format!("bad-audit-{}", hex::encode(&digest[..8])),
    };
    AuditEvent {
        event_id: key,
        actor: NAME.into(),
        host: host.into(),
        at_ms: now_ms(),
        record: AuditRecord::rejected(
            ErrorInfo::new(
                ErrorCode::InvalidRequest,
                format!("unreadable audit event: {why}"),
            ),
            &message.payload,
        ),
    }
}

async fn publish_result(
    bus: &Bus,
    message: &Message,
    (event_id, result): &(String, Envelope<ExecResult>),
) -> Result<(), BusError> {
    let request_id = result.request_id.clone();
    if !is_valid_token(&result.client) {
        // Only a request that never reached the Assessor with a usable client ends so
        // (e.g. an unreadable internal message): its result is in the log, for no one.
        tracing::warn!(request_id, client = %result.client, "a result without a usable client is kept in the log only");
        return Ok(());
    }
    let trace = trace_of(message.headers.as_ref(), &request_id).child(NAME);
    let subject = Subject::ExecResult {
        client: result.client.clone(),
        request_id: request_id.clone(),
    };
    // Keyed by the finishing event, not the request: a request released from BLOCKED by an
    // override finishes twice (blocked, then its run) and both results must go out.
    let msg_id = format!("{event_id}.result");
    let outcome = bus.publish_durable(&subject, &msg_id, &trace, result).await;
    if let Err(error) = &outcome {
        tracing::warn!(%error, request_id, "cannot publish a result; will retry");
    }
    outcome
}

/// An audit log that cannot be written ends the process: nothing may be acknowledged that
/// is not durable, and retrying an fsync is not safe.
fn die(why: &str) -> ! {
    tracing::error!(why, "audit log failure; ending the process");
    eprintln!("cordon: {why}");
    std::process::exit(70)
}
