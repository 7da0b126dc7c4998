//! `cordon mcp`: serves cordon's tools to an assistant over MCP on stdin/stdout, or with
//! `--http ADDRESS` over Streamable HTTP on a loopback address, as a client of a running
//! cordon (`--nats`, the local client's credentials as `cordon exec` uses) or of a pipeline
//! started in this process for the server's life.

use std::process::ExitCode;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;

use super::exec::local_client_settings;
use super::EXIT_UNAVAILABLE;
use crate::cli::McpArgs;
use crate::client::Client;
use crate::config::Settings;
use crate::mcp::tools::{package_summary, RequestDefaults};
use crate::mcp::CordonTools;
use crate::node::local::LocalPipeline;
use crate::protocol::assessor::TrustLevel;

/// How long reading an image's packages at start may take.
const PACKAGES_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

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
    let packages = package_summary(&client, &settings, PACKAGES_WAIT).await;
    let tools = CordonTools::new(Arc::new(client), &settings, defaults, &packages);
    let served = match &args.http {
        Some(address) => serve_http(tools, address).await,
        None => serve_stdio(tools).await,
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

/// Serves the tools on stdin/stdout until the client closes them.
async fn serve_stdio(tools: CordonTools) -> Result<(), String> {
    let service = tools
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    service
        .waiting()
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Serves the tools over Streamable HTTP on `address`, which must be a loopback address
/// (anyone who can reach it runs code as this server's client), until interrupted.
async fn serve_http(tools: CordonTools, address: &str) -> Result<(), String> {
    let address: std::net::SocketAddr = address
        .parse()
        .map_err(|e| format!("--http {address:?} is not an address like 127.0.0.1:8765: {e}"))?;
    if !address.ip().is_loopback() {
        return Err(format!(
            "--http {address} is not a loopback address: the MCP endpoint has no authentication of its own"
        ));
    }
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    // The first line on stdout says where it listens (port 0 picks a free one).
    super::out(&format!("cordon: MCP on http://{bound}/mcp"));
    let service = StreamableHttpService::new(
        move || Ok(tools.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted.map_err(|e| e.to_string())?,
            _ = tokio::signal::ctrl_c() => return Ok(()),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request| {
                let service = service.clone();
                async move { Ok::<_, std::convert::Infallible>(service.handle(request).await) }
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), handler);
            if let Err(error) = connection.await {
                tracing::debug!(%error, "an MCP HTTP connection ended with an error");
            }
        });
    }
}

fn unavailable(message: &str) -> ExitCode {
    eprintln!("cordon: {message}");
    ExitCode::from(EXIT_UNAVAILABLE)
}
