//! BLOCKED requests are held, not run, and only a valid signed grant releases one: the
//! operator's grant must be signed by a key listed in `overrides.operator_keys`, bound to
//! the request id and the code's SHA-256, unexpired and unused. A released request runs
//! once, with the tightest limits, and its run result follows the blocked one. Unsigned,
//! wrongly signed, unknown-key, expired, replayed and mismatched grants are refused, and
//! every grant is audited with its operator and reason. Held requests survive restarts.

mod pipeline_support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cordon::assessor::grant::{public_key_text, sign};
use cordon::bus::streams::StreamKind;
use cordon::bus::Bus;
use cordon::client::Client;
use cordon::config::Settings;
use cordon::protocol::exec::{ExecResult, Status};
use cordon::protocol::grant::{GrantDecision, HeldRequest, OverrideGrant};
use cordon::protocol::{decode, encode, now_ms, Envelope, Subject};
use ed25519_dalek::SigningKey;
use futures::StreamExt;
use pipeline_support::*;

/// BLOCKED (a mining pool URL) yet harmless: it prints and ends.
const MINER: &str = "POOL = 'stratum+tcp://pool.minexmr.com:4444'\nprint('released')\n";
/// BLOCKED for another reason, with other code.
const PRELOAD: &str = "import os\nprint('other')\nos.remove('/etc/ld.so.preload')\n";

fn config_with_keys(keys: &[String]) -> String {
    let listed: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
    test_config(&format!(
        "[overrides]\noperator_keys = [{}]\n",
        listed.join(", ")
    ))
}

fn key(n: u8) -> SigningKey {
    SigningKey::from_bytes(&[n; 32])
}

/// Submits `code` as trusted and returns its id once it is blocked and held.
async fn submit_blocked(client: &Client, bus: &Bus, code: &str) -> (String, HeldRequest) {
    let id = Client::new_request_id();
    let result = client
        .run(&id, &request(code, "trusted"), Duration::from_secs(60))
        .await
        .expect("a first result");
    assert_eq!(result.status, Status::Blocked, "{result:?}");
    assert!(!result.assessment.expect("findings").findings.is_empty());
    (id.clone(), wait_held(bus, &id).await)
}

async fn wait_held(bus: &Bus, id: &str) -> HeldRequest {
    let subject = Subject::ExecHeld {
        request_id: id.to_string(),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(payload) = bus.last_message(StreamKind::Held, &subject).await.unwrap() {
            return decode::<HeldRequest>(&payload).unwrap().body;
        }
        assert!(Instant::now() < deadline, "{id} never held");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn grant_for(id: &str, code_sha256: &str, signer: Option<&SigningKey>) -> OverrideGrant {
    let mut grant = OverrideGrant {
        grant_id: ulid::Ulid::new().to_string(),
        request_id: id.to_string(),
        code_sha256: code_sha256.to_string(),
        operator: "alice".into(),
        reason: format!("reviewed {id} by hand"),
        issued_at_ms: now_ms(),
        expires_at_ms: now_ms() + 120_000,
        public_key: public_key_text(&key(1)),
        signature: String::new(),
    };
    if let Some(signer) = signer {
        sign(&mut grant, signer);
    }
    grant
}

/// Publishes `grant` for request `sent_for` (a fresh message each time, as a replay would
/// be) and returns the Assessor's decision about it.
async fn send(nats: &Nats, sent_for: &str, grant: &OverrideGrant) -> GrantDecision {
    let raw = raw_connection(nats).await;
    let mut decisions = raw
        .subscribe(Subject::EventsOverride.to_subject())
        .await
        .unwrap();
    let payload = encode(&Envelope::new(sent_for, 0, grant.clone())).unwrap();
    let js = async_nats::jetstream::new(raw.clone());
    js.publish(Subject::ExecOverride.to_subject(), payload.into())
        .await
        .unwrap()
        .await
        .expect("grant stored");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = tokio::time::timeout(left, decisions.next())
            .await
            .expect("a decision in time")
            .unwrap();
        let decision = decode::<GrantDecision>(&message.payload).unwrap().body;
        if decision.grant_id == grant.grant_id {
            return decision;
        }
    }
}

/// The first result of `id` that is not `blocked`.
async fn run_result(client: &Client, id: &str) -> ExecResult {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if let Some(result) = client.stored_result(id).await.unwrap() {
            if result.status != Status::Blocked {
                return result;
            }
        }
        assert!(Instant::now() < deadline, "{id} never ran");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn bus_of(nats: &Nats) -> Bus {
    let settings = Settings::load(None).unwrap();
    Bus::connect(&nats.url, "tests", &settings.nats)
        .await
        .unwrap()
}

/// Override-grant audit entries of `id`: (accepted, decision, operator, reason).
fn grant_entries(node: &Node, id: &str) -> Vec<(bool, String, String, String)> {
    audit_entries(&node.audit_dir(), id)
        .into_iter()
        .filter(|e| e.kind == "override_grant")
        .map(|e| {
            let text = |k: &str| e.body[k].as_str().unwrap_or_default().to_string();
            (
                e.body["accepted"].as_bool().unwrap(),
                text("decision"),
                text("operator"),
                text("reason"),
            )
        })
        .collect()
}

fn cordon_cli(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(cordon_bin())
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .output()
        .expect("run cordon")
}

#[tokio::test]
async fn keygen_and_override_release_a_held_request_to_run_with_the_tightest_limits() {
    let dir = tempfile::tempdir().unwrap();
    let (key_file, stranger_file) = (dir.path().join("op.key"), dir.path().join("x.key"));
    let made = cordon_cli(&["keygen", "--out", key_file.to_str().unwrap()], dir.path());
    assert_eq!(made.status.code(), Some(0));
    let public = String::from_utf8(made.stdout).unwrap().trim().to_string();
    cordon_cli(
        &["keygen", "--out", stranger_file.to_str().unwrap()],
        dir.path(),
    );
    let nats = Nats::start();
    let node = Node::up(&nats, "override-cli", &config_with_keys(&[public]));
    let (client, bus) = (client(&nats).await, bus_of(&nats).await);
    let (id, _) = submit_blocked(&client, &bus, MINER).await;
    let override_with = |key: &Path| {
        let args = [
            "override",
            &id,
            "--reason",
            "a known test fixture",
            "--key",
            key.to_str().unwrap(),
            "--nats",
            &nats.url,
            "--operator",
            "bob",
            "--json",
        ];
        cordon_cli(&args, dir.path())
    };
    let refused = override_with(&stranger_file);
    assert_eq!(refused.status.code(), Some(77));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("unknown_key"));
    let ran = override_with(&key_file);
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!(ran.status.code(), Some(0), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&ran.stdout).unwrap();
    assert_eq!(result["status"], "completed", "{result}");
    assert_eq!(result["stdout"], "released\n");
    assert_eq!(result["assessment"]["level"], "BLOCKED");
    let settings = node.settings();
    let factor = settings.assessment.high_factor;
    let untrusted = &settings.limits.untrusted;
    assert_eq!(
        result["limits"]["cpus"].as_f64(),
        Some(untrusted.cpus * factor)
    );
    assert_eq!(
        result["limits"]["timeout_ms"].as_u64(),
        Some((untrusted.timeout_ms as f64 * factor) as u64),
        "submitted as trusted, released as untrusted and BLOCKED"
    );
    let grants = grant_entries(&node, &id);
    assert_eq!(grants.len(), 2, "{grants:?}");
    assert!(grants
        .iter()
        .all(|g| g.2 == "bob" && g.3 == "a known test fixture"));
    assert_eq!(
        grants
            .iter()
            .map(|g| (g.0, g.1.as_str()))
            .collect::<Vec<_>>(),
        [(false, "unknown_key"), (true, "accepted")]
    );
    let kinds = audit_kinds(&node.audit_dir(), &id);
    let finished = kinds.iter().filter(|k| *k == "finished").count();
    assert_eq!(finished, 2, "blocked, then the run: {kinds:?}");
    let again = override_with(&key_file);
    assert_eq!(again.status.code(), Some(2), "nothing is held any more");
}

#[tokio::test]
async fn forged_expired_replayed_and_mismatched_grants_are_refused_and_audited() {
    let (operator, stranger) = (key(1), key(2));
    let nats = Nats::start();
    let node = Node::up(
        &nats,
        "override-refusals",
        &config_with_keys(&[public_key_text(&operator)]),
    );
    let (client, bus) = (client(&nats).await, bus_of(&nats).await);
    let mut alerts = bus
        .subscribe(Subject::EventsAlert.to_subject())
        .await
        .unwrap();
    let (a, held_a) = submit_blocked(&client, &bus, MINER).await;
    let (b, held_b) = submit_blocked(&client, &bus, PRELOAD).await;
    let (hash_a, hash_b) = (held_a.job.code_sha256, held_b.job.code_sha256);
    let mut tampered = grant_for(&a, &hash_a, Some(&operator));
    tampered.reason.push_str(" (edited after signing)");
    let mut expired = grant_for(&a, &hash_a, None);
    expired.issued_at_ms -= 300_000;
    expired.expires_at_ms = now_ms() - 60_000;
    sign(&mut expired, &operator);
    let refusals = [
        (a.clone(), grant_for(&a, &hash_a, None), "unsigned"),
        (a.clone(), tampered, "bad_signature"),
        (
            a.clone(),
            grant_for(&a, &hash_a, Some(&stranger)),
            "unknown_key",
        ),
        (a.clone(), expired, "expired"),
        (
            a.clone(),
            grant_for(&b, &hash_b, Some(&operator)),
            "request_mismatch",
        ),
        (
            a.clone(),
            grant_for(&a, &hash_b, Some(&operator)),
            "code_mismatch",
        ),
    ];
    for (sent_for, grant, expected) in &refusals {
        let decision = send(&nats, sent_for, grant).await;
        assert!(!decision.accepted, "{expected}: {decision:?}");
        assert_eq!(decision.decision, *expected, "{decision:?}");
    }
    let valid = grant_for(&a, &hash_a, Some(&operator));
    assert!(send(&nats, &a, &valid).await.accepted);
    let result = run_result(&client, &a).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "released\n");
    assert_eq!(send(&nats, &a, &valid).await.decision, "replayed");
    let second = grant_for(&a, &hash_a, Some(&operator));
    assert_eq!(send(&nats, &a, &second).await.decision, "already_released");
    let decisions: Vec<String> = grant_entries(&node, &a).into_iter().map(|g| g.1).collect();
    let expected: Vec<&str> = refusals
        .iter()
        .map(|r| r.2)
        .chain(["accepted", "replayed", "already_released"])
        .collect();
    assert_eq!(decisions, expected, "every grant is audited once, in order");
    let mut override_alerts = 0;
    while override_alerts < expected.len() {
        let message = tokio::time::timeout(std::time::Duration::from_secs(5), alerts.next())
            .await
            .expect("an override alert for every grant")
            .unwrap();
        let alert =
            cordon::protocol::decode::<cordon::protocol::audit::Alert>(&message.payload).unwrap();
        if alert.body.kind == cordon::protocol::audit::AlertKind::Override {
            override_alerts += 1;
        }
    }
    assert!(grant_entries(&node, &a)
        .iter()
        .all(|g| g.2 == "alice" && !g.3.is_empty()));
    let b_result = client.stored_result(&b).await.unwrap().unwrap();
    assert_eq!(b_result.status, Status::Blocked, "B was never released");
    assert!(wait_held(&bus, &b).await.released.is_none());
}

#[tokio::test]
async fn a_held_request_survives_restarts_of_cordon_and_nats() {
    let operator = key(3);
    let mut nats = Nats::start();
    let mut node = Node::up(
        &nats,
        "override-restart",
        &config_with_keys(&[public_key_text(&operator)]),
    );
    let id = {
        let (client, bus) = (client(&nats).await, bus_of(&nats).await);
        submit_blocked(&client, &bus, MINER).await.0
    };
    node.kill();
    nats.restart();
    node.start();
    let (client, bus) = (client(&nats).await, bus_of(&nats).await);
    let held = wait_held(&bus, &id).await;
    let grant = grant_for(&id, &held.job.code_sha256, Some(&operator));
    let decision = send(&nats, &id, &grant).await;
    assert!(decision.accepted, "{decision:?}");
    let result = run_result(&client, &id).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    assert_eq!(result.stdout, "released\n");
}
