//! `cordon mcp`: serves cordon's tools to an assistant over MCP on stdin/stdout, as a
//! client of a running cordon (`--nats`, the local client's credentials as `cordon exec`
//! uses) or of a pipeline started in this process for the server's life.

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::ServiceExt;

use super::exec::local_client_settings;
use super::EXIT_UNAVAILABLE;
use crate::cli::McpArgs;
use crate::client::Client;
use crate::config::Settings;
use crate::mcp::tools::RequestDefaults;
use crate::mcp::CordonTools;
use crate::node::local::LocalPipeline;
use crate::protocol::assessor::TrustLevel;

pub async fn mcp(settings: Arc<Settings>, args: McpArgs) -> ExitCode {
    let Some(trust) = TrustLevel::parse(&args.trust) else {
        return unavailable(&format!("unknown trust level {:?}", args.trust));
    };
    let defaults = RequestDefaults {
        trust,
        origin: args.origin.clone(),
    };
    let (client, pipeline) = match connect(&settings, args.nats.as_deref()).await {
        Ok(connected) => connected,
        Err(message) => return unavailable(&message),
    };
    let tools = CordonTools::new(Arc::new(client), &settings, defaults);
    let served = match tools.serve(rmcp::transport::stdio()).await {
        Ok(service) => service
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
        Err(error) => Err(error.to_string()),
    };
    if let Some(pipeline) = pipeline {
        pipeline.stop().await;
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => unavailable(&format!("the MCP connection failed: {message}")),
    }
}

/// A client of the cordon at `url`, or of a pipeline started here (returned, to stop).
async fn connect(
    settings: &Settings,
    url: Option<&str>,
) -> Result<(Client, Option<LocalPipeline>), String> {
    match url {
        Some(url) => {
            let local = local_client_settings(settings);
            let client = Client::connect(url, &local.nats).await;
            Ok((client.map_err(|e| e.to_string())?, None))
        }
        None => {
            let pipeline = LocalPipeline::start(settings).await?;
            let client = Client::connect(pipeline.url(), &pipeline.settings().nats).await;
            Ok((client.map_err(|e| e.to_string())?, Some(pipeline)))
        }
    }
}

fn unavailable(message: &str) -> ExitCode {
    eprintln!("cordon: {message}");
    ExitCode::from(EXIT_UNAVAILABLE)
}
