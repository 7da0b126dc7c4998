//! A writer SIGKILLed mid-stream loses nothing it reported as synced: after reopen every
//! such index is present, the log verifies (blobs included), and it is consistent with
//! every checkpoint the writer signed before the kill. The writer is this test binary
//! re-run on the helper test below, which only does work when `CRASH_DIR_ENV` is set.

mod audit_common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use audit_common::{event, request_of};
use base64::Engine;
use cordon::audit::{read_entries, verify, verify_with, AuditLog, LogOptions, VerifyOptions};
use cordon::protocol::audit::{AuditEvent, AuditRecord};

/// Tells the helper test where to write; unset in normal runs.
const CRASH_DIR_ENV: &str = "CORDON_AUDIT_CRASH_TEST_DIR";
const HELPER_TEST: &str = "crash_helper_appends_and_syncs_until_killed";
const SYNCED_PREFIX: &str = "synced ";
/// Followed by the base64 of a signed checkpoint note, once it is stored.
const CHECKPOINT_PREFIX: &str = "checkpoint ";
/// Synced batches to see before the kill.
const BATCHES_BEFORE_KILL: usize = 40;

fn options() -> LogOptions {
    LogOptions {
        segment_bytes: 16 * 1024,
        ..LogOptions::default()
    }
}

#[test]
fn crash_helper_appends_and_syncs_until_killed() {
    let Some(dir) = std::env::var_os(CRASH_DIR_ENV) else {
        return;
    };
    let (mut log, _) = AuditLog::open_with(Path::new(&dir), options()).unwrap();
    for i in 0.. {
        log.append(&request_of(i), &event_with_blobs(i)).unwrap();
        if i % 7 == 6 {
            log.sync().unwrap();
            println!("{SYNCED_PREFIX}{i}");
        }
        if i % 23 == 22 {
            let signed = log.checkpoint().unwrap().expect("new entries to sign");
            let note = base64::engine::general_purpose::STANDARD.encode(&signed.note);
            println!("{CHECKPOINT_PREFIX}{note}");
        }
    }
}

/// `event(i)`, except that every fifth is a submission whose code is kept as a blob.
fn event_with_blobs(i: u64) -> AuditEvent {
    let mut event = event(i);
    if i.is_multiple_of(5) {
        let code = format!("print({i})\n");
        event.record = AuditRecord::Received {
            code_sha256: cordon::audit::blobs::blob_name(code.as_bytes()),
            code_bytes: code.len() as u64,
            trust: cordon::protocol::assessor::TrustLevel::Untrusted,
            origin: cordon::protocol::assessor::Origin::External,
            client: Some("crash-test".into()),
            submitter: "alice".into(),
            code: Some(code),
            input: None,
        };
    }
    event
}

fn spawn_writer(dir: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([HELPER_TEST, "--exact", "--nocapture", "--test-threads=1"])
        .env(CRASH_DIR_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// What the writer reported before it died.
#[derive(Default)]
struct Reported {
    highest_synced: Option<u64>,
    /// Every checkpoint note it reported stored.
    checkpoints: Vec<String>,
}

impl Reported {
    /// Notes one line of the writer's output; returns whether it reported a sync.
    fn note(&mut self, line: &str) -> bool {
        if let Some(index) = line.strip_prefix(SYNCED_PREFIX) {
            self.highest_synced = Some(index.parse().unwrap());
            return true;
        }
        if let Some(note) = line.strip_prefix(CHECKPOINT_PREFIX) {
            let note = base64::engine::general_purpose::STANDARD
                .decode(note)
                .unwrap();
            self.checkpoints.push(String::from_utf8(note).unwrap());
        }
        false
    }
}

/// Reads the writer's reports until enough batches are synced, SIGKILLs it, and returns
/// everything it reported.
fn kill_after_some_syncs(mut writer: Child) -> Reported {
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut reported = Reported::default();
    let mut seen = 0;
    while seen < BATCHES_BEFORE_KILL && Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        if reported.note(&line) {
            seen += 1;
        }
    }
    std::thread::sleep(unaligned_delay()); // let the writer get somewhere mid-batch
    writer.kill().unwrap(); // SIGKILL on Unix
    writer.wait().unwrap();
    for line in lines.map_while(Result::ok) {
        reported.note(&line);
    }
    reported
}

/// A delay of 0 to 19 ms that differs from run to run, so the kill lands at different
/// points of the writer's append/sync cycle.
fn unaligned_delay() -> Duration {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .subsec_nanos();
    Duration::from_millis(u64::from(nanos % 20))
}

#[test]
fn every_index_reported_synced_survives_a_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let reported = kill_after_some_syncs(spawn_writer(dir.path()));
    let highest_synced = reported
        .highest_synced
        .expect("the writer reported no synced index");
    assert!(
        reported.checkpoints.len() >= 5,
        "the writer signed {} checkpoints before the kill",
        reported.checkpoints.len()
    );

    let (log, recovery) = AuditLog::open_with(dir.path(), options()).unwrap();
    assert!(
        recovery.entries > highest_synced,
        "{} entries, but {highest_synced} was reported synced",
        recovery.entries
    );
    drop(log);
    let report = verify(dir.path()).unwrap();
    assert_eq!(report.entries, recovery.entries);
    let entries = read_entries(dir.path(), None).unwrap();
    for i in 0..=highest_synced {
        assert_eq!(entries[i as usize].event_id, event(i).event_id);
    }
    for (n, note) in reported.checkpoints.into_iter().enumerate() {
        let options = VerifyOptions {
            saved: Some(note),
            ..VerifyOptions::default()
        };
        if let Err(error) = verify_with(dir.path(), &options) {
            panic!("not consistent with checkpoint {n} signed before the kill: {error}");
        }
    }
}
