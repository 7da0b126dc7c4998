//! `cordon assess FILE...`: assesses files statically, in process (nothing runs, no NATS),
//! and prints text, a JSON array or SARIF 2.1.0. Exit status (documented in the README):
//! `0` no finding at or above `--fail-on`, `1` at least one, `2` bad usage or a file that
//! could not be read (the readable ones are still reported). Files are decoded as Python
//! would (PEP 263 coding cookies); one that is not text is reported HIGH (CRD005).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::EXIT_USAGE;
use crate::assessor::engine::{decode_source, not_python_source, SourceText};
use crate::assessor::report::external;
use crate::assessor::report::output::{self, FileReport};
use crate::assessor::Policy;
use crate::cli::AssessArgs;
use crate::config::Settings;
use crate::protocol::assessor::{Level, Origin};

/// Some file is at or above the `--fail-on` level.
pub const EXIT_FINDINGS: u8 = 1;

pub fn assess(settings: &Settings, args: AssessArgs) -> ExitCode {
    let origin = Origin::parse(&args.origin).unwrap_or(Origin::External);
    let mut reports = Vec::with_capacity(args.files.len());
    let mut unreadable = false;
    let policy = Policy::new(settings.security.clone());
    for outcome in assess_all(&args.files, origin, (settings, &policy)) {
        match outcome {
            Ok(report) => reports.push(report),
            Err(message) => {
                eprintln!("cordon: {message}");
                unreadable = true;
            }
        }
    }
    if !print(&reports, &args.format) {
        return ExitCode::from(EXIT_USAGE);
    }
    exit_status(&reports, &args.fail_on, unreadable)
}

/// Reads and assesses every file in the given order, spread over the machine's cores when
/// there are enough files to be worth a thread each.
fn assess_all(
    files: &[PathBuf],
    origin: Origin,
    (settings, policy): (&Settings, &Policy),
) -> Vec<Result<FileReport, String>> {
    let one = |path: &PathBuf| {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Ok(match decode_source(&bytes) {
            SourceText::Text(source) => assess_one(path, &source, origin, (settings, policy)),
            SourceText::NotText => FileReport {
                path: path.display().to_string(),
                assessment: not_python_source(origin, policy),
                analysers: Vec::new(),
            },
        })
    };
    // One file needs no count of cores (asking reads the cgroup's files).
    let cores = match files.len() {
        0 | 1 => 1,
        _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if files.len() < 2 * cores {
        return files.iter().map(one).collect();
    }
    // Workers take the next unassessed file in turn, so one slow file does not leave the
    // other cores idle while a fixed share of the list waits behind it.
    let next = AtomicUsize::new(0);
    let take_files = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = files.get(index) else {
                return done;
            };
            done.push((index, one(path)));
        }
    };
    let mut reports: Vec<_> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..cores).map(|_| scope.spawn(take_files)).collect();
        workers
            .into_iter()
            .flat_map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
            .collect()
    });
    reports.sort_unstable_by_key(|(index, _)| *index);
    reports.into_iter().map(|(_, report)| report).collect()
}

fn assess_one(
    path: &Path,
    source: &str,
    origin: Origin,
    (settings, policy): (&Settings, &Policy),
) -> FileReport {
    let (assessment, analysers) = external::assess(source, origin, policy, &settings.analysers);
    FileReport {
        path: path.display().to_string(),
        assessment,
        analysers,
    }
}

/// Prints the reports; false when they could not be serialized.
fn print(reports: &[FileReport], format: &str) -> bool {
    let text = match format {
        "json" => serde_json::to_string_pretty(&output::json(reports)),
        "sarif" => serde_json::to_string_pretty(&output::sarif(reports)),
        _ => Ok(output::text(reports).trim_end().to_string()),
    };
    match text {
        Ok(text) => {
            if !text.is_empty() {
                super::out(&text);
            }
            true
        }
        Err(error) => {
            eprintln!("cordon: cannot print the report: {error}");
            false
        }
    }
}

fn exit_status(reports: &[FileReport], fail_on: &str, unreadable: bool) -> ExitCode {
    if unreadable {
        return ExitCode::from(EXIT_USAGE);
    }
    let threshold = match fail_on {
        "low" => Some(Level::Low),
        "medium" => Some(Level::Medium),
        "high" => Some(Level::High),
        "blocked" => Some(Level::Blocked),
        _ => None,
    };
    // A file with no findings is LOW but never fails, not even `--fail-on low`.
    let failing = threshold.is_some_and(|t| {
        reports
            .iter()
            .flat_map(|r| &r.assessment.findings)
            .any(|f| f.severity >= t)
    });
    if failing {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    }
}
