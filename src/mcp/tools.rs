//! The MCP tools: `run_python` (code, optional session, files and timeout), `new_session`,
//! `close_session` and `list_packages`. Each is one cordon request through the client; the
//! answer is the result rendered for a model (`render`), with PNG files as images and other
//! files as embedded resources. `run_python`'s description states the live limits.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, Content, Implementation, ResourceContents, ServerCapabilities, ServerInfo,
};
use rmcp::{schemars, tool, tool_handler, tool_router, ErrorData as McpError, ServerHandler};
use serde::Deserialize;

use super::render::{result_text, SHOWN_OUTPUT_CHARS};
use crate::client::Client;
use crate::config::Settings;
use crate::protocol::assessor::TrustLevel;
use crate::protocol::exec::{ExecRequest, ExecResult, Status};
use crate::protocol::interpreter::{InputFile, NEW_SESSION};

/// How long a tool waits for its result, queueing included.
const RESULT_WAIT: Duration = Duration::from_secs(600);

/// What `list_packages` runs in a sandbox: every installed distribution and its version.
const LIST_PACKAGES: &str = "import importlib.metadata as m\n\
names = sorted({(d.metadata['Name'] or '?') + ' ' + d.version for d in m.distributions()}, key=str.lower)\n\
print('\\n'.join(names))\n";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct RunPythonArgs {
    /// The Python 3 code to run. Print what you want to see.
    pub code: String,
    /// A session id from new_session: the code runs as the next cell of that session and
    /// sees its variables, imports and files. Omit it to run in a fresh interpreter.
    #[serde(default)]
    pub session: Option<String>,
    /// Files to place in the working directory before the code runs.
    #[serde(default)]
    pub files: Vec<FileArg>,
    /// Seconds the code may run before it is interrupted (at most the limit this tool's
    /// description states).
    #[serde(default)]
    pub timeout_seconds: Option<f64>,
    /// Sandbox image for a run without a session: "default" (the standard library) or
    /// "data" (numpy, pandas, matplotlib, scipy, scikit-learn...). A session keeps the
    /// image it was opened with.
    #[serde(default)]
    pub image: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct FileArg {
    /// Relative path in the working directory, e.g. "data.csv" or "inputs/ref.json".
    pub path: String,
    /// The file's content: text, or base64 when `base64` is true.
    pub content: String,
    #[serde(default)]
    pub base64: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct NewSessionArgs {
    /// Sandbox image: "default" or "data" (numpy, pandas, matplotlib...).
    #[serde(default)]
    pub image: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct CloseSessionArgs {
    /// The session id new_session returned.
    pub session: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListPackagesArgs {
    /// Sandbox image: "default" or "data".
    #[serde(default)]
    pub image: Option<String>,
}

/// What every request of this server carries.
#[derive(Debug, Clone)]
pub struct RequestDefaults {
    pub trust: TrustLevel,
    /// `external` or `self` (see `cordon mcp --origin`).
    pub origin: String,
}

#[derive(Clone)]
pub struct CordonTools {
    client: Arc<Client>,
    defaults: RequestDefaults,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl CordonTools {
    /// The tools; `packages` says what each image offers (`package_summary`).
    pub fn new(
        client: Arc<Client>,
        settings: &Settings,
        defaults: RequestDefaults,
        packages: &str,
    ) -> Self {
        let mut tool_router = Self::tool_router();
        if let Some(route) = tool_router.map.get_mut("run_python") {
            let description = run_python_description(settings, defaults.trust, packages);
            route.attr.description = Some(description.into());
        }
        CordonTools {
            client,
            defaults,
            tool_router,
        }
    }

    #[tool(description = "Run Python code in a locked-down sandbox (see the limits above).")]
    async fn run_python(
        &self,
        Parameters(args): Parameters<RunPythonArgs>,
    ) -> Result<CallToolResult, McpError> {
        let files = args
            .files
            .into_iter()
            .map(input_file)
            .collect::<Result<Vec<_>, _>>()?;
        let timeout_ms = args
            .timeout_seconds
            .filter(|s| s.is_finite() && *s > 0.0)
            .map(|s| (s * 1000.0).ceil() as u64);
        let request = ExecRequest {
            timeout_ms,
            session: args.session,
            image: args.image,
            files: (!files.is_empty()).then_some(files),
            return_files: Some(true),
            ..self.request(&args.code)
        };
        Ok(tool_result(&self.run(&request).await?))
    }

    #[tool(
        description = "Open a session: a sandbox that keeps its Python interpreter, so \
        variables, imports and files carry over from one run_python call to the next. \
        Returns the session id to pass to run_python. Close it with close_session when done."
    )]
    async fn new_session(
        &self,
        Parameters(args): Parameters<NewSessionArgs>,
    ) -> Result<CallToolResult, McpError> {
        let request = ExecRequest {
            session: Some(NEW_SESSION.to_string()),
            image: args.image,
            ..self.request("")
        };
        let result = self.run(&request).await?;
        match &result.session {
            Some(session) if result.status == Status::Completed => {
                Ok(CallToolResult::success(vec![Content::text(format!(
                    "session {} is open; pass it as `session` to run_python",
                    session.id
                ))]))
            }
            _ => Ok(tool_result(&result)),
        }
    }

    #[tool(
        description = "Close a session and remove its sandbox (its variables and files are gone)."
    )]
    async fn close_session(
        &self,
        Parameters(args): Parameters<CloseSessionArgs>,
    ) -> Result<CallToolResult, McpError> {
        let request = ExecRequest {
            session: Some(args.session),
            close_session: Some(true),
            ..self.request("")
        };
        Ok(tool_result(&self.run(&request).await?))
    }

    #[tool(
        description = "List the Python packages (name and version) a sandbox image offers, \
        read inside a sandbox of that image."
    )]
    async fn list_packages(
        &self,
        Parameters(args): Parameters<ListPackagesArgs>,
    ) -> Result<CallToolResult, McpError> {
        let request = ExecRequest {
            image: args.image,
            ..self.request(LIST_PACKAGES)
        };
        Ok(tool_result(&self.run(&request).await?))
    }
}

impl CordonTools {
    fn request(&self, code: &str) -> ExecRequest {
        ExecRequest {
            code: code.as_bytes().to_vec().into(),
            trust: Some(self.defaults.trust.as_str().to_string()),
            origin: Some(self.defaults.origin.clone()),
            client: Some("cordon-mcp".into()),
            ..Default::default()
        }
    }

    async fn run(&self, request: &ExecRequest) -> Result<ExecResult, McpError> {
        let id = Client::new_request_id();
        self.client
            .run(&id, request, RESULT_WAIT)
            .await
            .map_err(|e| McpError::internal_error(format!("cordon is unavailable: {e}"), None))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for CordonTools {
    fn get_info(&self) -> ServerInfo {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        ServerInfo::new(capabilities)
            .with_server_info(Implementation::new("cordon", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Run Python with run_python. Use new_session to keep state across calls. \
                 Every run is assessed, sandboxed and audited; a BLOCKED run never executes.",
            )
    }
}

/// A file argument as an input file; bad base64 is the caller's error.
fn input_file(file: FileArg) -> Result<InputFile, McpError> {
    let content = match file.base64 {
        true => base64::engine::general_purpose::STANDARD
            .decode(&file.content)
            .map_err(|e| {
                McpError::invalid_params(format!("file {:?} is not base64: {e}", file.path), None)
            })?,
        false => file.content.into_bytes(),
    };
    Ok(InputFile {
        path: file.path,
        content: content.into(),
    })
}

/// The result as MCP content: the text for the model, PNG files as images, other files as
/// embedded resources. Anything but `completed` is an error result.
fn tool_result(result: &ExecResult) -> CallToolResult {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut content = vec![Content::text(result_text(result, Some(SHOWN_OUTPUT_CHARS)))];
    for file in &result.files {
        content.push(match file.media_type.as_str() {
            "image/png" => Content::image(b64(&file.content), "image/png"),
            media_type => Content::resource(ResourceContents::BlobResourceContents {
                uri: format!("cordon://{}/{}", result.request_id, file.name),
                mime_type: Some(media_type.to_string()),
                blob: b64(&file.content),
                meta: None,
            }),
        });
    }
    match result.status {
        Status::Completed => CallToolResult::success(content),
        _ => CallToolResult::error(content),
    }
}

/// Packages a model looks for, named in `run_python`'s description when an image has them.
const NOTABLE_PACKAGES: [&str; 14] = [
    "numpy",
    "pandas",
    "matplotlib",
    "scipy",
    "scikit-learn",
    "statsmodels",
    "seaborn",
    "sympy",
    "networkx",
    "requests",
    "pillow",
    "openpyxl",
    "pyarrow",
    "polars",
];

/// What each configured image offers, read in one of its sandboxes at start (as
/// `list_packages` does): "data: numpy 1.24.2, pandas 1.5.3, ...". An image that cannot be
/// read in `wait` says so instead.
pub async fn package_summary(client: &Client, settings: &Settings, wait: Duration) -> String {
    let mut lines = Vec::new();
    for image in settings.sandbox.images.keys() {
        let request = ExecRequest {
            code: LIST_PACKAGES.as_bytes().to_vec().into(),
            image: Some(image.clone()),
            client: Some("cordon-mcp".into()),
            ..Default::default()
        };
        let id = Client::new_request_id();
        let listed = match client.run(&id, &request, wait).await {
            Ok(result) if result.status == Status::Completed => notable_in(&result.stdout),
            Ok(result) => format!("not read ({})", result.status.as_str()),
            Err(_) => "not read (cordon did not answer in time)".to_string(),
        };
        lines.push(format!("{image}: {listed}"));
    }
    lines.join("; ")
}

/// The notable packages of a `list_packages` listing ("name version" lines).
fn notable_in(listing: &str) -> String {
    let found: Vec<&str> = listing
        .lines()
        .filter(|line| {
            let name = line
                .split(' ')
                .next()
                .unwrap_or_default()
                .to_ascii_lowercase();
            NOTABLE_PACKAGES.contains(&name.as_str())
        })
        .collect();
    match found.is_empty() {
        true => "the standard library".to_string(),
        false => found.join(", "),
    }
}

/// `run_python`'s description, with the limits the settings give `trust` and what the
/// images offer.
fn run_python_description(settings: &Settings, trust: TrustLevel, packages: &str) -> String {
    let limits = settings.limits.for_trust(trust);
    format!(
        "Run Python 3 code in a fresh, locked-down sandbox and get its output. Limits per run: \
         {timeout} s of wall time (then the code is interrupted), {memory} MiB of memory, \
         {cpus} CPU(s), no network at all, a {tmpfs} MiB working directory. Print what you \
         want to see (stdout and stderr come back). Files written under ./outputs/ come back, \
         and so does any matplotlib figure left open (as a PNG image, without saving it). \
         Pass `session` (from new_session) to keep variables between calls. Images (`image`) \
         and what they offer: {packages} (call list_packages for the full list). Risky code \
         is assessed first: code that attacks the host or the network is BLOCKED and never \
         runs.",
        timeout = limits.timeout_ms / 1000,
        memory = limits.memory_bytes >> 20,
        cpus = limits.cpus,
        tmpfs = settings.caps.tmpfs_bytes >> 20,
    )
}
