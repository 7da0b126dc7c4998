//! The command line, declared with clap: nothing but declarations. The first line of each
//! doc comment is the short help. `commands` runs what is parsed here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::actor::Role;

/// Run untrusted Python in hardened, watched, audited Docker containers.
#[derive(Debug, Parser)]
#[command(name = "cordon", version, about, long_about = None)]
pub struct Cli {
    /// Settings file (TOML) overriding config/default.toml; CORDON__SECTION__KEY overrides both.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Directory for the audit log, keys and the embedded NATS store.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run all five actors in this process (starts nats-server unless --nats is given).
    Up {
        /// NATS server to use instead of starting one (several of a cluster: comma-separated).
        #[arg(long, value_name = "URL", conflicts_with = "listen")]
        nats: Option<String>,
        /// Address the embedded nats-server listens on, e.g. 127.0.0.1:4222 (default:
        /// nats.listen, else a free loopback port).
        #[arg(long, value_name = "ADDRESS")]
        listen: Option<String>,
    },
    /// Run chosen actors in this process against a NATS server, so each scales on its own.
    Serve {
        /// Actor(s) to run; repeat for several.
        #[arg(long, required = true, value_enum)]
        role: Vec<Role>,
        /// NATS server to connect to; several of a cluster comma-separated, nearest first.
        #[arg(long, value_name = "URL")]
        nats: String,
    },
    /// Run a Python file in a sandbox and print its output (or the result as JSON).
    Exec(ExecArgs),
    /// Serve cordon's tools (run_python, sessions, packages) to an assistant over MCP on
    /// stdin/stdout.
    Mcp(McpArgs),
    /// Open, list and close sessions: sandboxes that keep their interpreter across cells.
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Build and inspect the sandbox image.
    Image {
        #[command(subcommand)]
        command: ImageCommand,
    },
    /// Check Docker, the image, nats-server and the runtime, and say what to fix.
    Doctor,
    /// Read and check the audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
    /// Assess Python files statically and report findings (nothing is run).
    Assess(AssessArgs),
    /// Make an Ed25519 key pair for signing override grants.
    Keygen(KeygenArgs),
    /// Release a BLOCKED request with a signed grant, then wait for its run result.
    Override(OverrideArgs),
    /// The egress proxy inside its container (started by the supervisor, not by hand).
    #[command(hide = true)]
    ProxyWorker {
        /// Port to listen on.
        #[arg(long, default_value_t = 3128)]
        port: u16,
    },
}

#[derive(Debug, Args)]
pub struct AssessArgs {
    /// Python files to assess.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// Who wrote the code: the assistant itself (self) or anyone else (external).
    #[arg(long, default_value = "external", value_parser = ["self", "external"])]
    pub origin: String,
    /// Output: text for people, a JSON array, or SARIF 2.1.0 for code-scanning tools.
    #[arg(long, default_value = "text", value_parser = ["text", "json", "sarif"])]
    pub format: String,
    /// Exit 1 when any file is at this level or above ("never": only errors fail).
    #[arg(long, value_name = "LEVEL", default_value = "high",
          value_parser = ["low", "medium", "high", "blocked", "never"])]
    pub fail_on: String,
}

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Where to write the private key (mode 0600); the public key goes to FILE.pub.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace existing key files.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct OverrideArgs {
    /// The id of the held (BLOCKED) request.
    #[arg(value_name = "REQUEST_ID")]
    pub request_id: String,
    /// Why this code may run anyway; kept in the audit log.
    #[arg(long, value_name = "TEXT")]
    pub reason: String,
    /// Private key made by `cordon keygen`; its public key must be in overrides.operator_keys.
    #[arg(long, value_name = "FILE")]
    pub key: PathBuf,
    /// Who is overriding (default: $USER); kept in the audit log.
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,
    /// NATS server(s) of the running cordon, comma-separated (default: nats.url).
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    /// How long the grant stays valid, in seconds (at most overrides.max_grant_ttl_secs).
    #[arg(long, default_value_t = 300, value_name = "SECONDS")]
    pub ttl: u64,
    /// How long to wait for the decision and the run result, in seconds.
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub wait: f64,
    /// Print the run result as JSON instead of the program's output.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ExecArgs {
    /// Python file to run, or - for standard input.
    #[arg(value_name = "FILE")]
    pub file: String,
    /// How much the code's source is trusted; picks the base limits.
    #[arg(long, default_value = "untrusted", value_parser = ["untrusted", "unknown", "trusted"])]
    pub trust: String,
    /// Who wrote the code: the assistant itself (self) or anyone else (external).
    #[arg(long, default_value = "external", value_parser = ["self", "external"])]
    pub origin: String,
    /// Network: none (default), or allowlist (read-only egress to the configured hosts
    /// through cordon's proxy; only at the trust levels config allows).
    #[arg(long, value_parser = ["none", "allowlist"])]
    pub network: Option<String>,
    /// Wall-clock deadline in seconds: more than 0, at most the trust level's
    /// `limits.<trust>.timeout_ms`; anything else is refused.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,
    /// Print the whole result document as JSON instead of the program's output.
    #[arg(long)]
    pub json: bool,
    /// NATS server(s) of a running cordon, comma-separated; without it the pipeline runs
    /// embedded for this request.
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    /// Sandbox image, by its short name in [sandbox.images] (default, data...); any other
    /// name is rejected.
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,
    /// How long to wait for the result, in seconds (queueing included).
    #[arg(long, default_value_t = 600.0, value_name = "SECONDS")]
    pub wait: f64,
    /// Use this request id instead of a fresh ULID (resubmitting an id is deduplicated).
    #[arg(long, value_name = "ID")]
    pub request_id: Option<String>,
    /// Run the program as the next cell of this session (from `cordon session new`); needs
    /// --nats.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Place a local file in the sandbox's working directory before the code runs, under
    /// its file name or under PATH; repeat for several.
    #[arg(long = "file", value_name = "LOCAL[=PATH]")]
    pub files: Vec<String>,
    /// Feed this file to the program's standard input.
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// Save the files the program writes under ./outputs/ (and figures it leaves open)
    /// into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// NATS server(s) of a running cordon; without it a pipeline runs in this process for
    /// the server's life.
    #[arg(long, value_name = "URL")]
    pub nats: Option<String>,
    /// Serve over Streamable HTTP on this loopback address (e.g. 127.0.0.1:8765; port 0: a
    /// free one, printed) instead of stdin/stdout.
    #[arg(long, value_name = "ADDRESS")]
    pub http: Option<String>,
    /// Trust level of every request the tools make; picks the limits they state.
    #[arg(long, default_value = "untrusted", value_parser = ["untrusted", "unknown", "trusted"])]
    pub trust: String,
    /// Whose code the tools run. external (the default): judged as code from anyone, since
    /// a model's code can be steered by what it reads; self: the assistant's own, whose
    /// findings the Assessor downgrades.
    #[arg(long, default_value = "external", value_parser = ["self", "external"])]
    pub origin: String,
}

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Open a session and print its id.
    New(SessionNewArgs),
    /// Close a session (its sandbox and everything in it are removed).
    Close {
        #[arg(value_name = "ID")]
        id: String,
        /// NATS server(s) of a running cordon.
        #[arg(long, value_name = "URL")]
        nats: String,
    },
    /// List this client's open sessions.
    List {
        /// NATS server(s) of a running cordon.
        #[arg(long, value_name = "URL")]
        nats: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct SessionNewArgs {
    /// How much the code's source is trusted; picks the session's limits.
    #[arg(long, default_value = "untrusted", value_parser = ["untrusted", "unknown", "trusted"])]
    pub trust: String,
    /// Sandbox image, by its short name in [sandbox.images].
    #[arg(long, value_name = "NAME")]
    pub image: Option<String>,
    /// Network: only none for sessions (the flag is accepted so a refusal is explicit).
    #[arg(long, value_parser = ["none", "allowlist"])]
    pub network: Option<String>,
    /// Close the session after this many idle seconds (at most the trust level's own).
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout: Option<u64>,
    /// Print the whole result of the opening as JSON.
    #[arg(long)]
    pub json: bool,
    /// NATS server(s) of a running cordon (a session lives in it, not in this command).
    #[arg(long, value_name = "URL")]
    pub nats: String,
}

#[derive(Debug, Subcommand)]
pub enum ImageCommand {
    /// Build a sandbox image from Debian's packages (debootstrap, then docker import).
    Build {
        /// Do nothing when the image is already present and built from today's recipe.
        #[arg(long)]
        if_missing: bool,
        /// Which image: default (python3, pip) or data (numpy, pandas, matplotlib, scipy...),
        /// built as the reference sandbox.image or sandbox.images.data names.
        #[arg(long, value_enum, default_value = "default")]
        flavor: crate::image::Flavor,
    },
    /// List the Python packages (name and version) an image holds, read in a sandbox.
    Inspect {
        /// A short name of [sandbox.images] (default, data...) or an image reference.
        #[arg(value_name = "NAME", default_value = "default")]
        name: String,
        /// Print {"image", "packages": [{"name", "version"}]} as JSON.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Recompute chain, Merkle tree, checkpoint signatures and blobs; exit non-zero naming the first bad entry.
    Verify {
        /// A signed checkpoint kept elsewhere: the log must be consistent with it.
        #[arg(long, value_name = "FILE")]
        checkpoint: Option<PathBuf>,
        /// The public key (note verifier text) checkpoints must be signed by; default: the log's.
        #[arg(long, value_name = "KEY")]
        key: Option<String>,
    },
    /// Print the latest signed checkpoint.
    Checkpoint,
    /// Print a proof that entry INDEX is in the tree of the latest checkpoint (JSON).
    Prove {
        #[arg(value_name = "INDEX")]
        index: u64,
    },
    /// Print a proof that the tree of OLD entries is a prefix of the tree of NEW (JSON).
    Consistency {
        #[arg(value_name = "OLD")]
        old: u64,
        #[arg(value_name = "NEW")]
        new: u64,
    },
    /// Print the public key checkpoints are signed with (note verifier format).
    Pubkey,
    /// Archive old segments (zstd) and delete the blobs only they name; needs the log unlocked.
    Compact {
        /// Age past which entries are archived: 90s, 15m, 2h, 30d; default: audit.retention_days.
        #[arg(long, value_name = "AGE")]
        older_than: Option<String>,
    },
    /// Print entries for people, one JSON object per line.
    Show {
        /// Only entries of this request.
        #[arg(long, value_name = "ID")]
        request: Option<String>,
        /// Only entries at or after TIME: Unix milliseconds, or an age such as 90s, 15m, 2h, 7d.
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
    },
}
