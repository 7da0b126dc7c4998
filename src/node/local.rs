//! `LocalPipeline`: a throwaway cordon inside this process: a nats-server with a temporary
//! store and all five actors (no warm pool), for `cordon exec` without --nats (one request)
//! and `cordon mcp` without --nats (the server's whole life). It holds the data dir's lock,
//! so it never runs beside a `cordon up` of the same data dir.

use std::sync::Arc;
use std::time::Duration;

use super::embedded::EmbeddedNats;
use super::{lock_data_dir, run_roles, NodeError};
use crate::actor::Role;
use crate::config::Settings;
use crate::shutdown::{self, ShutdownTrigger};

/// How long the actors get to stop.
const STOP_WAIT: Duration = Duration::from_secs(20);

pub struct LocalPipeline {
    settings: Arc<Settings>,
    server: EmbeddedNats,
    trigger: ShutdownTrigger,
    /// The actors; `None` once they have ended.
    node: Option<actix_rt::task::JoinHandle<Result<(), NodeError>>>,
    _store: tempfile::TempDir,
    _lock: std::fs::File,
}

impl LocalPipeline {
    /// Starts the server and the actors; `settings` then carry the users' credentials.
    pub async fn start(settings: &Settings) -> Result<LocalPipeline, String> {
        let lock = lock_data_dir(&settings.data_dir()).map_err(|e| e.to_string())?;
        let mut local = settings.clone();
        local.pool = crate::config::PoolSettings::disabled();
        let store = tempfile::Builder::new()
            .prefix("cordon-local-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary NATS store: {e}"))?;
        // Always a free port: a `cordon up` elsewhere may hold `nats.listen`.
        let server = EmbeddedNats::start(&local, store.path(), None)
            .await
            .map_err(|e| e.to_string())?;
        let settings = Arc::new(server.settings_for_users(&local));
        let (trigger, listener) = shutdown::channel();
        let node = actix_rt::spawn({
            let (settings, url) = (settings.clone(), server.url().to_string());
            async move { run_roles(settings, &Role::ALL, &url, listener).await }
        });
        Ok(LocalPipeline {
            settings,
            server,
            trigger,
            node: Some(node),
            _store: store,
            _lock: lock,
        })
    }

    pub fn url(&self) -> &str {
        self.server.url()
    }

    /// The settings to connect with (the local users' credentials).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Resolves only if the actors stop by themselves (they failed): why.
    pub async fn failed(&mut self) -> String {
        let Some(node) = self.node.as_mut() else {
            return std::future::pending().await;
        };
        let ended = node.await;
        self.node = None;
        match ended {
            Ok(Err(error)) => format!("the embedded pipeline stopped: {error}"),
            _ => "the embedded pipeline stopped".to_string(),
        }
    }

    /// Stops the actors, then the server.
    pub async fn stop(self) {
        self.trigger.trigger();
        if let Some(node) = self.node {
            let _ = tokio::time::timeout(STOP_WAIT, node).await;
        }
        self.server.stop().await;
    }
}
