//! `cordon mcp` driven by a real MCP client: the official `mcp` Python SDK (from PyPI;
//! scripts/setup installs it) starts `cordon mcp --nats URL` over stdio against a running
//! pipeline and checks the tools, a cell, a session's state, a plot as a PNG image, a
//! BLOCKED answer and a timeout answer (tests/mcp/drive.py); and over Streamable HTTP on a
//! loopback port. Needs Docker, nats-server and both images.

mod pipeline_support;

use std::process::Command;

use pipeline_support::*;

/// Runs tests/mcp/drive.py (with `extra` arguments) against a fresh pipeline, and asserts
/// every check passed.
fn drive(host: &str, extra: &[&str]) {
    let nats = Nats::start();
    // Memory enough for matplotlib in the data image.
    let config = test_config("").replace("memory_bytes = 134217728", "memory_bytes = 536870912");
    let mut node = Node::up(&nats, host, &config);
    let data_dir = tempfile::tempdir().unwrap();
    let drive = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/drive.py");
    let output = Command::new("python3")
        .arg(drive)
        .arg(cordon_bin())
        .arg(data_dir.path())
        .arg(&nats.url)
        .args(extra)
        .output()
        .expect("python3 runs (scripts/setup installs the mcp package)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("all checks passed"),
        "the MCP client failed:\n{stdout}\n{stderr}"
    );
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, std::time::Duration::from_secs(10));
}

#[test]
fn an_mcp_client_runs_cells_sessions_plots_and_gets_blocked_and_timeout_answers() {
    drive("mcp-server", &[]);
}

/// `cordon mcp --http 127.0.0.1:0` serves the same tools over Streamable HTTP.
#[test]
fn an_mcp_client_runs_a_cell_over_streamable_http() {
    drive("mcp-http", &["--http"]);
}
