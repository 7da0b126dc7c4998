//! `cordon audit verify | checkpoint | prove | consistency | pubkey | show | compact`: read
//! and check the audit log in `<data_dir>/audit`. Only `compact` writes to it (as its
//! single writer, so not while a node holds it).

use std::path::Path;
use std::process::ExitCode;

use serde::Serialize;

use crate::audit::checkpoint::NoteVerifier;
use crate::audit::{checkpoint_store, keyfile, proofs, VerifyOptions};
use crate::cli::AuditCommand;
use crate::config::Settings;
use crate::protocol::now_ms;

pub fn audit(settings: &Settings, command: AuditCommand) -> ExitCode {
    let dir = settings.data_dir().join("audit");
    match command {
        AuditCommand::Verify { checkpoint, key } => verify(&dir, checkpoint.as_deref(), key),
        AuditCommand::Checkpoint => latest_checkpoint(&dir),
        AuditCommand::Prove { index } => print_json(proofs::prove(&dir, index)),
        AuditCommand::Consistency { old, new } => print_json(proofs::consistency(&dir, old, new)),
        AuditCommand::Pubkey => pubkey(&dir),
        AuditCommand::Show { request, since } => show(&dir, request.as_deref(), since),
        AuditCommand::Compact { older_than } => compact(settings, &dir, older_than.as_deref()),
    }
}

fn compact(settings: &Settings, dir: &Path, older_than: Option<&str>) -> ExitCode {
    let now = now_ms();
    let cutoff = match older_than {
        Some(age) if age.parse::<u64>().is_err() => match parse_since(age, now) {
            Some(cutoff) => cutoff,
            None => return fail("--older-than: expected an age like 90s, 15m, 2h or 30d"),
        },
        Some(_) => return fail("--older-than: expected an age like 90s, 15m, 2h or 30d"),
        None => match settings.audit.retention_cutoff(now) {
            Some(cutoff) => cutoff,
            None => return fail("audit.retention_days is 0 (retention off); pass --older-than"),
        },
    };
    let options = crate::audit::LogOptions::from_settings(&settings.audit);
    // The retention entry is signed at once, so a checkpoint covers it.
    let compacted = crate::audit::AuditLog::open_with(dir, options).and_then(|(mut log, _)| {
        let done = log.compact(cutoff, now)?;
        log.checkpoint()?;
        Ok(done)
    });
    match compacted {
        Ok(done) => print_json(Ok::<_, String>(done)),
        Err(error) => fail(format_args!(
            "cannot compact the audit log in {}: {error}",
            dir.display()
        )),
    }
}

fn fail(what: impl std::fmt::Display) -> ExitCode {
    eprintln!("cordon: {what}");
    ExitCode::FAILURE
}

fn verify(dir: &Path, saved: Option<&Path>, key: Option<String>) -> ExitCode {
    let mut options = VerifyOptions::default();
    if let Some(key) = key {
        match NoteVerifier::parse(&key) {
            Ok(verifier) => options.verifier = Some(verifier),
            Err(error) => return fail(format_args!("--key: {error}")),
        }
    }
    if let Some(path) = saved {
        match std::fs::read_to_string(path) {
            Ok(text) => options.saved = Some(text),
            Err(error) => return fail(format_args!("cannot read {}: {error}", path.display())),
        }
    }
    match crate::audit::verify_with(dir, &options) {
        Ok(report) => {
            println!(
                "ok: {} entries, chain intact, head {}, root {}, {} signed checkpoints{}",
                report.entries,
                hex::encode(report.head_hash),
                hex::encode(report.root),
                report.checkpoints,
                if saved.is_some() {
                    ", consistent with the saved checkpoint"
                } else {
                    ""
                }
            );
            ExitCode::SUCCESS
        }
        Err(error) => fail(format_args!(
            "audit log in {} does not verify: {error}",
            dir.display()
        )),
    }
}

fn latest_checkpoint(dir: &Path) -> ExitCode {
    match checkpoint_store::read_all(dir) {
        Ok(stored) => match stored.notes.last() {
            Some(note) => {
                print!("{note}");
                ExitCode::SUCCESS
            }
            None => fail(format_args!("no checkpoint in {} yet", dir.display())),
        },
        Err(error) => fail(error),
    }
}

fn pubkey(dir: &Path) -> ExitCode {
    match keyfile::load(dir) {
        Ok(signer) => {
            println!("{}", signer.verifier().to_text());
            ExitCode::SUCCESS
        }
        Err(error) => fail(error),
    }
}

fn print_json<T: Serialize, E: std::fmt::Display>(answer: Result<T, E>) -> ExitCode {
    match answer.map(|a| serde_json::to_string_pretty(&a)) {
        Ok(Ok(text)) => {
            super::out(&text);
            ExitCode::SUCCESS
        }
        Ok(Err(error)) => fail(error),
        Err(error) => fail(error),
    }
}

fn show(dir: &Path, request: Option<&str>, since: Option<String>) -> ExitCode {
    let since_ms = match since.as_deref().map(|s| parse_since(s, now_ms())) {
        Some(Some(ms)) => ms,
        Some(None) => return fail("--since: expected Unix milliseconds or an age like 15m"),
        None => 0,
    };
    let entries = match crate::audit::read_entries(dir, request) {
        Ok(entries) => entries,
        Err(error) => {
            return fail(format_args!(
                "cannot read the audit log in {}: {error}",
                dir.display()
            ))
        }
    };
    for entry in entries.into_iter().filter(|e| e.at_ms >= since_ms) {
        match serde_json::to_string(&entry) {
            Ok(line) if !super::out(&line) => break,
            Ok(_) => {}
            Err(error) => eprintln!("cordon: entry {} cannot be printed: {error}", entry.index),
        }
    }
    ExitCode::SUCCESS
}

/// `1700000000000` (Unix ms) or an age: `90s`, `15m`, `2h`, `7d`, counted back from `now`.
fn parse_since(text: &str, now: u64) -> Option<u64> {
    if let Ok(ms) = text.parse::<u64>() {
        return Some(ms);
    }
    let unit = match text.chars().last()? {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        _ => return None,
    };
    let count: u64 = text[..text.len() - 1].parse().ok()?;
    Some(now.saturating_sub(count.checked_mul(unit)?))
}

#[cfg(test)]
mod tests {
    use super::parse_since;

    #[test]
    fn since_takes_milliseconds_or_an_age() {
        assert_eq!(parse_since("1700000000000", 5), Some(1_700_000_000_000));
        assert_eq!(parse_since("15m", 1_000_000), Some(100_000));
        assert_eq!(parse_since("2d", 10), Some(0));
        assert_eq!(parse_since("x", 10), None);
        assert_eq!(parse_since("5w", 10), None);
    }
}
