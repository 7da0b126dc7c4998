//! `cordon image build`: makes a sandbox image from Debian's own packages, with no
//! registry involved. debootstrap (minbase + the flavor's packages) into a temporary
//! directory, purge what only building needed, strip what a sandbox does not need (apt
//! caches, setuid/setgid bits), import the tree into Docker under a temporary tag, check
//! that it runs the flavor's smoke test in a real sandbox, and only then move the target
//! name onto it. The temporary directory and tag are removed on every path.
//!
//! - `flavor`: the recipes (default: python3 + pip; data: numpy, pandas, matplotlib...).
//! - `probe`: a short program in a hardened sandbox of an image (smoke test, inspect).
//! - `inspect`: the Python packages an image holds (`cordon image inspect`).

mod flavor;
mod inspect;
pub(crate) mod probe;

use std::ffi::OsString;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use bollard::errors::Error as BollardError;
use bollard::query_parameters::{CreateImageOptions, RemoveImageOptions, TagImageOptions};
use bollard::Docker;
use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::config::SandboxSettings;
use crate::docker::{self, DockerError};

pub use flavor::{Flavor, PURGED_LABEL, RECIPE_LABEL};
pub use inspect::{inspect, InspectError, Inspection, Package};

/// Whether `image` exists and was built from `flavor`'s current recipe.
pub async fn is_current(docker: &Docker, image: &str, flavor: Flavor) -> bool {
    let Ok(inspected) = docker.inspect_image(image).await else {
        return false;
    };
    let config = inspected.config.unwrap_or_default();
    let labels = config.labels.unwrap_or_default();
    flavor.matches(&labels, &config.env.unwrap_or_default())
}

/// The image `flavor` is built as: its short name's entry of `[sandbox.images]` (the
/// default flavor: `sandbox.image`), else the name it has out of the box.
pub fn target_of(settings: &SandboxSettings, flavor: Flavor) -> String {
    let fallback = match flavor {
        Flavor::Default => settings.image.as_str(),
        Flavor::Data => DATA_IMAGE,
    };
    settings
        .image_named(Some(flavor.name()))
        .unwrap_or(fallback)
        .to_string()
}

/// The data image's name when `[sandbox.images]` has no `data`.
const DATA_IMAGE: &str = "cordon-python-data:3.11";
/// Where the build tree goes: disk-backed, unlike a tmpfs /tmp.
const BUILD_PARENT: &str = "/var/tmp";
/// Directories emptied in the image: apt's downloaded packages and indexes.
const APT_CACHES: [&str; 2] = ["var/cache/apt", "var/lib/apt/lists"];
/// Lines of debootstrap output kept for the error message.
const OUTPUT_TAIL_LINES: usize = 15;
/// Import can take a while for a ~700 MB tree (the data image) on a slow disk.
const IMPORT_TIMEOUT_SECS: u64 = 900;

#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    // The machine.
    #[error("`cordon image build` must run as root (debootstrap creates root-owned files and device nodes): run it with sudo")]
    NotRoot,
    #[error("debootstrap is not installed: install it with `sudo apt-get install -y debootstrap`")]
    DebootstrapMissing,
    #[error(transparent)]
    Docker(#[from] DockerError),

    // The build.
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("debootstrap of Debian {suite} failed ({status}); its last lines:\n{tail}")]
    Debootstrap {
        suite: String,
        status: String,
        tail: String,
    },
    #[error("purging the build-only packages failed ({status}); dpkg's last lines:\n{tail}")]
    Purge { status: String, tail: String },
    #[error("tar of the image tree failed ({status})")]
    Tar { status: String },

    // Docker's side.
    #[error("docker could not import the tree as {image}: {source}")]
    Import {
        image: String,
        #[source]
        source: BollardError,
    },
    #[error("the new image {image} does not pass its smoke test: {why}")]
    Broken { image: String, why: String },
    #[error("cannot tag the new image as {image}: {source}")]
    Tag {
        image: String,
        #[source]
        source: BollardError,
    },
}

/// Builds the image of `flavor` (`target_of`), reporting each step through `progress`.
pub async fn build(
    settings: &SandboxSettings,
    flavor: Flavor,
    mut progress: impl FnMut(&str),
) -> Result<(), ImageError> {
    ensure_root()?;
    let debootstrap = find_debootstrap()?;
    progress("checking Docker");
    let docker = docker::connect().await?;
    let target = target_of(settings, flavor);
    let tree = BuildTree::create()?;
    run_debootstrap(&debootstrap, settings, flavor, tree.root(), &mut progress).await?;
    purge(tree.root(), flavor.purged(), &mut progress).await?;
    strip(tree.root(), &mut progress)?;
    let staging = staging_tag(&target);
    import(&docker, tree.root(), (&staging, flavor), &mut progress).await?;
    drop(tree);
    let promoted = check_and_promote(
        &docker,
        settings,
        (&staging, &target, flavor),
        &mut progress,
    )
    .await;
    untag(&docker, &staging).await;
    promoted?;
    progress(&format!("built {target}"));
    Ok(())
}

fn ensure_root() -> Result<(), ImageError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    match unsafe { libc::geteuid() } {
        0 => Ok(()),
        _ => Err(ImageError::NotRoot),
    }
}

/// debootstrap on PATH, or in the sbin directories a non-root PATH often lacks.
fn find_debootstrap() -> Result<PathBuf, ImageError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = std::env::split_paths(&path).collect();
    dirs.extend(["/usr/sbin", "/sbin"].map(PathBuf::from));
    dirs.into_iter()
        .map(|dir| dir.join("debootstrap"))
        .find(|candidate| candidate.is_file())
        .ok_or(ImageError::DebootstrapMissing)
}

async fn run_debootstrap(
    debootstrap: &Path,
    settings: &SandboxSettings,
    flavor: Flavor,
    root: &Path,
    progress: &mut impl FnMut(&str),
) -> Result<(), ImageError> {
    progress(&format!(
        "debootstrap: Debian {} with {} (takes a few minutes)",
        settings.debian_suite,
        flavor.packages()
    ));
    let mut args: Vec<OsString> = vec![
        "--variant=minbase".into(),
        format!("--include={}", flavor.packages()).into(),
        settings.debian_suite.clone().into(),
        root.into(),
    ];
    if !settings.debian_mirror.is_empty() {
        args.push(settings.debian_mirror.clone().into());
    }
    let mut child = Command::new(debootstrap)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| io_error("run", debootstrap, source))?;
    let tail = relay_output(&mut child, progress).await;
    let status = child
        .wait()
        .await
        .map_err(|source| io_error("wait for", debootstrap, source))?;
    if status.success() {
        return Ok(());
    }
    Err(ImageError::Debootstrap {
        suite: settings.debian_suite.clone(),
        status: status.to_string(),
        tail: tail.join("\n"),
    })
}

/// `chroot root dpkg --purge --force-depends PACKAGES`: removes packages only building
/// needed, although what was built still names them as dependencies (the image never
/// runs apt). A package that is not installed is skipped by dpkg.
async fn purge(
    root: &Path,
    packages: &str,
    progress: &mut impl FnMut(&str),
) -> Result<(), ImageError> {
    if packages.is_empty() {
        return Ok(());
    }
    progress(&format!("purging build-only packages: {packages}"));
    let mut child = Command::new("chroot")
        .arg(root)
        .args(["dpkg", "--purge", "--force-depends"])
        .args(packages.split(','))
        .env_clear()
        .env("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| io_error("run chroot dpkg in", root, source))?;
    let tail = relay_output(&mut child, progress).await;
    let status = child
        .wait()
        .await
        .map_err(|source| io_error("wait for dpkg in", root, source))?;
    if status.success() {
        return Ok(());
    }
    Err(ImageError::Purge {
        status: status.to_string(),
        tail: tail.join("\n"),
    })
}

/// Passes each line the child prints to `progress`; returns the last few.
async fn relay_output(child: &mut Child, progress: &mut impl FnMut(&str)) -> Vec<String> {
    let mut stdout = child.stdout.take().map(line_stream);
    let mut stderr = child.stderr.take().map(line_stream);
    let mut tail = Vec::new();
    loop {
        let line = tokio::select! {
            Some(line) = next_line(&mut stdout) => line,
            Some(line) = next_line(&mut stderr) => line,
            else => break,
        };
        progress(&format!("  {line}"));
        tail.push(line);
        if tail.len() > OUTPUT_TAIL_LINES {
            tail.remove(0);
        }
    }
    tail
}

type Lines = std::pin::Pin<Box<dyn Stream<Item = String> + Send>>;

/// Lines of a child's output, decoded lossily (a package name is not guaranteed UTF-8).
fn line_stream(reader: impl AsyncRead + Send + Unpin + 'static) -> Lines {
    let split = BufReader::new(reader).split(b'\n');
    futures::stream::unfold(split, |mut split| async move {
        let segment = split.next_segment().await.ok()??;
        Some((String::from_utf8_lossy(&segment).into_owned(), split))
    })
    .boxed()
}

/// The next line of `lines`; `None` (and `lines` emptied) at its end.
async fn next_line(lines: &mut Option<Lines>) -> Option<String> {
    let line = lines.as_mut()?.next().await;
    if line.is_none() {
        *lines = None;
    }
    line
}

/// Removes apt's caches and clears every setuid/setgid bit, as defence in depth: the
/// sandbox already runs with no-new-privileges and no capabilities.
fn strip(root: &Path, progress: &mut impl FnMut(&str)) -> Result<(), ImageError> {
    progress("stripping apt caches");
    for cache in APT_CACHES {
        empty_dir(&root.join(cache))?;
    }
    let cleared = clear_setid_bits(root)?;
    progress(&format!("cleared setuid/setgid bits on {cleared} files"));
    Ok(())
}

/// Removes the files in `dir` (recursively), keeping `dir` itself.
fn empty_dir(dir: &Path) -> Result<(), ImageError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(io_error("read", dir, source)),
    };
    for entry in entries {
        let path = entry
            .map_err(|source| io_error("read", dir, source))?
            .path();
        remove_tree(&path)?;
    }
    Ok(())
}

fn clear_setid_bits(root: &Path) -> Result<u64, ImageError> {
    let mut cleared = 0;
    walk_same_device(root, &mut |path, meta| {
        let mode = meta.mode();
        if meta.file_type().is_symlink() || mode & 0o6000 == 0 {
            return Ok(());
        }
        let permissions = std::fs::Permissions::from_mode(mode & 0o1777);
        std::fs::set_permissions(path, permissions)
            .map_err(|source| io_error("chmod", path, source))?;
        cleared += 1;
        Ok(())
    })?;
    Ok(cleared)
}

/// Calls `visit` on every entry under `root` (not `root` itself), without following
/// symlinks or crossing into another filesystem.
fn walk_same_device(
    root: &Path,
    visit: &mut impl FnMut(&Path, &std::fs::Metadata) -> Result<(), ImageError>,
) -> Result<(), ImageError> {
    let device = metadata(root)?.dev();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|source| io_error("read", &dir, source))? {
            let path = entry
                .map_err(|source| io_error("read", &dir, source))?
                .path();
            let meta = metadata(&path)?;
            if meta.dev() != device {
                continue;
            }
            visit(&path, &meta)?;
            if meta.is_dir() {
                pending.push(path);
            }
        }
    }
    Ok(())
}

fn metadata(path: &Path) -> Result<std::fs::Metadata, ImageError> {
    std::fs::symlink_metadata(path).map_err(|source| io_error("stat", path, source))
}

/// `tar -C root -c . | docker import --change ... - <tag>`: tar (which any machine with
/// debootstrap has) writes the archive, streamed straight into bollard's import API, so
/// the docker CLI is not needed and the archive never lands on disk.
async fn import(
    docker: &Docker,
    root: &Path,
    (image, flavor): (&str, Flavor),
    progress: &mut impl FnMut(&str),
) -> Result<(), ImageError> {
    progress(&format!("importing the tree into Docker as {image}"));
    let mut tar = Command::new("tar")
        .args(["--numeric-owner", "-C"])
        .arg(root)
        .args(["-c", "."])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| io_error("run tar on", root, source))?;
    let archive = tar.stdout.take().map(chunk_stream);
    let imported = send_import(docker, (image, flavor), archive, progress).await;
    let status = tar
        .wait()
        .await
        .map_err(|source| io_error("wait for tar of", root, source))?;
    if !status.success() {
        untag(docker, image).await;
        return Err(ImageError::Tar {
            status: status.to_string(),
        });
    }
    imported
}

async fn send_import(
    docker: &Docker,
    (image, flavor): (&str, Flavor),
    archive: Option<impl Stream<Item = io::Result<Bytes>> + Send + 'static>,
    progress: &mut impl FnMut(&str),
) -> Result<(), ImageError> {
    let (repo, tag) = split_reference(image);
    let options = CreateImageOptions {
        from_src: Some("-".to_string()),
        repo: Some(repo.to_string()),
        tag: Some(tag.to_string()),
        changes: flavor.image_changes(),
        ..Default::default()
    };
    let body = archive.map(bollard::body_try_stream);
    let docker = docker
        .clone()
        .with_timeout(std::time::Duration::from_secs(IMPORT_TIMEOUT_SECS));
    let mut answers = docker.create_image(Some(options), body, None);
    while let Some(answer) = answers.next().await {
        let info = answer.map_err(|source| ImageError::Import {
            image: image.to_string(),
            source,
        })?;
        if let Some(status) = info.status {
            progress(&format!("  {status}"));
        }
    }
    Ok(())
}

/// A reader as a stream of chunks.
fn chunk_stream(
    reader: impl AsyncRead + Send + Unpin + 'static,
) -> impl Stream<Item = io::Result<Bytes>> + Send + 'static {
    futures::stream::try_unfold(reader, |mut reader| async move {
        let mut chunk = BytesMut::with_capacity(256 * 1024);
        match reader.read_buf(&mut chunk).await? {
            0 => Ok(None),
            _ => Ok(Some((chunk.freeze(), reader))),
        }
    })
}

/// Runs the flavor's smoke test in a real sandbox from the staged image, then points
/// `target` at it and removes the image it replaces when nothing uses it.
async fn check_and_promote(
    docker: &Docker,
    settings: &SandboxSettings,
    (staging, target, flavor): (&str, &str, Flavor),
    progress: &mut impl FnMut(&str),
) -> Result<(), ImageError> {
    progress("checking that the new image passes its smoke test in a sandbox");
    smoke_test(docker, settings, staging, flavor).await?;
    let previous = image_id(docker, target).await;
    let new = image_id(docker, staging).await;
    let (repo, tag) = split_reference(target);
    let options = TagImageOptions {
        repo: Some(repo.to_string()),
        tag: Some(tag.to_string()),
    };
    docker
        .tag_image(staging, Some(options))
        .await
        .map_err(|source| ImageError::Tag {
            image: target.to_string(),
            source,
        })?;
    if let Some(old) = previous.filter(|old| Some(old) != new.as_ref()) {
        remove_replaced(docker, &old, progress).await;
    }
    Ok(())
}

async fn smoke_test(
    docker: &Docker,
    settings: &SandboxSettings,
    image: &str,
    flavor: Flavor,
) -> Result<(), ImageError> {
    let broken = |why: String| ImageError::Broken {
        image: image.to_string(),
        why,
    };
    let printed = probe::run(
        docker,
        settings,
        image,
        ("image-check", flavor.smoke_code()),
    )
    .await
    .map_err(|e| broken(e.to_string()))?;
    if printed == b"3\n" {
        return Ok(());
    }
    Err(broken(format!(
        "it printed {:?}, not 3",
        String::from_utf8_lossy(&printed)
    )))
}

async fn image_id(docker: &Docker, image: &str) -> Option<String> {
    docker.inspect_image(image).await.ok()?.id
}

/// Removes the image the target name pointed at before, if no container uses it.
async fn remove_replaced(docker: &Docker, old_id: &str, progress: &mut impl FnMut(&str)) {
    match docker
        .remove_image(old_id, None::<RemoveImageOptions>, None)
        .await
    {
        Ok(_) => progress(&format!("removed the image it replaces ({old_id})")),
        Err(e) => progress(&format!("kept the image it replaces ({old_id}): {e}")),
    }
}

/// Removes a tag (the image itself goes only when no other tag or container holds it).
async fn untag(docker: &Docker, image: &str) {
    if let Err(e) = docker
        .remove_image(image, None::<RemoveImageOptions>, None)
        .await
    {
        if !docker::is_not_found(&e) {
            tracing::warn!(image, "cannot remove the staging tag: {e}");
        }
    }
}

/// A staging tag in the same repository, unique to this build.
fn staging_tag(image: &str) -> String {
    let (repo, _) = split_reference(image);
    format!(
        "{repo}:cordon-build-{}",
        ulid::Ulid::new().to_string().to_lowercase()
    )
}

/// `repo:tag` split; a `:` before the last `/` is a registry port, not a tag.
fn split_reference(image: &str) -> (&str, &str) {
    match image.rsplit_once(':') {
        Some((repo, tag)) if !tag.contains('/') => (repo, tag),
        _ => (image, "latest"),
    }
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> ImageError {
    ImageError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Removes `path` and everything under it, never crossing into another filesystem.
fn remove_tree(path: &Path) -> Result<(), ImageError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(source) => return Err(io_error("stat", path, source)),
    };
    if !meta.is_dir() {
        return std::fs::remove_file(path).map_err(|source| io_error("remove", path, source));
    }
    let mut dirs = vec![path.to_path_buf()];
    walk_same_device(path, &mut |entry, meta| {
        if meta.is_dir() {
            dirs.push(entry.to_path_buf());
            return Ok(());
        }
        std::fs::remove_file(entry).map_err(|source| io_error("remove", entry, source))
    })?;
    // Deepest first; a directory holding a foreign mount stays (and says so).
    for dir in dirs.iter().rev() {
        std::fs::remove_dir(dir).map_err(|source| io_error("remove", dir, source))?;
    }
    Ok(())
}

/// The temporary build directory; unmounts anything debootstrap left mounted in it and
/// removes it when dropped, on every path.
struct BuildTree {
    dir: PathBuf,
    root: PathBuf,
}

impl BuildTree {
    fn create() -> Result<Self, ImageError> {
        let name = format!(
            "cordon-image-{}",
            ulid::Ulid::new().to_string().to_lowercase()
        );
        let dir = Path::new(BUILD_PARENT).join(name);
        std::fs::create_dir(&dir).map_err(|source| io_error("create", &dir, source))?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|source| io_error("chmod", &dir, source))?;
        let root = dir.join("root");
        Ok(BuildTree { dir, root })
    }

    fn root(&self) -> &Path {
        &self.root
    }
}

impl Drop for BuildTree {
    fn drop(&mut self) {
        unmount_below(&self.dir);
        if let Err(e) = remove_tree(&self.dir) {
            tracing::warn!("cannot remove the build directory: {e}");
        }
    }
}

/// Detaches every mount under `dir` (debootstrap mounts /proc and /sys in the target and
/// may leave them if it dies), deepest first, so removal cannot reach the host's files.
fn unmount_below(dir: &Path) {
    let Ok(mountinfo) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return;
    };
    let prefix = format!("{}/", dir.display());
    let mut points: Vec<String> = mountinfo
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(unescape_mount_point)
        .filter(|point| point.starts_with(&prefix))
        .collect();
    points.sort_by_key(|point| std::cmp::Reverse(point.len()));
    for point in points {
        let Ok(c_path) = std::ffi::CString::new(point.clone()) else {
            continue;
        };
        // SAFETY: c_path is a valid NUL-terminated path; umount2 only reads it.
        if unsafe { libc::umount2(c_path.as_ptr(), libc::MNT_DETACH) } != 0 {
            tracing::warn!(
                mount = point,
                "cannot unmount: {}",
                io::Error::last_os_error()
            );
        }
    }
}

/// mountinfo writes space, tab, newline and backslash as `\ooo` octal escapes.
fn unescape_mount_point(raw: &str) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .and_then(|d| std::str::from_utf8(d).ok());
        match (bytes[i], octal.and_then(|d| u8::from_str_radix(d, 8).ok())) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                i += 4;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_split_into_repository_and_tag() {
        assert_eq!(
            split_reference("cordon-python:3.11"),
            ("cordon-python", "3.11")
        );
        assert_eq!(
            split_reference("cordon-python"),
            ("cordon-python", "latest")
        );
        assert_eq!(split_reference("reg:5000/py"), ("reg:5000/py", "latest"));
        assert_eq!(split_reference("reg:5000/py:3"), ("reg:5000/py", "3"));
    }

    #[test]
    fn the_staging_tag_stays_in_the_same_repository() {
        assert!(staging_tag("cordon-python:3.11").starts_with("cordon-python:cordon-build-"));
    }

    #[test]
    fn mount_points_are_unescaped() {
        assert_eq!(
            unescape_mount_point("/var/tmp/a\\040b/proc"),
            "/var/tmp/a b/proc"
        );
        assert_eq!(unescape_mount_point("/plain"), "/plain");
    }

    #[test]
    fn setid_bits_are_cleared_and_other_bits_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("su");
        std::fs::write(&file, b"x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o6755)).unwrap();
        assert_eq!(clear_setid_bits(dir.path()).unwrap(), 1);
        let mode = std::fs::metadata(&file).unwrap().mode() & 0o7777;
        assert_eq!(mode, 0o755);
    }

    #[test]
    fn a_tree_is_removed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("t");
        std::fs::create_dir_all(tree.join("a/b")).unwrap();
        std::fs::write(tree.join("a/b/f"), b"x").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", tree.join("a/link")).unwrap();
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
        assert!(Path::new("/etc/passwd").exists());
    }
}
