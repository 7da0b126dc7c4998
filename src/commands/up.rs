//! `cordon up` (all actors, embedded nats-server unless --nats) and `cordon serve --role`
//! (chosen actors against a given server). Both run until SIGINT or SIGTERM.

use std::process::ExitCode;
use std::sync::Arc;

use super::EXIT_UNAVAILABLE;
use crate::actor::Role;
use crate::config::Settings;
use crate::node::embedded::EmbeddedNats;
use crate::node::{lock_data_dir, run_roles};
use crate::shutdown::{self, ShutdownTrigger};

pub async fn up(settings: Arc<Settings>, nats: Option<String>, listen: Option<String>) -> ExitCode {
    let _lock = match lock_data_dir(&settings.data_dir()) {
        Ok(lock) => lock,
        Err(error) => {
            eprintln!("cordon: {error}");
            return ExitCode::from(EXIT_UNAVAILABLE);
        }
    };
    let url = nats.or_else(|| Some(settings.nats.url.clone()).filter(|u| !u.is_empty()));
    let embedded = match url {
        Some(_) => None,
        None => match start_embedded(&settings, listen).await {
            Ok(server) => Some(server),
            Err(error) => {
                eprintln!("cordon: {error}");
                return ExitCode::from(EXIT_UNAVAILABLE);
            }
        },
    };
    let url = url.unwrap_or_else(|| {
        embedded
            .as_ref()
            .map(|s| s.url().to_string())
            .unwrap_or_default()
    });
    println!("cordon: up on {url} as host {}", settings.node.host_id);
    let settings = match &embedded {
        Some(server) => Arc::new(server.settings_for_users(&settings)),
        None => settings,
    };
    let code = serve_until_signal(settings, &Role::ALL, &url).await;
    if let Some(server) = embedded {
        server.stop().await;
    }
    code
}

/// The embedded nats-server of `cordon up`, on `--listen`, else `nats.listen`, else a free
/// loopback port; its store in the data dir.
async fn start_embedded(
    settings: &Settings,
    listen: Option<String>,
) -> Result<EmbeddedNats, crate::node::NodeError> {
    let listen = listen.unwrap_or_else(|| settings.nats.listen.clone());
    let store = settings.data_dir().join("nats");
    EmbeddedNats::start(
        settings,
        &store,
        Some(listen.as_str()).filter(|l| !l.is_empty()),
    )
    .await
}

pub async fn serve(settings: Arc<Settings>, roles: &[Role], nats: &str) -> ExitCode {
    serve_until_signal(settings, roles, nats).await
}

async fn serve_until_signal(settings: Arc<Settings>, roles: &[Role], url: &str) -> ExitCode {
    let (trigger, listener) = shutdown::channel();
    tokio::spawn(trigger_on_signal(trigger));
    match run_roles(settings, roles, url, listener).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("cordon: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn trigger_on_signal(trigger: ShutdownTrigger) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut terminate) = signal(SignalKind::terminate()) else {
        return;
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = terminate.recv() => {},
    }
    tracing::info!("shutting down");
    trigger.trigger();
}
