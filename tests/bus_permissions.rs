//! The bus is secured by nats-server itself, with `deploy/nats/cordon.conf`: a client may
//! submit only under its own name and read only its own results and events; only operators
//! may publish override grants; each actor publishes only its own subjects and consumes only
//! its own streams; the audit role alone consumes the append stream and publishes results.
//! Each refusal is the server's own "Permissions Violation", seen on a raw protocol
//! connection (every operation is followed by PING, so whatever the server says before PONG
//! is its answer to that operation). The whole pipeline then runs with every actor on its
//! own credentials, and one client does not see another's result.

mod pipeline_support;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use cordon::client::Client;
use cordon::config::Credentials;
use cordon::config::Settings;
use cordon::protocol::exec::Status;
use cordon::protocol::Subject;
use futures::StreamExt;
use pipeline_support::*;

fn password(user: &str) -> String {
    format!("test-password-of-{user}")
}

/// A nats-server running the deploy configuration, with test passwords.
fn permissioned_nats() -> Nats {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nats/cordon.conf");
    let env = DEPLOY_NATS_USERS
        .iter()
        .map(|user| {
            let name = format!("CORDON_NATS_{}_PASSWORD", user.to_uppercase());
            (name, password(user))
        })
        .collect();
    Nats::start_with_config(&file, env)
}

/// A raw NATS protocol connection as one user.
struct Probe {
    user: String,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Probe {
    fn connect(nats: &Nats, user: &str) -> Probe {
        Self::connect_with(nats, user, &password(user)).expect("the server accepts the user")
    }

    /// Connects; `Err` holds the server's refusal.
    fn connect_with(nats: &Nats, user: &str, password: &str) -> Result<Probe, String> {
        let address = nats.url.trim_start_matches("nats://");
        let writer = TcpStream::connect(address).expect("tcp connect");
        writer
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut probe = Probe {
            user: user.to_string(),
            reader: BufReader::new(writer.try_clone().unwrap()),
            writer,
        };
        let info = probe.line().unwrap_or_default();
        assert!(info.starts_with("INFO "), "{info}");
        let connect = serde_json::json!({
            "user": user, "pass": password, "verbose": false, "pedantic": false,
            "protocol": 1, "headers": true, "name": "permission-probe",
        });
        match probe.exchange(&format!("CONNECT {connect}\r\n")) {
            errors if errors.is_empty() => Ok(probe),
            errors => Err(errors.join(" ")),
        }
    }

    /// The next line from the server; `None` once it closed the connection.
    fn line(&mut self) -> Option<String> {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("server answers");
        (!line.is_empty()).then(|| line.trim_end().to_string())
    }

    /// Sends `command` then PING; returns the -ERR lines the server sent before PONG (or
    /// before it closed the connection, which is then said too).
    fn exchange(&mut self, command: &str) -> Vec<String> {
        self.writer
            .write_all(format!("{command}PING\r\n").as_bytes())
            .expect("send");
        let mut errors = Vec::new();
        loop {
            let Some(line) = self.line() else {
                errors.push("(connection closed)".to_string());
                return errors;
            };
            match line.as_str() {
                "PONG" => return errors,
                "PING" => self.writer.write_all(b"PONG\r\n").expect("pong"),
                _ if line.starts_with("-ERR") => errors.push(line),
                // MSG lines and payloads of subscriptions are not what this probe is after.
                _ => {}
            }
        }
    }

    /// Publishes an empty message (with a reply subject in this user's inbox).
    fn publish(&mut self, subject: &str) -> Result<(), String> {
        let reply = format!("_INBOX_{}.probe", self.user);
        into_result(self.exchange(&format!("PUB {subject} {reply} 0\r\n\r\n")))
    }

    fn subscribe(&mut self, subject: &str) -> Result<(), String> {
        into_result(self.exchange(&format!("SUB {subject} 1\r\nUNSUB 1\r\n")))
    }
}

fn into_result(errors: Vec<String>) -> Result<(), String> {
    match errors.is_empty() {
        true => Ok(()),
        false => Err(errors.join(" ")),
    }
}

/// Asserts the server refused `outcome` as a permissions violation.
fn refused(outcome: Result<(), String>, what: &str) {
    let error = outcome.expect_err(&format!("the server should refuse: {what}"));
    assert!(
        error.contains("Permissions Violation"),
        "{what}: refused, but not for permissions: {error}"
    );
}

fn allowed(outcome: Result<(), String>, what: &str) {
    if let Err(error) = outcome {
        panic!("the server should allow {what}: {error}");
    }
}

fn result_of(client: &str, request_id: &str) -> String {
    Subject::ExecResult {
        client: client.into(),
        request_id: request_id.into(),
    }
    .to_subject()
}

fn submit_of(client: &str) -> String {
    Subject::ExecSubmit {
        client: client.into(),
    }
    .to_subject()
}

/// What a client does to read a stored result: a direct get naming the result's subject.
fn direct_get(subject: &str) -> String {
    format!("$JS.API.DIRECT.GET.CORDON_RESULTS.{subject}")
}

#[test]
fn a_user_is_known_by_its_own_password_only() {
    let nats = permissioned_nats();
    let wrong = Probe::connect_with(&nats, "alice", &password("bob")).err();
    let wrong = wrong.expect("alice with bob's password is refused");
    assert!(wrong.contains("Authorization Violation"), "{wrong}");
    let anonymous = Probe::connect_with(&nats, "", "").err();
    assert!(
        anonymous.is_some(),
        "a connection without a user is refused"
    );
}

/// Alice may submit under her own name and read her own results; she may not submit as
/// bob, publish a result or a grant, read bob's results (live, by wildcard, by direct get,
/// through a consumer of her own), read the shared inbox, or touch the streams.
#[test]
fn a_client_may_submit_and_read_only_its_own() {
    let nats = permissioned_nats();
    let mut alice = Probe::connect(&nats, "alice");
    let id = "01J9ZQ3V7Y8K2M4N6P8R0T2V4X";

    allowed(alice.publish(&submit_of("alice")), "alice submits");
    allowed(alice.subscribe(&result_of("alice", id)), "alice's result");
    allowed(
        alice.subscribe("cordon.v1.exec.result.alice.>"),
        "all alice's results",
    );
    allowed(
        alice.subscribe("cordon.v1.events.violation.alice"),
        "her violations",
    );
    allowed(alice.subscribe("_INBOX_alice.>"), "her own inbox");
    allowed(
        alice.publish(&direct_get(&result_of("alice", id))),
        "reading her result",
    );

    refused(alice.publish(&submit_of("bob")), "alice submits as bob");
    refused(
        alice.publish(&result_of("alice", id)),
        "alice publishes a result",
    );
    refused(
        alice.publish(&result_of("bob", id)),
        "alice publishes bob a result",
    );
    refused(
        alice.publish("cordon.v1.exec.override"),
        "alice publishes a grant",
    );
    refused(
        alice.publish("cordon.v1.audit.append"),
        "alice writes to the audit log",
    );
    refused(
        alice.subscribe(&result_of("bob", id)),
        "alice reads bob's result",
    );
    refused(
        alice.subscribe("cordon.v1.exec.result.bob.>"),
        "all of bob's results",
    );
    refused(alice.subscribe("cordon.v1.exec.result.>"), "every result");
    refused(
        alice.subscribe(&format!("cordon.v1.exec.result.*.{id}")),
        "any client's",
    );
    refused(alice.subscribe(">"), "everything");
    refused(
        alice.subscribe("cordon.v1.events.violation.bob"),
        "bob's violations",
    );
    refused(
        alice.subscribe("cordon.v1.exec.submit.>"),
        "everyone's submissions",
    );
    refused(alice.subscribe("_INBOX.>"), "the shared inbox");
    refused(alice.subscribe("_INBOX_bob.>"), "bob's inbox");
    let bobs = direct_get(&result_of("bob", id));
    refused(alice.publish(&bobs), "a direct get of bob's result");
    let any = "$JS.API.DIRECT.GET.CORDON_RESULTS";
    refused(
        alice.publish(any),
        "a direct get naming the subject in the body",
    );
    let get = "$JS.API.STREAM.MSG.GET.CORDON_RESULTS";
    refused(alice.publish(get), "a stream message get");
    for (stream, filter) in [
        ("CORDON_RESULTS", "cordon.v1.exec.result.alice.>"),
        ("CORDON_RESULTS", "cordon.v1.exec.result.bob.>"),
        ("CORDON_SUBMIT", "cordon.v1.exec.submit.bob"),
    ] {
        let create = format!("$JS.API.CONSUMER.CREATE.{stream}.mine.{filter}");
        refused(alice.publish(&create), &format!("a consumer on {filter}"));
        let bare = format!("$JS.API.CONSUMER.CREATE.{stream}");
        refused(
            alice.publish(&bare),
            &format!("an ephemeral consumer on {stream}"),
        );
    }
    refused(
        alice.publish("$JS.API.STREAM.CREATE.MINE"),
        "creating a stream",
    );
    refused(
        alice.publish("$JS.API.STREAM.DELETE.CORDON_RESULTS"),
        "deleting results",
    );
}

/// Who may publish what, user by user: the full table of a few telling subjects.
#[test]
fn each_user_publishes_only_its_own_subjects() {
    let nats = permissioned_nats();
    let id = "01J9ZQ3V7Y8K2M4N6P8R0T2V4X";
    let result = result_of("alice", id);
    let subjects: Vec<(&str, String, &[&str])> = vec![
        ("submit as alice", submit_of("alice"), &["alice"]),
        ("a result", result.clone(), &["audit"]),
        ("a grant", "cordon.v1.exec.override".into(), &["operator"]),
        (
            "a checkpoint",
            "cordon.v1.audit.checkpoint".into(),
            &["audit"],
        ),
        ("an alert", "cordon.v1.events.alert".into(), &["audit"]),
        (
            "a dead letter",
            "cordon.v1.events.dead_letter".into(),
            &["audit"],
        ),
        (
            "an audit event",
            "cordon.v1.audit.append".into(),
            &["assessor", "scheduler", "supervisor", "monitor", "audit"],
        ),
        (
            "an assessed job",
            "cordon.v1.exec.assessed".into(),
            &["assessor"],
        ),
        (
            "a held record",
            format!("cordon.v1.exec.held.{id}"),
            &["assessor"],
        ),
        (
            "a scheduled job",
            "cordon.v1.exec.scheduled.w1".into(),
            &["scheduler"],
        ),
        (
            "a host load",
            "cordon.v1.host.load.w1".into(),
            &["supervisor"],
        ),
        (
            "a violation",
            "cordon.v1.events.violation.alice".into(),
            &["supervisor"],
        ),
        (
            "a kill order",
            "cordon.v1.container.kill.w1".into(),
            &["monitor"],
        ),
        (
            "pulling the audit stream",
            "$JS.API.CONSUMER.MSG.NEXT.CORDON_AUDIT.audit".into(),
            &["audit", "admin"],
        ),
        (
            "consuming the audit stream",
            "$JS.API.CONSUMER.CREATE.CORDON_AUDIT.mine".into(),
            &["admin"],
        ),
        (
            "acking audit events",
            "$JS.ACK.CORDON_AUDIT.audit.1.1.1.1.1".into(),
            &["audit"],
        ),
        (
            "creating a stream",
            "$JS.API.STREAM.CREATE.CORDON_SUBMIT".into(),
            &["audit", "admin"],
        ),
        (
            "pulling submissions",
            "$JS.API.CONSUMER.MSG.NEXT.CORDON_SUBMIT.assessor".into(),
            &["assessor", "admin"],
        ),
    ];
    for user in DEPLOY_NATS_USERS {
        let mut probe = Probe::connect(&nats, user);
        for (what, subject, who) in &subjects {
            let outcome = probe.publish(subject);
            let what = format!("{user} publishing {what} ({subject})");
            match who.contains(&user) {
                true => allowed(outcome, &what),
                false => refused(outcome, &what),
            }
        }
    }
}

/// Writes each actor's password to a file and names it in a node config, so that
/// `cordon up` connects every actor as itself.
fn node_config(dir: &Path) -> String {
    for role in cordon::actor::Role::ALL {
        password_file(dir, role.name());
    }
    test_config("") + &role_credentials(dir)
}

fn password_file(dir: &Path, user: &str) -> PathBuf {
    let file = dir.join(format!("{user}.password"));
    std::fs::write(&file, format!("{}\n", password(user))).expect("password file");
    file
}

/// The settings of client `user`: its credentials and its name.
fn client_settings(dir: &Path, user: &str) -> Settings {
    let mut settings = Settings::load(None).expect("defaults");
    settings.nats.client = user.to_string();
    settings.nats.auth = Credentials {
        user: user.to_string(),
        password_file: password_file(dir, user).display().to_string(),
        ..Credentials::default()
    };
    settings
}

/// Alice and bob each get their own results from a pipeline whose actors all connect as
/// themselves; bob, listening on alice's results, hears nothing and may not read them.
#[tokio::test]
async fn the_pipeline_runs_with_every_actor_on_its_own_credentials() {
    let nats = permissioned_nats();
    let secrets = tempfile::tempdir().unwrap();
    let node = Node::up(&nats, "bus-permissions", &node_config(secrets.path()));
    let alice_settings = client_settings(secrets.path(), "alice");
    let bob_settings = client_settings(secrets.path(), "bob");
    let alice = Client::connect(&nats.url, &alice_settings.nats)
        .await
        .unwrap();
    let bob = Client::connect(&nats.url, &bob_settings.nats)
        .await
        .unwrap();
    // Bob listens where alice's results go; the server refuses the subscription.
    let bob_raw = async_nats::ConnectOptions::with_user_and_password("bob".into(), password("bob"))
        .custom_inbox_prefix("_INBOX_bob")
        .connect(&nats.url)
        .await
        .unwrap();
    let mut eavesdrop = bob_raw
        .subscribe("cordon.v1.exec.result.alice.>")
        .await
        .unwrap();
    bob_raw.flush().await.unwrap();

    let alice_id = Client::new_request_id();
    let bob_id = Client::new_request_id();
    let wait = Duration::from_secs(90);
    let (for_alice, for_bob) = (
        request("print('for alice')", "untrusted"),
        request("print('for bob')", "untrusted"),
    );
    let (alice_result, bob_result) = tokio::join!(
        alice.run(&alice_id, &for_alice, wait),
        bob.run(&bob_id, &for_bob, wait),
    );
    let (alice_result, bob_result) = (alice_result.unwrap(), bob_result.unwrap());
    assert_eq!(alice_result.status, Status::Completed, "{alice_result:?}");
    assert_eq!(alice_result.stdout, "for alice\n");
    assert_eq!(bob_result.stdout, "for bob\n");
    // The stored result is readable by its owner (direct get)...
    let stored = alice.stored_result(&alice_id).await.unwrap();
    assert_eq!(stored.map(|r| r.stdout).as_deref(), Some("for alice\n"));
    // ...and by no one else.
    let mut bob_probe = Probe::connect(&nats, "bob");
    let alices = direct_get(&result_of("alice", &alice_id));
    refused(
        bob_probe.publish(&alices),
        "bob reading alice's stored result",
    );
    let heard = tokio::time::timeout(Duration::from_secs(1), eavesdrop.next()).await;
    assert!(
        heard.is_err() || heard.unwrap().is_none(),
        "bob heard alice's result"
    );
    // A client cannot name someone else in the envelope: the subject decides.
    let spoofed = Client::new_request_id();
    let spoof_result = submit_claiming_to_be_bob(&nats, &alice, &spoofed).await;
    assert_eq!(spoof_result.stdout, "spoof\n", "{spoof_result:?}");
    let spoof_entries = audit_entries(&node.audit_dir(), &spoofed);
    let spoof_received = spoof_entries.iter().find(|e| e.kind == "received");
    let submitter = &spoof_received.expect("received").body["submitter"];
    assert_eq!(submitter, "alice");
    // The audit log names who submitted each request: the name the server let submit.
    let entries = audit_entries(&node.audit_dir(), &alice_id);
    let received = entries
        .iter()
        .find(|e| e.kind == "received")
        .expect("received");
    assert_eq!(received.body["submitter"], "alice", "{:?}", received.body);
}

/// Trust follows the name the server vouches for: with `[clients]` as deploy/cordon.toml
/// sets it, bob's request for `trusted` is rejected (and audited) while alice gets
/// trusted limits.
#[tokio::test]
async fn a_client_gets_no_more_trust_than_config_gives_its_name() {
    let nats = permissioned_nats();
    let secrets = tempfile::tempdir().unwrap();
    let mut config = node_config(secrets.path());
    config
        .push_str("\n[clients]\nmax_trust = \"untrusted\"\n[clients.trust]\nalice = \"trusted\"\n");
    let node = Node::up(&nats, "bus-permissions-trust", &config);
    let alice = Client::connect(&nats.url, &client_settings(secrets.path(), "alice").nats)
        .await
        .unwrap();
    let bob = Client::connect(&nats.url, &client_settings(secrets.path(), "bob").nats)
        .await
        .unwrap();
    let wait = Duration::from_secs(90);

    let bob_id = Client::new_request_id();
    let refused = bob
        .run(&bob_id, &request("print('as trusted')", "trusted"), wait)
        .await
        .unwrap();
    assert_eq!(refused.status, Status::Rejected, "{refused:?}");
    let error = refused.error.expect("an error");
    assert_eq!(error.code, "trust_not_allowed");
    assert!(error.message.contains("\"bob\""), "{}", error.message);
    let kinds = audit_kinds(&node.audit_dir(), &bob_id);
    assert!(kinds.contains(&"rejected".to_string()), "{kinds:?}");

    let alice_id = Client::new_request_id();
    let ran = alice
        .run(&alice_id, &request("print('as trusted')", "trusted"), wait)
        .await
        .unwrap();
    assert_eq!(ran.status, Status::Completed, "{ran:?}");
    let defaults = Settings::load(None).unwrap().limits;
    let limits = ran.limits.expect("limits");
    assert!(
        limits.memory_bytes > defaults.untrusted.memory_bytes,
        "alice ran with {limits:?}"
    );
}

/// The Python client, as alice, works against the permissioned bus too: it submits,
/// reads its results and watches its own violation events.
#[test]
fn the_python_client_works_as_a_permissioned_client() {
    let nats = permissioned_nats();
    let secrets = tempfile::tempdir().unwrap();
    let _node = Node::up(&nats, "bus-permissions-py", &node_config(secrets.path()));
    let client_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python");
    let output = Command::new("python3")
        .args(["example.py", &nats.url, "alice", &password("alice")])
        .current_dir(client_dir)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "example failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("first: completed exit=0"), "{stdout}");
    assert!(stdout.contains("violation event: timeout for "), "{stdout}");
}

/// BLOCKED for a pool URL (the same fixture as tests/override_grants.rs).
const MINER: &str = "POOL = 'stratum+tcp://pool.minexmr.com:4444'\nprint('released')\n";

/// `cordon override` with the credentials of `user` (given by the environment).
fn override_as(user: &str, secrets: &Path, nats: &Nats, id: &str, key: &Path) -> Output {
    let password_file = password_file(secrets, user);
    Command::new(cordon_bin())
        .arg("--data-dir")
        .arg(secrets.join(format!("{user}-data")))
        .args(["override", id, "--reason", "reviewed fixture", "--key"])
        .arg(key)
        .args(["--nats", &nats.url, "--json", "--wait", "60"])
        .env("CORDON__NATS__AUTH__USER", user)
        .env("CORDON__NATS__AUTH__PASSWORD_FILE", password_file)
        .output()
        .expect("run cordon override")
}

/// Alice's BLOCKED request is held; alice cannot release it herself (the server refuses
/// her the held records and the grant subject, and no grant reaches the Assessor), the
/// operator can, and the run's result goes to alice.
#[tokio::test]
async fn only_an_operator_releases_a_held_request_and_the_run_goes_to_its_client() {
    let secrets = tempfile::tempdir().unwrap();
    let key = secrets.path().join("operator.key");
    let made = Command::new(cordon_bin())
        .args(["keygen", "--out"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(made.status.success(), "keygen");
    let public = String::from_utf8(made.stdout).unwrap().trim().to_string();
    let nats = permissioned_nats();
    let mut config = node_config(secrets.path());
    config.push_str(&format!("\n[overrides]\noperator_keys = [{public:?}]\n"));
    let node = Node::up(&nats, "bus-permissions-override", &config);
    let alice_settings = client_settings(secrets.path(), "alice");
    let alice = Client::connect(&nats.url, &alice_settings.nats)
        .await
        .unwrap();
    let id = Client::new_request_id();
    let held = alice
        .run(&id, &request(MINER, "untrusted"), Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(held.status, Status::Blocked, "{held:?}");

    let by_alice = override_as("alice", secrets.path(), &nats, &id, &key);
    let said = String::from_utf8_lossy(&by_alice.stderr);
    assert_eq!(by_alice.status.code(), Some(69), "alice's override: {said}");
    assert!(said.contains("Permissions Violation"), "says why: {said}");
    let by_operator = override_as("operator", secrets.path(), &nats, &id, &key);
    let stderr = String::from_utf8_lossy(&by_operator.stderr);
    assert!(by_operator.status.success(), "operator override: {stderr}");
    let ran: serde_json::Value = serde_json::from_slice(&by_operator.stdout).unwrap();
    assert_eq!(ran["stdout"], "released\n", "{ran}");

    let stored = alice.stored_result(&id).await.unwrap().expect("stored");
    assert_eq!(stored.status, Status::Completed, "alice reads the run");
    let grants = audit_entries(&node.audit_dir(), &id)
        .into_iter()
        .filter(|e| e.kind == "override_grant")
        .count();
    assert_eq!(grants, 1, "only the operator's grant reached the Assessor");
}

/// Alice publishes, on her own submit subject, an envelope that says it is bob's; the result
/// still comes to alice.
async fn submit_claiming_to_be_bob(
    nats: &Nats,
    alice: &Client,
    id: &str,
) -> cordon::protocol::exec::ExecResult {
    let raw = async_nats::ConnectOptions::with_user_and_password("alice".into(), password("alice"))
        .custom_inbox_prefix("_INBOX_alice")
        .connect(&nats.url)
        .await
        .unwrap();
    let envelope = cordon::protocol::Envelope::new(id, 0, request("print('spoof')", "untrusted"))
        .with_client("bob");
    let mut headers = async_nats::HeaderMap::new();
    headers.insert("Nats-Msg-Id", id);
    let payload = cordon::protocol::encode(&envelope).unwrap();
    let js = async_nats::jetstream::new(raw);
    js.publish_with_headers(submit_of("alice"), headers, payload.into())
        .await
        .unwrap()
        .await
        .expect("stored");
    wait_result(alice, id).await
}

/// Workers that may not create streams wait for the audit role to create them: started
/// first, they serve once the audit host is up.
#[tokio::test]
async fn workers_started_before_the_audit_role_wait_for_its_streams() {
    let nats = permissioned_nats();
    let secrets = tempfile::tempdir().unwrap();
    let base = Node::prepare("bus-permissions-wait", &node_config(secrets.path()));
    let workers = ["assessor", "scheduler", "supervisor", "monitor"];
    let workers = Node::serve_like(&base, &nats, &workers);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !workers.log_text().contains("waiting for a role allowed to") {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            workers.log_text()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _audit = Node::serve_like(&base, &nats, &["audit"]);
    let alice_settings = client_settings(secrets.path(), "alice");
    let alice = Client::connect(&nats.url, &alice_settings.nats)
        .await
        .unwrap();
    let result = run(&alice, "print('after the wait')").await;
    assert_eq!(result.stdout, "after the wait\n", "{result:?}");
}
