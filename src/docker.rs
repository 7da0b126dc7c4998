//! Docker helpers shared by the supervisor, the egress proxy, the image builder and the
//! doctor: the OCI runtimes a sandbox may run on (`runtime`), connecting to the local engine (with the API version negotiated, since the
//! engine refuses versions newer than its own), asking whether an image exists, reading
//! the host's capacity, fresh object names, forced removal and the labels cordon sets.
//! Nothing here panics on an answer from Docker.

pub mod runtime;
use bollard::container::AttachContainerResults;
use bollard::errors::Error as BollardError;
use bollard::models::ContainerCreateBody;
use bollard::query_parameters::{AttachContainerOptions, RemoveContainerOptions};
use bollard::Docker;

/// What to tell someone whose Docker engine cannot be reached.
const CONNECT_HINT: &str = "is the Docker daemon running (`systemctl status docker`) and is \
     /var/run/docker.sock (or $DOCKER_HOST) usable by this user (root, or a member of the \
     `docker` group)?";

#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    #[error("cannot reach the Docker engine: {source}; {CONNECT_HINT}")]
    Connect {
        #[source]
        source: BollardError,
    },
    #[error("cannot inspect image {image}: {source}")]
    InspectImage {
        image: String,
        #[source]
        source: BollardError,
    },
    #[error("cannot read `docker info`: {source}")]
    Info {
        #[source]
        source: BollardError,
    },
    #[error("`docker info` did not report {what}; is this a real Docker engine?")]
    InfoIncomplete { what: &'static str },
}

/// CPUs and memory of the machine Docker runs containers on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostCapacity {
    pub cpus: f64,
    pub memory_bytes: u64,
}

/// Connects to the local engine (`$DOCKER_HOST` or the default socket), negotiates the API
/// version and pings it, so a returned client is known to work.
pub async fn connect() -> Result<Docker, DockerError> {
    let fail = |source| DockerError::Connect { source };
    let docker = Docker::connect_with_defaults().map_err(fail)?;
    let docker = docker.negotiate_version().await.map_err(fail)?;
    docker.ping().await.map_err(fail)?;
    Ok(docker)
}

/// Whether `image` (a name:tag or an id) is present locally. Never pulls.
pub async fn image_exists(docker: &Docker, image: &str) -> Result<bool, DockerError> {
    match docker.inspect_image(image).await {
        Ok(_) => Ok(true),
        Err(e) if is_not_found(&e) => Ok(false),
        Err(source) => Err(DockerError::InspectImage {
            image: image.to_string(),
            source,
        }),
    }
}

/// `body` for a container cordon feeds on stdin and reads through [`attach_stdio`]: its
/// stdin stays open until the first attached client closes it; no TTY.
pub fn with_attached_stdio(body: ContainerCreateBody) -> ContainerCreateBody {
    ContainerCreateBody {
        attach_stdin: Some(true),
        attach_stdout: Some(true),
        attach_stderr: Some(true),
        open_stdin: Some(true),
        stdin_once: Some(true),
        tty: Some(false),
        ..body
    }
}

/// Attaches to a created container's stdin, stdout and stderr (streamed, no past logs):
/// how cordon feeds a sandbox its code and talks to its proxy.
pub async fn attach_stdio(
    docker: &Docker,
    container_id: &str,
) -> Result<AttachContainerResults, BollardError> {
    let options = AttachContainerOptions {
        stdin: true,
        stdout: true,
        stderr: true,
        stream: true,
        logs: false,
        detach_keys: None,
    };
    docker.attach_container(container_id, Some(options)).await
}

/// A fresh, unique Docker object name: `<prefix>-<request id, lowercased and
/// cleaned>-<random>`.
pub fn unique_name(prefix: &str, request_id: &str) -> String {
    let cleaned: String = request_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(NAME_ID_CHARS)
        .collect::<String>()
        .to_ascii_lowercase();
    let random = ulid::Ulid::new().random() & 0xffff_ffff_ffff;
    format!("{prefix}-{cleaned}-{random:012x}")
}

/// Kills and removes `container` (name or id) with its anonymous volumes. A container
/// that is already gone, or already being removed, counts as removed.
pub async fn force_remove(docker: &Docker, container: &str) -> Result<(), BollardError> {
    let options = RemoveContainerOptions {
        force: true,
        v: true,
        link: false,
    };
    match docker.remove_container(container, Some(options)).await {
        Err(e) if is_not_found(&e) || is_conflict(&e) => Ok(()),
        other => other,
    }
}

/// Longest request id kept in a Docker object name.
const NAME_ID_CHARS: usize = 40;

/// The host's CPUs and memory as `docker info` reports them.
pub async fn host_capacity(docker: &Docker) -> Result<HostCapacity, DockerError> {
    let info = docker
        .info()
        .await
        .map_err(|source| DockerError::Info { source })?;
    let cpus = info
        .ncpu
        .filter(|n| *n > 0)
        .ok_or(DockerError::InfoIncomplete { what: "NCPU" })?;
    let memory = info
        .mem_total
        .filter(|m| *m > 0)
        .ok_or(DockerError::InfoIncomplete { what: "MemTotal" })?;
    Ok(HostCapacity {
        cpus: cpus as f64,
        memory_bytes: memory as u64,
    })
}

/// Whether Docker answered "no such object" (HTTP 404).
pub fn is_not_found(error: &BollardError) -> bool {
    matches!(
        error,
        BollardError::DockerResponseServerError {
            status_code: 404,
            ..
        }
    )
}

/// Whether Docker answered "conflict" (HTTP 409), e.g. a removal already in progress.
pub fn is_conflict(error: &BollardError) -> bool {
    matches!(
        error,
        BollardError::DockerResponseServerError {
            status_code: 409,
            ..
        }
    )
}

/// Labels every sandbox carries: set by the supervisor, read by its reaper and by the
/// ResourceMonitor (which adopts running sandboxes after a restart from them).
pub mod labels {
    pub const MANAGED: &str = "cordon.managed";
    pub const REQUEST_ID: &str = "cordon.request_id";
    pub const HOST: &str = "cordon.host";
    /// The supervisor instance that made it, and the boot it ran in (see `owner`).
    pub const OWNER: &str = "cordon.owner";
    pub const BOOT: &str = "cordon.boot";
    /// The limits the ResourceMonitor enforces.
    pub const PIDS_LIMIT: &str = "cordon.limits.pids";
    pub const CPU_TIME_MS: &str = "cordon.limits.cpu_time_ms";
    /// The OCI runtime a sandbox runs on (`runc`, `runsc`): the monitor reads pids
    /// differently under runsc.
    pub const RUNTIME: &str = "cordon.runtime";
}

/// The sandboxes Docker has for `host_id` (only running ones if `running_only`).
pub async fn list_sandboxes(
    docker: &Docker,
    host_id: &str,
    running_only: bool,
) -> Result<Vec<bollard::models::ContainerSummary>, BollardError> {
    let filters = std::collections::HashMap::from([(
        "label".to_string(),
        vec![
            format!("{}=true", labels::MANAGED),
            format!("{}={host_id}", labels::HOST),
        ],
    )]);
    let options = bollard::query_parameters::ListContainersOptions {
        all: !running_only,
        filters: Some(filters),
        ..Default::default()
    };
    docker.list_containers(Some(options)).await
}
