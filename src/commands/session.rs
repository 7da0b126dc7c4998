//! `cordon session new|close|list`: sessions in a running cordon (`--nats`). Opening and
//! closing are requests like any other (assessed, scheduled, audited); the list is asked of
//! the Scheduler, which knows every host's open sessions.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::exec::{local_client_settings, report, submit_and_wait};
use super::{EXIT_UNAVAILABLE, EXIT_USAGE};
use crate::cli::{SessionCommand, SessionNewArgs};
use crate::client::Client;
use crate::config::Settings;
use crate::protocol::exec::{ExecRequest, Status};
use crate::protocol::interpreter::NEW_SESSION;

/// How long opening or closing may take, queueing included.
const WAIT: Duration = Duration::from_secs(120);

pub async fn session(settings: Arc<Settings>, command: SessionCommand) -> ExitCode {
    let local = local_client_settings(&settings);
    match command {
        SessionCommand::New(args) => open(&local, args).await,
        SessionCommand::Close { id, nats } => close(&local, &id, &nats).await,
        SessionCommand::List { nats, json } => list(&local, &nats, json).await,
    }
}

async fn open(settings: &Settings, args: SessionNewArgs) -> ExitCode {
    let request = ExecRequest {
        trust: Some(args.trust.clone()),
        network: args.network.clone(),
        image: args.image.clone(),
        session: Some(NEW_SESSION.to_string()),
        idle_timeout_secs: args.idle_timeout,
        client: Some("cordon-cli".into()),
        ..Default::default()
    };
    let request_id = Client::new_request_id();
    match submit_and_wait(settings, &args.nats, (&request_id, &request), WAIT, None).await {
        Ok(result) if args.json => report(&result, true),
        Ok(result) => match (&result.status, &result.session) {
            (Status::Completed, Some(session)) => {
                super::out(&session.id);
                ExitCode::SUCCESS
            }
            _ => report(&result, false),
        },
        Err(message) => unavailable(&message),
    }
}

async fn close(settings: &Settings, id: &str, url: &str) -> ExitCode {
    let request = ExecRequest {
        session: Some(id.to_string()),
        close_session: Some(true),
        client: Some("cordon-cli".into()),
        ..Default::default()
    };
    let request_id = Client::new_request_id();
    match submit_and_wait(settings, url, (&request_id, &request), WAIT, None).await {
        Ok(result) => report(&result, false),
        Err(message) => unavailable(&message),
    }
}

async fn list(settings: &Settings, url: &str, json: bool) -> ExitCode {
    let client = match Client::connect(url, &settings.nats).await {
        Ok(client) => client,
        Err(error) => return unavailable(&error.to_string()),
    };
    let sessions = match client.sessions().await {
        Ok(sessions) => sessions,
        Err(error) => return unavailable(&error.to_string()),
    };
    if json {
        match serde_json::to_string_pretty(&sessions) {
            Ok(text) => {
                super::out(&text);
            }
            Err(error) => {
                eprintln!("cordon: cannot print the list: {error}");
                return ExitCode::from(EXIT_USAGE);
            }
        }
        return ExitCode::SUCCESS;
    }
    for session in &sessions {
        let line = format!("{}\t{} MiB", session.session_id, session.memory_bytes >> 20);
        super::out(&line);
    }
    ExitCode::SUCCESS
}

fn unavailable(message: &str) -> ExitCode {
    eprintln!("cordon: {message}");
    ExitCode::from(EXIT_UNAVAILABLE)
}
