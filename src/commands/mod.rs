//! Runs what the command line asked for: loads settings, sets up logging, and starts the
//! actix system that the concurrent commands run in (`assess`, `audit` and `keygen` run
//! without it). One file per command.

mod assess;
mod audit;
mod doctor;
mod exec;
mod image;
mod keygen;
mod mcp;
mod override_cmd;
mod session;
mod up;

use std::process::ExitCode;
use std::sync::Arc;

use crate::cli::{Cli, Command};
use crate::config::Settings;

/// Exit status for bad usage or input (as clap uses too).
pub const EXIT_USAGE: u8 = 2;
/// Exit status when cordon itself cannot work (NATS, Docker, image missing...).
pub const EXIT_UNAVAILABLE: u8 = 69;

/// Prints one line on stdout. Returns false once the reader has gone away (`| head`): that
/// ends the output quietly instead of panicking as `println!` would.
fn out(line: &str) -> bool {
    use std::io::Write;
    writeln!(std::io::stdout().lock(), "{line}").is_ok()
}

/// Entry point of the binary.
pub fn run(cli: Cli) -> ExitCode {
    crate::panics::install_hook();
    // Reads FAILPOINTS when built with the `failpoints` feature (tests); a no-op otherwise.
    let _fail_points = fail::FailScenario::setup();
    let settings = match load_settings(&cli) {
        Ok(settings) => Arc::new(settings),
        Err(error) => {
            eprintln!("cordon: {error}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    init_logging(&settings, is_quiet(&cli.command));
    match run_without_runtime(cli.command, &settings) {
        Ok(status) => status,
        Err(command) => actix_rt::System::new().block_on(dispatch(*command, settings)),
    }
}

/// Commands that do no I/O concurrently run without the async runtime (`assess` is often
/// run once per file, and starting the runtime cost more than assessing); any other
/// command is handed back.
fn run_without_runtime(command: Command, settings: &Settings) -> Result<ExitCode, Box<Command>> {
    match command {
        Command::Assess(args) => Ok(assess::assess(settings, args)),
        Command::Audit { command } => Ok(audit::audit(settings, command)),
        Command::Keygen(args) => Ok(keygen::keygen(args)),
        other => Err(Box::new(other)),
    }
}

async fn dispatch(command: Command, settings: Arc<Settings>) -> ExitCode {
    match command {
        Command::Up { nats, listen } => up::up(settings, nats, listen).await,
        Command::Serve { role, nats } => up::serve(settings, &role, &nats).await,
        Command::Exec(args) => exec::exec(settings, args).await,
        Command::Doctor => doctor::doctor(&settings).await,
        Command::Image { command } => image::image(&settings, command).await,
        Command::Session { command } => session::session(settings, command).await,
        Command::Mcp(args) => mcp::mcp(settings, args).await,
        Command::Override(args) => override_cmd::override_request(settings, args).await,
        Command::ProxyWorker { port } => proxy_worker(port).await,
        // Run by `run` before any runtime starts; handled here too so that every command
        // has one place it is dispatched from.
        other => run_without_runtime(other, &settings).unwrap_or(ExitCode::FAILURE),
    }
}

/// `cordon proxy-worker`: serves until its supervisor closes stdin.
async fn proxy_worker(port: u16) -> ExitCode {
    match crate::proxy::worker::run(port).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cordon: the egress proxy cannot listen on port {port}: {error}");
            ExitCode::from(EXIT_UNAVAILABLE)
        }
    }
}

fn load_settings(cli: &Cli) -> Result<Settings, crate::config::ConfigError> {
    let mut settings = Settings::load(cli.config.as_deref())?;
    if let Some(dir) = &cli.data_dir {
        settings.node.data_dir = dir.to_string_lossy().into_owned();
    }
    check_sections(&settings)?;
    Ok(settings)
}

/// The sections an actor validates itself (config holds plain types), checked here too so
/// every command stops at once on a bad one instead of when that actor starts.
fn check_sections(settings: &Settings) -> Result<(), crate::config::ConfigError> {
    crate::proxy::check_settings(&settings.network).map_err(|why| {
        crate::config::ConfigError::Invalid {
            key: "network",
            why,
        }
    })
}

/// Commands whose output is for people or scripts log only warnings unless RUST_LOG says.
fn is_quiet(command: &Command) -> bool {
    !matches!(command, Command::Up { .. } | Command::Serve { .. })
}

fn init_logging(settings: &Settings, quiet: bool) {
    use tracing_subscriber::EnvFilter;
    let default = if quiet {
        "warn"
    } else {
        settings.log.filter.as_str()
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    // Colours only for a person at a terminal: a journal or a log file gets plain text.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    let _ = if settings.log.format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
