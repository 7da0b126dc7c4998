//! `cordon exec FILE|-`: submit one program and print how it ended. With `--nats` it talks to
//! a running cordon; without, it starts the whole pipeline (nats-server included) for this
//! one request and stops it afterwards. Exit status: the program's own when it completed,
//! otherwise one of the `EXIT_*` codes below (documented in the README).

use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::{EXIT_UNAVAILABLE, EXIT_USAGE};
use crate::cli::ExecArgs;
use crate::client::Client;
use crate::config::Settings;
use crate::node::local::LocalPipeline;
use crate::protocol::assessor::TrustLevel;
use crate::protocol::exec::{ErrorCode, ExecRequest, ExecResult, OutputChunk, Status};
use crate::protocol::interpreter::InputFile;

/// The sandbox was killed for breaking a limit.
pub const EXIT_VIOLATION: u8 = 124;
/// The assessment was BLOCKED; nothing ran.
pub const EXIT_BLOCKED: u8 = 77;
/// cordon could not run the program (see the error).
pub const EXIT_FAILED: u8 = 70;

pub async fn exec(settings: Arc<Settings>, args: ExecArgs) -> ExitCode {
    let code = match read_program(&args.file, settings.caps.max_code_bytes) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("cordon: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let timeout_ms = match deadline_ms(args.timeout, &args.trust, &settings) {
        Ok(timeout_ms) => timeout_ms,
        Err(message) => {
            eprintln!("cordon: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let interpreter = match interpreter_input(&args, &settings) {
        Ok(input) => input,
        Err(message) => {
            eprintln!("cordon: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let request = ExecRequest {
        code: serde_bytes::ByteBuf::from(code),
        trust: Some(args.trust.clone()),
        origin: Some(args.origin.clone()),
        timeout_ms,
        client: Some("cordon-cli".into()),
        network: args.network.clone(),
        image: args.image.clone(),
        ..interpreter
    };
    let request_id = args
        .request_id
        .clone()
        .unwrap_or_else(Client::new_request_id);
    let wait = Duration::from_secs_f64(args.wait.max(1.0));
    // For people, output is printed as it arrives; --json prints only the result.
    let mut printed = Printed::default();
    let mut print_live = |chunk: OutputChunk| printed.print(chunk);
    let follow: Option<&mut (dyn FnMut(OutputChunk) + Send)> = match args.json {
        true => None,
        false => Some(&mut print_live),
    };
    let outcome = match &args.nats {
        Some(url) => {
            let local = local_client_settings(&settings);
            submit_and_wait(&local, url, (&request_id, &request), wait, follow).await
        }
        None => run_embedded(settings.clone(), (&request_id, &request), wait, follow).await,
    };
    match outcome {
        Ok(mut result) => {
            if let Some(dir) = &args.out {
                if let Err(message) = save_files(&result, dir) {
                    eprintln!("cordon: {message}");
                }
            }
            if !args.json {
                printed.leave_unprinted(&mut result);
            }
            report(&result, args.json)
        }
        Err(message) => {
            eprintln!("cordon: {message}");
            ExitCode::from(EXIT_UNAVAILABLE)
        }
    }
}

/// The interpreter part of the request: `--session`, `--file`, `--stdin`, `--out`.
fn interpreter_input(args: &ExecArgs, settings: &Settings) -> Result<ExecRequest, String> {
    if args.session.is_some() && args.nats.is_none() {
        return Err("--session needs --nats: a session lives in a running cordon".into());
    }
    let mut budget = settings.caps.max_input_bytes;
    let mut files = Vec::new();
    for spec in &args.files {
        let (local, path) = match spec.split_once('=') {
            Some((local, path)) => (local.to_string(), path.to_string()),
            None => {
                let name = std::path::Path::new(spec).file_name();
                let name = name.map(|n| n.to_string_lossy().into_owned());
                (
                    spec.clone(),
                    name.ok_or(format!("--file {spec:?} names no file"))?,
                )
            }
        };
        let content = read_capped(&local, &mut budget)?;
        files.push(InputFile {
            path,
            content: content.into(),
        });
    }
    let stdin = match &args.stdin {
        Some(file) => Some(read_capped(&file.to_string_lossy(), &mut budget)?.into()),
        None => None,
    };
    Ok(ExecRequest {
        session: args.session.clone(),
        files: (!files.is_empty()).then_some(files),
        stdin,
        return_files: args.out.is_some().then_some(true),
        ..Default::default()
    })
}

/// Reads a local file, refusing more than what is left of `budget` (caps.max_input_bytes).
fn read_capped(file: &str, budget: &mut u64) -> Result<Vec<u8>, String> {
    let source = std::fs::File::open(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let mut content = Vec::new();
    source
        .take(*budget + 1)
        .read_to_end(&mut content)
        .map_err(|e| format!("cannot read {file}: {e}"))?;
    if content.len() as u64 > *budget {
        return Err(format!(
            "{file} does not fit: files and stdin may be {} bytes in all (caps.max_input_bytes)",
            budget
        ));
    }
    *budget -= content.len() as u64;
    Ok(content)
}

/// Saves the files a result returned into `dir` (names flattened to stay inside it).
fn save_files(result: &ExecResult, dir: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for file in &result.files {
        let name = file.name.strip_prefix("outputs/").unwrap_or(&file.name);
        let flat = name.replace('/', "_");
        let target = dir.join(&flat);
        std::fs::write(&target, &file.content)
            .map_err(|e| format!("cannot write {}: {e}", target.display()))?;
    }
    for skipped in &result.files_skipped {
        eprintln!("cordon: {} not returned: {}", skipped.name, skipped.reason);
    }
    Ok(())
}

/// The deadline `--timeout SECONDS` asks for, in milliseconds, refused (with the allowed
/// range) unless it is a number above 0 and at most the trust level's own deadline: the
/// Scheduler would only lower a longer one, and the person asking should know.
fn deadline_ms(
    seconds: Option<f64>,
    trust: &str,
    settings: &Settings,
) -> Result<Option<u64>, String> {
    let Some(seconds) = seconds else {
        return Ok(None);
    };
    let level = TrustLevel::parse(trust).ok_or_else(|| format!("unknown trust level {trust:?}"))?;
    let ceiling_ms = settings.limits.for_trust(level).timeout_ms;
    let asked_ms = seconds * 1000.0;
    if asked_ms > 0.0 && asked_ms <= ceiling_ms as f64 {
        return Ok(Some((asked_ms.ceil() as u64).max(1)));
    }
    Err(format!(
        "--timeout {seconds} is out of range: it must be more than 0 and at most {} s for \
         trust {trust} (limits.{trust}.timeout_ms)",
        ceiling_ms as f64 / 1000.0
    ))
}

/// Reads the program, refusing to hold more than the configured code cap in memory.
fn read_program(file: &str, max_bytes: u64) -> Result<Vec<u8>, String> {
    let name = if file == "-" { "standard input" } else { file };
    let source: Box<dyn Read> = if file == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(std::fs::File::open(file).map_err(|e| format!("cannot read {file}: {e}"))?)
    };
    let mut code = Vec::new();
    source
        .take(max_bytes + 1)
        .read_to_end(&mut code)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if code.len() as u64 > max_bytes {
        return Err(format!(
            "{name} is larger than the {max_bytes}-byte limit (caps.max_code_bytes)"
        ));
    }
    Ok(code)
}

/// `settings` as a client of this machine's `cordon up`: its local client's password from
/// the data dir, unless `[nats.auth]` names other credentials.
pub(super) fn local_client_settings(settings: &Settings) -> Settings {
    local_user_settings(settings, crate::node::embedded_auth::LOCAL_CLIENT)
}

/// `settings` as `user` of this machine's `cordon up` (see `local_client_settings`).
pub(super) fn local_user_settings(settings: &Settings, user: &str) -> Settings {
    let mut local = settings.clone();
    let dir = crate::node::embedded_auth::credentials_dir(&settings.data_dir());
    crate::node::embedded_auth::use_local_user(&mut local, &dir, user);
    local
}

pub(super) async fn submit_and_wait(
    settings: &Settings,
    url: &str,
    (request_id, request): (&str, &ExecRequest),
    wait: Duration,
    follow: Option<&mut (dyn FnMut(OutputChunk) + Send)>,
) -> Result<ExecResult, String> {
    let client = Client::connect(url, &settings.nats)
        .await
        .map_err(|e| e.to_string())?;
    client
        .run_following(request_id, request, wait, follow)
        .await
        .map_err(|e| e.to_string())
}

/// What of a run's output was printed as it arrived.
#[derive(Default)]
struct Printed {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    next_seq: u64,
    gap: bool,
}

impl Printed {
    fn print(&mut self, chunk: OutputChunk) {
        self.gap |= chunk.seq != self.next_seq;
        self.next_seq = chunk.seq + 1;
        let (kept, mut out): (&mut Vec<u8>, Box<dyn Write>) = match chunk.stream.as_str() {
            "stderr" => (&mut self.stderr, Box::new(std::io::stderr())),
            _ => (&mut self.stdout, Box::new(std::io::stdout())),
        };
        kept.extend_from_slice(&chunk.data);
        let _ = out.write_all(&chunk.data);
        let _ = out.flush();
    }

    /// Leaves in `result` only the output not printed yet (the whole of a stream whose
    /// live pieces did not add up to the result's, after a notice).
    fn leave_unprinted(&self, result: &mut ExecResult) {
        let streams = [
            (&self.stdout, &mut result.stdout),
            (&self.stderr, &mut result.stderr),
        ];
        for (printed, text) in streams {
            let printed = String::from_utf8_lossy(printed);
            match text.strip_prefix(printed.as_ref()) {
                Some(rest) if !self.gap => *text = rest.to_string(),
                _ => eprintln!("cordon: the live output missed pieces; the whole output follows"),
            }
        }
    }
}

/// Starts a throwaway pipeline (nats-server and all five actors), runs one request, stops it.
async fn run_embedded(
    settings: Arc<Settings>,
    (request_id, request): (&str, &ExecRequest),
    wait: Duration,
    follow: Option<&mut (dyn FnMut(OutputChunk) + Send)>,
) -> Result<ExecResult, String> {
    let mut pipeline = LocalPipeline::start(&settings).await?;
    let (url, local) = (pipeline.url().to_string(), pipeline.settings().clone());
    let result = tokio::select! {
        result = submit_and_wait(&local, &url, (request_id, request), wait, follow) => result,
        why = pipeline.failed() => Err(why),
    };
    pipeline.stop().await;
    result
}

/// Prints the result and picks the exit status (`cordon override` reuses it).
pub(super) fn report(result: &ExecResult, json: bool) -> ExitCode {
    if json {
        match serde_json::to_string_pretty(result) {
            Ok(text) => {
                super::out(&text);
            }
            Err(e) => eprintln!("cordon: cannot print the result: {e}"),
        }
    } else {
        print_for_people(result);
    }
    ExitCode::from(exit_status(result))
}

/// The exit status documented in the README for a result.
fn exit_status(result: &ExecResult) -> u8 {
    match result.status {
        Status::Completed => result.exit_code.unwrap_or(0).clamp(0, 255) as u8,
        Status::Violation => EXIT_VIOLATION,
        Status::Blocked => EXIT_BLOCKED,
        Status::Rejected => EXIT_USAGE,
        // No image is cordon not being set up, not a run that went wrong.
        Status::Failed if error_code(result) == Some(ErrorCode::ImageMissing.as_str()) => {
            EXIT_UNAVAILABLE
        }
        Status::Failed => EXIT_FAILED,
    }
}

fn error_code(result: &ExecResult) -> Option<&str> {
    result.error.as_ref().map(|e| e.code.as_str())
}

fn print_for_people(result: &ExecResult) {
    let _ = std::io::stdout().write_all(result.stdout.as_bytes());
    let _ = std::io::stderr().write_all(result.stderr.as_bytes());
    let line = match result.status {
        Status::Completed => return,
        Status::Violation => match &result.violation {
            Some(v) => format!("killed: {} limit: {}", v.kind.as_str(), v.detail),
            None => "killed for a violation".into(),
        },
        Status::Blocked => {
            let findings = result.assessment.iter().flat_map(|a| &a.findings);
            let reasons: Vec<String> = findings
                .map(|f| format!("{} line {}: {}", f.rule, f.line, f.message))
                .collect();
            format!("blocked, not run: {}", reasons.join("; "))
        }
        Status::Rejected | Status::Failed => match &result.error {
            Some(e) => format!("{}: {} ({})", result.status.as_str(), e.message, e.code),
            None => result.status.as_str().into(),
        },
    };
    eprintln!("cordon: {line}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exec::ErrorInfo;

    #[test]
    fn a_deadline_is_taken_only_above_zero_and_up_to_the_trust_levels_own() {
        let settings = Settings::load(None).unwrap();
        let ceiling = settings.limits.untrusted.timeout_ms;
        assert_eq!(deadline_ms(None, "untrusted", &settings), Ok(None));
        assert_eq!(
            deadline_ms(Some(1.5), "untrusted", &settings),
            Ok(Some(1500))
        );
        let at_ceiling = deadline_ms(Some(ceiling as f64 / 1000.0), "untrusted", &settings);
        assert_eq!(at_ceiling, Ok(Some(ceiling)));
        for bad in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            ceiling as f64 / 1000.0 + 0.5,
        ] {
            let refused = deadline_ms(Some(bad), "untrusted", &settings).unwrap_err();
            assert!(
                refused.contains("more than 0 and at most 10 s"),
                "{bad}: {refused}"
            );
        }
        assert!(deadline_ms(Some(60.0), "trusted", &settings).is_ok());
    }

    #[test]
    fn a_missing_image_exits_unavailable_and_other_failures_failed() {
        let failed = |code: ErrorCode| {
            let mut result = ExecResult::without_run("01J9ZQ3V7Y8K2M4N6P8R0T2V4X", Status::Failed);
            result.error = Some(ErrorInfo::new(code, "x"));
            exit_status(&result)
        };
        assert_eq!(failed(ErrorCode::ImageMissing), EXIT_UNAVAILABLE);
        assert_eq!(failed(ErrorCode::Docker), EXIT_FAILED);
        assert_eq!(failed(ErrorCode::Internal), EXIT_FAILED);
    }
}
