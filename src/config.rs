//! Settings: `config/default.toml` (compiled in) overlaid by `--config FILE` and then by
//! `CORDON__SECTION__KEY` environment variables. Every actor reads its part from `Settings`.
//! A key cordon does not know (a typo'd section or key, in the file or the environment) is
//! an error naming the key and where it came from, never silently ignored.

use std::path::{Path, PathBuf};

use config::{Config, Environment, File, FileFormat};
use serde::Deserialize;

use crate::docker::runtime::SandboxRuntime;
use crate::protocol::assessor::TrustLevel;
use crate::protocol::subjects::is_valid_token;

/// The defaults, with a comment on every key.
pub const DEFAULT_TOML: &str = include_str!("../config/default.toml");
/// Prefix of environment overrides (`CORDON__NATS__URL`).
pub const ENV_PREFIX: &str = "CORDON";
/// Most copies JetStream keeps of a stream.
pub const MAX_REPLICAS: usize = 5;

#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub node: NodeSettings,
    pub nats: NatsSettings,
    pub limits: TrustLimits,
    pub caps: Caps,
    pub sessions: SessionSettings,
    pub runtime: RuntimeSettings,
    pub assessment: AssessmentSettings,
    /// The Assessor's weights, thresholds and known-threat signatures.
    pub security: ScoringSettings,
    pub scheduler: SchedulerSettings,
    pub sandbox: SandboxSettings,
    pub monitor: MonitorSettings,
    pub metrics: MetricsSettings,
    pub pool: PoolSettings,
    pub audit: AuditSettings,
    pub log: LogSettings,
    pub overrides: OverrideSettings,
    pub analysers: AnalyserSettings,
    /// Egress for `network: allowlist` requests (see `proxy`).
    pub network: NetworkSettings,
    /// The highest trust level each client may ask for.
    pub clients: ClientSettings,
}

/// The credentials of one connection. All empty: connect without authenticating (the
/// embedded dev server and the test harness).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Credentials {
    /// NATS user name; its password is read from `password_file`.
    #[serde(default)]
    pub user: String,
    /// File holding the user's password (first line; trailing white space dropped).
    #[serde(default)]
    pub password_file: String,
    /// A NATS `.creds` file (JWT and nkey seed), for operator-mode deployments.
    #[serde(default)]
    pub creds_file: String,
    /// File holding an nkey seed (`SU...`).
    #[serde(default)]
    pub nkey_seed_file: String,
}

/// `[security]`: how the Assessor scores findings and which known threats it blocks.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ScoringSettings {
    pub weights: Weights,
    pub thresholds: Thresholds,
    pub signatures: Signatures,
}

/// Score added per finding, by the finding's final severity.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Weights {
    pub low: u32,
    pub medium: u32,
    pub high: u32,
    pub blocked: u32,
}

/// Scores from which the level is raised to at least MEDIUM or HIGH; 0 turns one off.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Thresholds {
    pub medium_score: u32,
    pub high_score: u32,
}

/// Known threats: any match is BLOCKED. Set them before the policy is first used: the
/// matcher is built from them once per policy value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Signatures {
    /// SHA-256 (hex) of programs' normalised code (see `normalised_code_sha256`).
    #[serde(default)]
    pub code_sha256: Vec<String>,
    /// Strings whose presence anywhere in the program's text is a known indicator.
    #[serde(default)]
    pub ioc_strings: Vec<String>,
    /// Domains (and their subdomains) of known-hostile services.
    #[serde(default)]
    pub domains: Vec<String>,
    /// IP addresses of known-hostile hosts.
    #[serde(default)]
    pub ips: Vec<String>,
    /// Mining pool domains (a match is crypto-mining).
    #[serde(default)]
    pub mining_pools: Vec<String>,
}

impl ScoringSettings {
    /// Checks the signature lists; returns the first entry that cannot match anything.
    pub fn invalid_signature(&self) -> Option<String> {
        let bad_hash = |h: &&String| h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit());
        let too_short = |s: &&String| s.trim().len() < 2;
        let s = &self.signatures;
        s.code_sha256
            .iter()
            .find(bad_hash)
            .or_else(|| s.ioc_strings.iter().find(too_short))
            .or_else(|| s.domains.iter().chain(&s.mining_pools).find(too_short))
            .or_else(|| {
                s.ips
                    .iter()
                    .find(|ip| ip.parse::<std::net::IpAddr>().is_err())
            })
            .cloned()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct NodeSettings {
    pub host_id: String,
    pub data_dir: String,
    /// Where supervisors hold their owner locks (see `owner`). Empty: the default for
    /// this user (`owner::default_owner_dir`).
    #[serde(default)]
    pub owner_dir: String,
}

impl NodeSettings {
    /// The owner directory in force.
    pub fn owner_dir(&self) -> std::path::PathBuf {
        match self.owner_dir.as_str() {
            "" => crate::owner::default_owner_dir(),
            dir => std::path::PathBuf::from(dir),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct NatsSettings {
    pub url: String,
    /// Where `cordon up`'s embedded nats-server listens (`host:port`); empty: a free
    /// loopback port. `cordon up --listen` overrides it.
    pub listen: String,
    /// The embedded nats-server takes anyone (no users, no permissions); off by default:
    /// it is permissioned as deploy/nats/cordon.conf, with passwords in the data dir.
    pub embedded_open: bool,
    pub server_bin: String,
    pub max_payload_bytes: u64,
    pub submit_stream: String,
    pub assessed_stream: String,
    pub scheduled_stream: String,
    pub audit_stream: String,
    pub results_stream: String,
    pub events_stream: String,
    pub held_stream: String,
    pub override_stream: String,
    pub ack_wait_secs: u64,
    pub max_deliver: i64,
    pub duplicate_window_secs: u64,
    pub results_max_age_secs: u64,
    pub max_queued_messages: i64,
    /// Copies of every stream (and its consumers) across a NATS cluster, 1 to 5.
    pub replicas: usize,
    /// The client name this process submits under (`cordon.v1.exec.submit.<client>`).
    /// Empty: `auth.user`, else `anonymous`.
    #[serde(default)]
    pub client: String,
    /// Prefix of this connection's reply inboxes. Empty: `_INBOX_<user>` (or `_INBOX`).
    #[serde(default)]
    pub inbox_prefix: String,
    /// The credentials of this process's connections.
    #[serde(default)]
    pub auth: Credentials,
    /// Per-role credentials (`[nats.roles.audit]`), so each actor of `cordon up` or
    /// `cordon serve` connects as itself; a role not listed uses `auth`.
    #[serde(default)]
    pub roles: std::collections::BTreeMap<String, Credentials>,
}

impl NatsSettings {
    /// The credentials the actor `role` connects with.
    pub fn credentials_of(&self, role: &str) -> &Credentials {
        self.roles.get(role).unwrap_or(&self.auth)
    }

    /// The name requests are submitted under: `client`, else the NATS user, else
    /// `anonymous`.
    pub fn client_name(&self) -> String {
        if !self.client.is_empty() {
            self.client.clone()
        } else if !self.auth.user.is_empty() {
            self.auth.user.clone()
        } else {
            "anonymous".to_string()
        }
    }

    /// Checks what the server would refuse later, less clearly.
    fn check(&self) -> Result<(), ConfigError> {
        if (1..=MAX_REPLICAS).contains(&self.replicas) {
            return Ok(());
        }
        Err(ConfigError::Invalid {
            key: "nats.replicas",
            why: format!(
                "{} must be 1 to {MAX_REPLICAS} (JetStream keeps at most five copies)",
                self.replicas
            ),
        })
    }

    /// Fills `client` and checks it can stand in a subject.
    fn fill_client(&mut self) -> Result<(), ConfigError> {
        self.client = self.client_name();
        if is_valid_token(&self.client) {
            return Ok(());
        }
        Err(ConfigError::Invalid {
            key: "nats.client",
            why: format!("{:?} must be letters, digits, '-' or '_'", self.client),
        })
    }
}

/// Base limits of one trust level.
#[derive(Debug, Clone, Deserialize)]
pub struct LevelLimits {
    pub cpus: f64,
    pub memory_bytes: u64,
    pub pids: u64,
    pub timeout_ms: u64,
    pub cpu_time_ms: u64,
    /// Sessions at this level: CPU time over all cells, longest life, longest idle
    /// stretch, and how many one client may hold open at once (0: no sessions).
    pub session_cpu_time_ms: u64,
    pub session_lifetime_secs: u64,
    pub session_idle_secs: u64,
    pub sessions_per_client: u32,
}

/// The runtime policy (`supervisor::policy`): which events of a run's runtime record end it.
#[derive(Debug, Clone, Deserialize)]
pub struct RuntimeSettings {
    /// Globs (`*` within a segment, `**` across) of paths whose opening ends the run.
    pub secret_paths: Vec<String>,
    /// Library name prefixes whose loading through ctypes ends an untrusted run.
    pub forbidden_libraries: Vec<String>,
    /// A started command that downloads and runs a program ends the run.
    pub download_and_execute: bool,
}

/// Settings for sessions that hold for every trust level.
#[derive(Debug, Clone, Deserialize)]
pub struct SessionSettings {
    /// Most sessions open at once on one host.
    pub max_per_host: u32,
    /// How long a cell interrupted at its deadline has to stop before its session is
    /// killed, milliseconds.
    pub interrupt_grace_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TrustLimits {
    pub untrusted: LevelLimits,
    pub unknown: LevelLimits,
    pub trusted: LevelLimits,
}

impl TrustLimits {
    pub fn for_trust(&self, trust: TrustLevel) -> &LevelLimits {
        match trust {
            TrustLevel::Untrusted => &self.untrusted,
            TrustLevel::Unknown => &self.unknown,
            TrustLevel::Trusted => &self.trusted,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Caps {
    pub max_code_bytes: u64,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub tmpfs_bytes: u64,
    pub nofile: u64,
    pub fsize_bytes: u64,
    /// Files and stdin one request may carry, bytes in all.
    pub max_input_bytes: u64,
    /// Output files (and figures) returned per request, and the size of each.
    pub max_output_files: u32,
    pub max_output_file_bytes: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AssessmentSettings {
    pub medium_factor: f64,
    pub high_factor: f64,
    pub memory_per_code_byte: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SchedulerSettings {
    pub reserve_cpus: f64,
    pub reserve_memory_bytes: u64,
    pub max_jobs: u32,
    pub min_cpus: f64,
    pub min_memory_bytes: u64,
    pub hold_retry_ms: u64,
    pub host_stale_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SandboxSettings {
    /// The image of a request that names none, and the only one the warm pool serves.
    pub image: String,
    /// The images a request may name, by short name (`default` is always `image`).
    #[serde(default)]
    pub images: std::collections::BTreeMap<String, String>,
    /// The OCI runtime of every trust level `runtimes` does not name.
    pub runtime: SandboxRuntime,
    /// A runtime per trust level, for example gVisor for `untrusted` only.
    #[serde(default)]
    pub runtimes: TrustRuntimes,
    /// `auto`: a uid (and gid) of its own per sandbox from `uid_first`/`uid_count`; or a
    /// fixed `uid:gid` shared by every sandbox.
    pub user: String,
    pub uid_first: u32,
    pub uid_count: u32,
    pub workdir: String,
    pub debian_suite: String,
    pub debian_mirror: String,
    /// Read each sandbox's `docker diff` before removing it, for the audit log.
    pub record_fs_changes: bool,
}

/// The short name that always means `sandbox.image`.
pub const DEFAULT_IMAGE_NAME: &str = "default";

/// `[sandbox.runtimes]`: the trust levels that run on another runtime than
/// `sandbox.runtime`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TrustRuntimes {
    #[serde(default)]
    pub untrusted: Option<SandboxRuntime>,
    #[serde(default)]
    pub unknown: Option<SandboxRuntime>,
    #[serde(default)]
    pub trusted: Option<SandboxRuntime>,
}

impl SandboxSettings {
    /// The runtime sandboxes of `trust` run on.
    pub fn runtime_for(&self, trust: TrustLevel) -> SandboxRuntime {
        let named = match trust {
            TrustLevel::Untrusted => self.runtimes.untrusted,
            TrustLevel::Unknown => self.runtimes.unknown,
            TrustLevel::Trusted => self.runtimes.trusted,
        };
        named.unwrap_or(self.runtime)
    }

    /// Every runtime some trust level runs on, each once (for the checks at start).
    pub fn runtimes_in_use(&self) -> Vec<SandboxRuntime> {
        let mut used: Vec<SandboxRuntime> = Vec::new();
        for runtime in TrustLevel::ALL.map(|trust| self.runtime_for(trust)) {
            if !used.contains(&runtime) {
                used.push(runtime);
            }
        }
        used
    }

    /// runsc is registered with `--network=none`: a trust level on it cannot be given the
    /// allowlist network, so the two settings must not meet.
    fn check_network_runtimes(&self, network: &NetworkSettings) -> Result<(), ConfigError> {
        let on_runsc = network
            .allowed_trust
            .iter()
            .find(|trust| self.runtime_for(**trust) == SandboxRuntime::Runsc);
        match on_runsc {
            None => Ok(()),
            Some(trust) => Err(ConfigError::Invalid {
                key: "network.allowed_trust",
                why: format!(
                    "{} runs on runsc, which has no network stack (it is registered with \
                     --network=none): remove it from network.allowed_trust or run it on runc",
                    trust.as_str()
                ),
            }),
        }
    }
    /// The image reference a request's short name stands for; `None` for a name the
    /// allowlist does not have. A request naming none gets `image`.
    pub fn image_named(&self, name: Option<&str>) -> Option<&str> {
        match name {
            None | Some(DEFAULT_IMAGE_NAME) => Some(&self.image),
            Some(name) => self.images.get(name).map(String::as_str),
        }
    }

    /// Fills `images.default` from `image`, drops names given an empty reference, and
    /// checks the rest: a name must be a subject token, and `default` nothing but `image`.
    fn fill_images(&mut self) -> Result<(), ConfigError> {
        let invalid = |why: String| ConfigError::Invalid {
            key: "sandbox.images",
            why,
        };
        let default = self
            .images
            .entry(DEFAULT_IMAGE_NAME.to_string())
            .or_default();
        if default.is_empty() {
            default.clone_from(&self.image);
        } else if *default != self.image {
            return Err(invalid(format!(
                "default = {default:?} differs from sandbox.image = {:?}: the default image \
                 is set by sandbox.image alone (leave default empty)",
                self.image
            )));
        }
        // An empty reference withdraws a name the defaults offer.
        self.images
            .retain(|_, reference| !reference.trim().is_empty());
        match self.images.keys().find(|name| !is_valid_token(name)) {
            Some(name) => Err(invalid(format!(
                "{name:?} must be letters, digits, '-' or '_'"
            ))),
            None => Ok(()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct MonitorSettings {
    pub sample_ms: u64,
    pub cgroup_sample_ms: u64,
    /// At least how often a gVisor sandbox's process count is asked of its Sentry (also
    /// whenever its host task count changes).
    pub runsc_sample_ms: u64,
}

/// Warm sandboxes kept ready per trust level (see `supervisor::pool`).
#[derive(Debug, Clone, Deserialize)]
pub struct PoolSettings {
    pub untrusted: u32,
    pub unknown: u32,
    pub trusted: u32,
}

impl PoolSettings {
    /// How many warm sandboxes to keep for jobs and sessions of `trust`.
    pub fn size_for(&self, trust: TrustLevel) -> u32 {
        match trust {
            TrustLevel::Untrusted => self.untrusted,
            TrustLevel::Unknown => self.unknown,
            TrustLevel::Trusted => self.trusted,
        }
    }

    /// No warm sandboxes at all (one-shot pipelines such as `cordon exec`).
    pub fn disabled() -> PoolSettings {
        PoolSettings {
            untrusted: 0,
            unknown: 0,
            trusted: 0,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct MetricsSettings {
    pub listen: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AuditSettings {
    pub origin: String,
    pub checkpoint_interval_ms: u64,
    pub segment_bytes: u64,
    /// Segments whose entries are all older than this many days are archived (zstd) and
    /// the blobs only they name deleted; 0 keeps everything as it is.
    pub retention_days: u64,
    /// How often the AuditChain runs retention, seconds.
    pub compact_interval_secs: u64,
}

impl AuditSettings {
    /// The time (ms since the epoch) before which entries are past retention, as of
    /// `now_ms`; `None` when retention is off.
    pub fn retention_cutoff(&self, now_ms: u64) -> Option<u64> {
        (self.retention_days > 0)
            .then(|| now_ms.saturating_sub(self.retention_days.saturating_mul(86_400_000)))
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    pub format: String,
    pub filter: String,
}

/// Who may override a BLOCKED request, and for how long a grant may be valid.
#[derive(Debug, Clone, Deserialize)]
pub struct OverrideSettings {
    /// Base64 Ed25519 public keys (`cordon keygen` prints one) whose grants are accepted.
    pub operator_keys: Vec<String>,
    /// Longest validity of one grant, seconds.
    pub max_grant_ttl_secs: u64,
    /// Clock difference tolerated on a grant's issue time, seconds.
    pub clock_skew_secs: u64,
}

/// Optional external analysers (see `assessor::report::external`).
#[derive(Debug, Clone, Deserialize)]
pub struct AnalyserSettings {
    pub bandit: bool,
    pub bandit_bin: String,
    pub semgrep: bool,
    pub semgrep_bin: String,
    /// Local rules directory for Semgrep (it is never sent to the registry).
    pub semgrep_rules: String,
    /// Time budget shared by the external analysers of one program, milliseconds.
    pub budget_ms: u64,
}

impl Default for AnalyserSettings {
    fn default() -> Self {
        AnalyserSettings {
            bandit: false,
            bandit_bin: "bandit".into(),
            semgrep: false,
            semgrep_bin: "semgrep".into(),
            semgrep_rules: String::new(),
            budget_ms: 5000,
        }
    }
}

/// The highest trust level each client may ask for. The client is the `<client>` of the
/// submit subject, which a permissioned bus (deploy/nats) lets only that user publish on.
#[derive(Debug, Clone, Deserialize)]
pub struct ClientSettings {
    /// The ceiling of a client not named in `trust`.
    pub max_trust: TrustLevel,
    /// Ceilings by client name.
    #[serde(default)]
    pub trust: std::collections::BTreeMap<String, TrustLevel>,
}

impl ClientSettings {
    pub fn max_trust_of(&self, client: &str) -> TrustLevel {
        self.trust.get(client).copied().unwrap_or(self.max_trust)
    }
}

/// Who may ask for `network: allowlist`, where it may go, and how much it may move.
#[derive(Debug, Clone, Deserialize)]
pub struct NetworkSettings {
    /// Trust levels whose requests may ask for `allowlist`; others are rejected.
    pub allowed_trust: Vec<TrustLevel>,
    /// Host names the proxy lets requests reach (exact, case-insensitive).
    pub allowlist: Vec<String>,
    /// `name=address` entries answered without DNS; the only way to a private address.
    pub resolve: Vec<String>,
    /// Code assessed at this level or above gets no network even if it asked.
    pub force_none_at: crate::protocol::assessor::Level,
    /// Bytes relayed per request over all its connections.
    pub max_bytes: u64,
    /// Connection attempts per request.
    pub max_connections: u32,
    /// Port the proxy listens on inside its container.
    pub proxy_port: u16,
    /// Docker network the proxy container reaches the outside through.
    pub upstream_network: String,
    /// Image holding cordon at /usr/local/bin/cordon to run the proxy from; empty: the
    /// sandbox image with the supervisor's own binary bind-mounted (it must then run on
    /// the Docker host itself).
    #[serde(default)]
    pub proxy_image: String,
    /// IPv4 range the per-request internal networks are cut from (/28 each).
    pub subnet_pool: String,
    /// The package index (PEP 503 simple API) a request's `packages` come from, through
    /// the proxy: its host must be on the allowlist.
    pub package_index: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read settings: {0}")]
    Load(#[from] config::ConfigError),
    #[error("cannot read the built-in settings: {0}")]
    Defaults(#[from] toml::de::Error),
    #[error("setting {key} is invalid: {why}")]
    Invalid { key: &'static str, why: String },
    #[error("{}; config/default.toml lists every setting", describe_unknown(.0))]
    UnknownKeys(Vec<UnknownKey>),
}

/// A key no setting has, and where it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// Dotted path, e.g. `limits.trusted.cpu`.
    pub key: String,
    /// `in the settings file PATH` or `from the environment variable CORDON__...`.
    pub origin: String,
}

fn describe_unknown(keys: &[UnknownKey]) -> String {
    let each: Vec<String> = keys
        .iter()
        .map(|k| format!("unknown setting `{}` {}", k.key, k.origin))
        .collect();
    each.join("; ")
}

/// Whether any `CORDON__*` variable is set (one may override a setting).
fn environment_sets_any() -> bool {
    let prefix = format!("{ENV_PREFIX}__");
    std::env::vars_os().any(|(name, _)| {
        name.to_str()
            .is_some_and(|n| n.to_ascii_uppercase().starts_with(&prefix))
    })
}

/// The environment variable that sets the dotted `key`.
fn env_var_of(key: &str) -> String {
    format!("{ENV_PREFIX}__{}", key.replace('.', "__").to_uppercase())
}

/// Where an unknown `key` came from: the environment variables that set it or something
/// under it (`CORDON__LIMITZ__TRUSTED__CPUS` for `limitz`), else the file.
fn origin_of(key: &str, file: Option<&Path>) -> String {
    let variable = env_var_of(key);
    let nested = format!("{variable}__");
    let set: Vec<String> = std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| {
            let name = name.to_uppercase();
            name == variable || name.starts_with(&nested)
        })
        .collect();
    match (set.as_slice(), file) {
        ([], Some(path)) => format!("in the settings file {}", path.display()),
        ([], None) => format!("from the environment ({variable})"),
        ([one], _) => format!("from the environment variable {one}"),
        (several, _) => format!("from the environment variables {}", several.join(", ")),
    }
}

impl Settings {
    /// Loads the defaults, then `file` if given, then the environment.
    pub fn load(file: Option<&Path>) -> Result<Settings, ConfigError> {
        if file.is_none() && !environment_sets_any() {
            return Self::defaults();
        }
        Self::merged(file)
    }

    /// The defaults, then `file` if given, then the environment, merged key by key.
    fn merged(file: Option<&Path>) -> Result<Settings, ConfigError> {
        let mut builder =
            Config::builder().add_source(File::from_str(DEFAULT_TOML, FileFormat::Toml));
        if let Some(path) = file {
            builder = builder.add_source(File::from(path).format(FileFormat::Toml).required(true));
        }
        let env = Environment::with_prefix(ENV_PREFIX)
            .prefix_separator("__")
            .separator("__")
            .try_parsing(true)
            .list_separator(",")
            .with_list_parse_key("overrides.operator_keys")
            .with_list_parse_key("network.allowed_trust")
            .with_list_parse_key("network.allowlist")
            .with_list_parse_key("network.resolve");
        let merged = builder.add_source(env).build()?;
        let mut unknown = Vec::new();
        let mut settings: Settings =
            serde_ignored::deserialize(merged, |path| unknown.push(path.to_string()))?;
        if !unknown.is_empty() {
            let keys = unknown
                .into_iter()
                .map(|key| UnknownKey {
                    origin: origin_of(&key, file),
                    key,
                })
                .collect();
            return Err(ConfigError::UnknownKeys(keys));
        }
        settings.fill_derived()?;
        Ok(settings)
    }

    /// The built-in settings, read straight from `config/default.toml`: what `load` gives
    /// when no file or variable overrides anything, without the merging (which cost more
    /// than a one-file `cordon assess`). A test holds the two equal.
    fn defaults() -> Result<Settings, ConfigError> {
        let mut settings: Settings = toml::from_str(DEFAULT_TOML)?;
        settings.fill_derived()?;
        Ok(settings)
    }

    /// Fills the values whose default depends on the machine, and checks them.
    fn fill_derived(&mut self) -> Result<(), ConfigError> {
        if self.node.host_id.is_empty() {
            self.node.host_id = sanitized_hostname();
        }
        if !is_valid_token(&self.node.host_id) {
            return Err(ConfigError::Invalid {
                key: "node.host_id",
                why: format!(
                    "{:?} must be letters, digits, '-' or '_'",
                    self.node.host_id
                ),
            });
        }
        self.nats.fill_client()?;
        self.nats.check()?;
        self.sandbox.fill_images()?;
        self.sandbox.check_network_runtimes(&self.network)?;
        if self.audit.origin.is_empty() {
            self.audit.origin = format!("cordon/{}/audit", self.node.host_id);
        }
        if self.audit.origin.contains('+') || self.audit.origin.contains(char::is_whitespace) {
            return Err(ConfigError::Invalid {
                key: "audit.origin",
                why: format!("{:?} must not hold '+' or white space", self.audit.origin),
            });
        }
        if let Some(bad) = self.security.invalid_signature() {
            return Err(ConfigError::Invalid {
                key: "security.signatures",
                why: format!("{bad:?} is not a usable signature"),
            });
        }
        if self.node.data_dir.is_empty() {
            self.node.data_dir = default_data_dir().to_string_lossy().into_owned();
        }
        Ok(())
    }

    pub fn data_dir(&self) -> PathBuf {
        PathBuf::from(&self.node.data_dir)
    }
}

fn sanitized_hostname() -> String {
    let raw = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "localhost".into());
    let cleaned: String = raw
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "localhost".into()
    } else {
        cleaned
    }
}

fn default_data_dir() -> PathBuf {
    if let Some(xdg) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(xdg).join("cordon");
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(home) => PathBuf::from(home).join(".local/share/cordon"),
        None => PathBuf::from("/var/lib/cordon"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_read_directly_are_the_merged_defaults() {
        // `load` skips the merging when nothing overrides the defaults: same settings.
        let direct = Settings::defaults().unwrap();
        let merged = Settings::merged(None).unwrap();
        assert_eq!(format!("{direct:?}"), format!("{merged:?}"));
    }

    #[test]
    fn the_compiled_in_defaults_load() {
        let settings = Settings::load(None).expect("defaults load");
        assert_eq!(settings.limits.trusted.cpus, 2.0);
        assert_eq!(settings.limits.trusted.memory_bytes, 1 << 30);
        assert_eq!(settings.limits.trusted.timeout_ms, 120_000);
        assert!(settings.limits.untrusted.cpus < settings.limits.trusted.cpus);
        assert!(is_valid_token(&settings.node.host_id));
        assert!(!settings.node.data_dir.is_empty());
    }

    #[test]
    fn a_file_overrides_only_the_keys_it_sets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(
            &path,
            "[limits.untrusted]\npids = 7\n[node]\nhost_id = \"h1\"\n",
        )
        .unwrap();
        let settings = Settings::load(Some(&path)).unwrap();
        assert_eq!(settings.limits.untrusted.pids, 7);
        assert_eq!(settings.limits.untrusted.timeout_ms, 10_000);
        assert_eq!(settings.node.host_id, "h1");
    }

    #[test]
    fn a_host_id_with_subject_syntax_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[node]\nhost_id = \"a.b\"\n").unwrap();
        let err = Settings::load(Some(&path)).unwrap_err();
        assert!(err.to_string().contains("node.host_id"), "{err}");
    }

    fn load_toml(text: &str) -> Result<Settings, ConfigError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, text).unwrap();
        Settings::load(Some(&path))
    }

    #[test]
    fn a_runtime_is_chosen_per_trust_level_and_runsc_levels_get_no_network() {
        let defaults = Settings::load(None).unwrap().sandbox;
        assert_eq!(defaults.runtimes_in_use(), [SandboxRuntime::Runc]);
        let split = load_toml("[sandbox.runtimes]\nuntrusted = \"runsc\"\n").unwrap();
        let sandbox = &split.sandbox;
        assert_eq!(
            sandbox.runtime_for(TrustLevel::Untrusted),
            SandboxRuntime::Runsc
        );
        assert_eq!(
            sandbox.runtime_for(TrustLevel::Trusted),
            SandboxRuntime::Runc
        );
        assert_eq!(sandbox.runtimes_in_use().len(), 2);
        let clash = load_toml("[sandbox]\nruntime = \"runsc\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            clash.contains("network.allowed_trust") && clash.contains("runsc"),
            "{clash}"
        );
        let unknown = load_toml("[sandbox]\nruntime = \"crun\"\n")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("crun"), "{unknown}");
    }

    #[test]
    fn a_misspelt_section_is_refused_naming_it_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[limitz.trusted]\ncpus = 1\n").unwrap();
        let err = Settings::load(Some(&path)).unwrap_err().to_string();
        assert!(err.contains("`limitz`"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
    }

    #[test]
    fn a_misspelt_key_is_refused_naming_its_whole_path_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        let text = "[limits.trusted]\ncpu = 1\n[nats.auth]\nusr = \"x\"\n";
        std::fs::write(&path, text).unwrap();
        let err = Settings::load(Some(&path)).unwrap_err();
        let ConfigError::UnknownKeys(keys) = &err else {
            panic!("not an unknown-key error: {err}");
        };
        let mut named: Vec<&str> = keys.iter().map(|k| k.key.as_str()).collect();
        named.sort();
        assert_eq!(named, ["limits.trusted.cpu", "nats.auth.usr"], "{err}");
        assert!(keys.iter().all(|k| k.origin.contains("c.toml")), "{err}");
    }

    #[test]
    fn free_form_tables_take_any_name() {
        let text = "[clients.trust]\nalice = \"trusted\"\n\
                    [nats.roles.audit]\nuser = \"audit\"\npassword_file = \"/a\"\n";
        let settings = load_toml(text).unwrap();
        assert_eq!(settings.clients.max_trust_of("alice"), TrustLevel::Trusted);
    }

    /// Every setting of `config/default.toml`, as (section, key) with the key's last part.
    fn default_keys() -> Vec<(String, String)> {
        fn walk(prefix: &str, table: config::Map<String, config::Value>, out: &mut Vec<String>) {
            for (key, value) in table {
                let path = format!("{prefix}{key}");
                match value.clone().into_table() {
                    Ok(inner) if !inner.is_empty() => walk(&format!("{path}."), inner, out),
                    _ => out.push(path),
                }
            }
        }
        let defaults = Config::builder()
            .add_source(File::from_str(DEFAULT_TOML, FileFormat::Toml))
            .build()
            .unwrap();
        let mut paths = Vec::new();
        let table: config::Map<String, config::Value> = defaults.try_deserialize().unwrap();
        walk("", table, &mut paths);
        paths
            .iter()
            .map(|path| {
                let section = path.split('.').next().unwrap_or_default();
                let key = path.rsplit('.').next().unwrap_or_default();
                (section.to_string(), key.to_string())
            })
            .collect()
    }

    #[test]
    fn the_readme_settings_table_names_every_key_in_its_own_section() {
        let readme = include_str!("../README.md");
        let rows: Vec<&str> = readme.lines().filter(|l| l.starts_with("| `")).collect();
        let keys = default_keys();
        assert!(keys.len() > 50, "{keys:?}");
        for (section, key) in keys {
            let row = rows.iter().find(|row| {
                let first = row.split('|').nth(1).unwrap_or_default().trim();
                first == format!("`{section}`") || first.starts_with(&format!("`{section}."))
            });
            let row = row.unwrap_or_else(|| panic!("README has no row for section {section}"));
            assert!(
                row.contains(&format!("`{key}`")),
                "README's row of {section} does not name `{key}`"
            );
        }
    }

    #[test]
    fn images_are_named_by_short_names_and_default_is_always_the_sandbox_image() {
        let settings = Settings::load(None).unwrap().sandbox;
        assert_eq!(settings.image_named(None), Some("cordon-python:3.11"));
        assert_eq!(
            settings.image_named(Some("default")),
            Some("cordon-python:3.11")
        );
        assert_eq!(
            settings.image_named(Some("data")),
            Some("cordon-python-data:3.11")
        );
        assert_eq!(settings.image_named(Some("gpu")), None);
        let moved = load_toml("[sandbox]\nimage = \"mine:1\"\n")
            .unwrap()
            .sandbox;
        assert_eq!(moved.image_named(Some("default")), Some("mine:1"));
        assert_eq!(moved.images["default"], "mine:1");
        let clash = load_toml("[sandbox.images]\ndefault = \"other:1\"\n").unwrap_err();
        assert!(clash.to_string().contains("sandbox.images"), "{clash}");
        let withdrawn = load_toml("[sandbox.images]\ndata = \"\"\n")
            .unwrap()
            .sandbox;
        assert_eq!(withdrawn.image_named(Some("data")), None);
        let bad_name = load_toml("[sandbox.images]\n\"a.b\" = \"x:1\"\n").unwrap_err();
        assert!(bad_name.to_string().contains("\"a.b\""), "{bad_name}");
    }

    #[test]
    fn stream_replicas_are_one_by_default_and_one_to_five() {
        assert_eq!(Settings::load(None).unwrap().nats.replicas, 1);
        assert_eq!(
            load_toml("[nats]\nreplicas = 3\n").unwrap().nats.replicas,
            3
        );
        for bad in [0, 6] {
            let err = load_toml(&format!("[nats]\nreplicas = {bad}\n")).unwrap_err();
            assert!(err.to_string().contains("nats.replicas"), "{err}");
        }
    }

    #[test]
    fn an_environment_variable_is_named_by_its_own_spelling() {
        assert_eq!(
            env_var_of("limitz.trusted.cpus"),
            "CORDON__LIMITZ__TRUSTED__CPUS"
        );
    }

    #[test]
    fn the_client_name_is_the_nats_user_else_anonymous() {
        let settings = Settings::load(None).unwrap();
        assert_eq!(settings.nats.client, "anonymous");
        assert!(settings.nats.auth.is_empty());
        let alice = load_toml("[nats.auth]\nuser = \"alice\"\npassword_file = \"/p\"\n").unwrap();
        assert_eq!(alice.nats.client, "alice");
        let named = load_toml("[nats]\nclient = \"ci-runner\"\n").unwrap();
        assert_eq!(named.nats.client, "ci-runner");
        let err = load_toml("[nats]\nclient = \"a.>\"\n").unwrap_err();
        assert!(err.to_string().contains("nats.client"), "{err}");
    }

    #[test]
    fn each_role_has_its_own_credentials_or_the_common_ones() {
        let text = "[nats.auth]\nuser = \"node\"\npassword_file = \"/n\"\n\
                    [nats.roles.audit]\nuser = \"audit\"\npassword_file = \"/a\"\n";
        let settings = load_toml(text).unwrap();
        assert_eq!(settings.nats.credentials_of("audit").user, "audit");
        assert_eq!(settings.nats.credentials_of("audit").password_file, "/a");
        assert_eq!(settings.nats.credentials_of("scheduler").user, "node");
    }
}
