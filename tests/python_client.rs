//! The Python client in `clients/python` works against a running cordon: its example submits
//! code, awaits results and streams violation events over the same wire protocol; and the
//! package installs with pip into a fresh venv, whose Python then passes the SDK's live
//! tests (`clients/python/tests/test_live.py`: sync and async runs, sessions, files in and
//! out, stdin, live output, timeouts, BLOCKED, rejections, an unreachable server, cancel,
//! the session list, a clean exit), on an open bus and as `alice` of the permissioned one.
//! Needs Docker, nats-server, python3 with venv, and PyPI for the package's dependencies.

mod pipeline_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pipeline_support::*;

const CLIENT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python");

#[test]
fn the_python_client_example_runs_against_a_live_cordon() {
    let nats = Nats::start();
    let _node = Node::up(&nats, "python-client", &test_config(""));
    let output = Command::new("python3")
        .arg("example.py")
        .arg(&nats.url)
        .current_dir(CLIENT_DIR)
        .output()
        .expect("python3 runs (scripts/setup installs nats-py and msgpack)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "example failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("first: completed exit=0 stdout='45\\n'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("second: violation kind=timeout"),
        "{stdout}"
    );
    assert!(stdout.contains("violation event: timeout for "), "{stdout}");
}

/// The test configuration, with room for the sessions the live tests open at once.
fn sdk_config(extra: &str) -> String {
    let config = test_config(extra);
    let with_sessions = config.replacen(
        "[limits.untrusted]\n",
        "[limits.untrusted]\nsessions_per_client = 8\n",
        1,
    );
    assert_ne!(
        config, with_sessions,
        "test_config has a [limits.untrusted] table"
    );
    with_sessions
}

/// A fresh venv under `dir` with the package installed by pip from `clients/python` (its
/// dependencies at the versions `requirements.txt` pins, as constraints, so the two files
/// must agree); returns its python. pip builds in the source directory, so it installs
/// from a copy: the work tree stays clean, and nothing left by an earlier build (setuptools'
/// `build/`) gets into the package.
fn venv_with_the_package(dir: &Path) -> PathBuf {
    let source = dir.join("clients-python");
    copy_sources(Path::new(CLIENT_DIR), &source);
    let venv = dir.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .expect("python3 runs");
    assert_success("python3 -m venv", &made);
    let installed = Command::new(venv.join("bin/pip"))
        .args(["install", "--quiet", "--disable-pip-version-check", "-c"])
        .arg(source.join("requirements.txt"))
        .arg(&source)
        .output()
        .expect("the venv's pip runs");
    assert_success("pip install clients/python", &installed);
    venv.join("bin/python")
}

/// Copies the package's sources, without what builds and tools leave behind.
fn copy_sources(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("copy of clients/python");
    for entry in std::fs::read_dir(from).expect("clients/python is readable") {
        let entry = entry.expect("directory entry");
        let name = entry.file_name().to_string_lossy().to_string();
        let left_behind = ["build", "__pycache__", ".mypy_cache"].contains(&name.as_str())
            || name.ends_with(".egg-info");
        if left_behind {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if entry.file_type().expect("file type").is_dir() {
            copy_sources(&source, &target);
        } else {
            std::fs::copy(&source, &target).expect("copy a source file");
        }
    }
}

fn assert_success(what: &str, output: &Output) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs the live tests with `python` against `url` (as `user`, if given), from `dir` so
/// that only the installed package can be imported, and checks every one passed.
fn run_live_tests(python: &Path, dir: &Path, url: &str, user: Option<(&str, &str)>) {
    let script = Path::new(CLIENT_DIR).join("tests/test_live.py");
    let mut command = Command::new(python);
    command.arg(&script).arg(url).current_dir(dir);
    if let Some((user, password)) = user {
        command.args([user, password]);
    }
    let output = command.output().expect("the venv's python runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "the SDK's live tests failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let venv = dir.join("venv").display().to_string();
    let imported = stdout.lines().next().unwrap_or_default();
    assert!(
        imported.starts_with("cordon_client ") && imported.contains(&venv),
        "the tests did not use the installed package: {imported}\n{stdout}"
    );
    assert!(stdout.contains("ok   sync_run"), "{stdout}");
    assert!(
        stdout.contains("ok   closing_leaves_nothing_pending"),
        "{stdout}"
    );
    assert!(!stdout.contains("FAIL"), "{stdout}");
}

fn password(user: &str) -> String {
    format!("test-password-of-{user}")
}

/// nats-server with `deploy/nats/cordon.conf` and a node whose actors each connect as
/// themselves (as tests/bus_permissions.rs does); `dir` receives the password files.
fn permissioned_cordon(dir: &Path) -> (Nats, Node) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/nats/cordon.conf");
    let env = DEPLOY_NATS_USERS
        .iter()
        .map(|user| {
            let name = format!("CORDON_NATS_{}_PASSWORD", user.to_uppercase());
            (name, password(user))
        })
        .collect();
    let nats = Nats::start_with_config(&file, env);
    for role in cordon::actor::Role::ALL {
        let secret = dir.join(format!("{}.password", role.name()));
        std::fs::write(&secret, format!("{}\n", password(role.name()))).expect("password file");
    }
    let node = Node::up(
        &nats,
        "python-sdk-alice",
        &sdk_config(&role_credentials(dir)),
    );
    (nats, node)
}

#[test]
fn the_python_sdk_installs_with_pip_and_passes_its_live_tests() {
    let dir = tempfile::tempdir().expect("temp dir");
    let python = venv_with_the_package(dir.path());

    let nats = Nats::start();
    let node = Node::up(&nats, "python-sdk", &sdk_config(""));
    run_live_tests(&python, dir.path(), &nats.url, None);
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(30));
    drop(node);
    drop(nats);

    let secrets = tempfile::tempdir().expect("temp dir");
    let (nats, node) = permissioned_cordon(secrets.path());
    let alice = password("alice");
    run_live_tests(&python, dir.path(), &nats.url, Some(("alice", &alice)));
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(30));
}
