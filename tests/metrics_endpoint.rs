//! Every cordon process can serve Prometheus metrics: after a completed job and a timeout,
//! `/metrics` counts them by status and kind, has a latency histogram, audit appends and
//! queue depths; anything but `/metrics` is a 404.

mod pipeline_support;

use std::io::{Read, Write};
use std::time::Duration;

use cordon::protocol::exec::Status;
use pipeline_support::*;

fn http_get(port: u16, path: &str) -> String {
    let mut socket =
        std::net::TcpStream::connect(("127.0.0.1", port)).expect("metrics endpoint listens");
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    socket.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    socket.read_to_string(&mut response).unwrap();
    response
}

#[tokio::test]
async fn metrics_count_jobs_violations_and_latency() {
    let port = free_port();
    let nats = Nats::start();
    let _node = Node::up(
        &nats,
        "metrics",
        &test_config(&format!("[metrics]\nlisten = \"127.0.0.1:{port}\"\n")),
    );
    let client = client(&nats).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(run(&client, "print(1)").await.status, Status::Completed);
    let mut spin = request("while True: pass", "untrusted");
    spin.timeout_ms = Some(500);
    assert_eq!(run_request(&client, &spin).await.status, Status::Violation);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let page = http_get(port, "/metrics");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    for line in [
        "cordon_jobs_total{status=\"completed\"} 1",
        "cordon_jobs_total{status=\"violation\"} 1",
        "cordon_violations_total{kind=\"timeout\"} 1",
        "cordon_request_latency_seconds_count 2",
        "cordon_queue_depth{stream=\"CORDON_SUBMIT\"} 0",
    ] {
        assert!(page.contains(line), "{line} missing from\n{page}");
    }
    let appends = page
        .lines()
        .find(|l| l.starts_with("cordon_audit_appends_total "))
        .unwrap();
    assert!(
        appends.split(' ').nth(1).unwrap().parse::<u64>().unwrap() >= 10,
        "{appends}"
    );
    assert!(http_get(port, "/").starts_with("HTTP/1.1 404"));
}
