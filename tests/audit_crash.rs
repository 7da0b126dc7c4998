//! A writer SIGKILLed mid-stream loses nothing it reported as synced: after reopen every
//! such index is present and the log verifies. The writer is this test binary re-run on
//! the helper test below, which only does work when `CRASH_DIR_ENV` is set.

mod audit_common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use audit_common::{event, request_of};
use cordon::audit::{read_entries, verify, AuditLog, LogOptions};

/// Tells the helper test where to write; unset in normal runs.
const CRASH_DIR_ENV: &str = "CORDON_AUDIT_CRASH_TEST_DIR";
const HELPER_TEST: &str = "crash_helper_appends_and_syncs_until_killed";
const SYNCED_PREFIX: &str = "synced ";
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
        log.append(&request_of(i), &event(i)).unwrap();
        if i % 7 == 6 {
            log.sync().unwrap();
            println!("{SYNCED_PREFIX}{i}");
        }
    }
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

/// Reads the writer's reports until enough batches are synced, SIGKILLs it, and returns
/// the highest index it reported as synced.
fn kill_after_some_syncs(mut writer: Child) -> u64 {
    let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut highest = None;
    let mut seen = 0;
    while seen < BATCHES_BEFORE_KILL && Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        if let Some(index) = line.strip_prefix(SYNCED_PREFIX) {
            highest = Some(index.parse::<u64>().unwrap());
            seen += 1;
        }
    }
    std::thread::sleep(unaligned_delay()); // let the writer get somewhere mid-batch
    writer.kill().unwrap(); // SIGKILL on Unix
    writer.wait().unwrap();
    for line in lines.map_while(Result::ok) {
        if let Some(index) = line.strip_prefix(SYNCED_PREFIX) {
            highest = Some(index.parse().unwrap());
        }
    }
    highest.expect("the writer reported no synced index")
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
    let highest_synced = kill_after_some_syncs(spawn_writer(dir.path()));

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
}
