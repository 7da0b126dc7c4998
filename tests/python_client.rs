//! The Python client in `clients/python` works against a running cordon: its example submits
//! code, awaits results and streams violation events over the same wire protocol.

mod pipeline_support;

use std::process::Command;

use pipeline_support::*;

#[test]
fn the_python_client_example_runs_against_a_live_cordon() {
    let nats = Nats::start();
    let _node = Node::up(&nats, "python-client", &test_config(""));
    let client_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/clients/python");
    let output = Command::new("python3")
        .arg("example.py")
        .arg(&nats.url)
        .current_dir(client_dir)
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
