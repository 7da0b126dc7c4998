//! `cordon up` without --nats is a whole machine's cordon: it starts its own nats-server,
//! serves requests, refuses a second cordon on the same data dir, and on SIGTERM stops
//! cleanly with its nats-server.

mod pipeline_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use cordon::protocol::exec::Status;
use pipeline_support::*;

#[tokio::test]
async fn up_serves_with_its_own_nats_server_and_takes_it_down_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let mut up = Command::new(cordon_bin())
        .arg("--data-dir")
        .arg(dir.path())
        .arg("up")
        .env("CORDON__NODE__HOST_ID", "t-up-embedded")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    BufReader::new(up.stdout.take().unwrap())
        .read_line(&mut first_line)
        .unwrap();
    let url = first_line
        .split_whitespace()
        .find(|w| w.starts_with("nats://"))
        .expect("up prints its URL")
        .to_string();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();

    let settings = cordon::config::Settings::load(None).unwrap();
    let client = cordon::client::Client::connect(&url, &settings.nats)
        .await
        .unwrap();
    let result = run(&client, "print('served')").await;
    assert_eq!(result.status, Status::Completed);
    assert_eq!(result.stdout, "served\n");

    let second = Command::new(cordon_bin())
        .arg("--data-dir")
        .arg(dir.path())
        .arg("up")
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(69));
    assert!(String::from_utf8_lossy(&second.stderr).contains("another cordon is running"));

    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(up.id() as i32, libc::SIGTERM) };
    let status = up.wait().unwrap();
    assert!(status.success(), "{status}");
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "nats-server outlived cordon up"
    );
    assert!(containers_of("t-up-embedded").is_empty());
}

/// `cordon up --listen 127.0.0.1:PORT` puts its embedded nats-server on that fixed port,
/// where a client reaches it and gets a job run.
#[tokio::test]
async fn up_listens_where_it_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let mut up = KilledOnDrop(
        Command::new(cordon_bin())
            .arg("--data-dir")
            .arg(dir.path())
            .args(["up", "--listen", &listen])
            .env("CORDON__NODE__HOST_ID", "t-up-listen")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut first_line = String::new();
    BufReader::new(up.0.stdout.take().unwrap())
        .read_line(&mut first_line)
        .unwrap();
    let url = format!("nats://{listen}");
    assert!(first_line.contains(&url), "{first_line}");
    let settings = cordon::config::Settings::load(None).unwrap();
    let client = cordon::client::Client::connect(&url, &settings.nats)
        .await
        .expect("a client reaches the fixed port");
    let result = run(&client, "print('on a fixed port')").await;
    assert_eq!(result.stdout, "on a fixed port\n", "{result:?}");
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(up.0.id() as i32, libc::SIGTERM) };
    assert!(up.0.wait().unwrap().success());
    assert!(containers_of("t-up-listen").is_empty());
}

/// A child process killed if the test ends early.
struct KilledOnDrop(std::process::Child);

impl Drop for KilledOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A node whose log goes to a file (not a terminal) writes plain text: no colour codes.
#[test]
fn a_log_written_to_a_file_has_no_colour_codes() {
    let nats = Nats::start();
    let node = Node::up(&nats, "plain-log", &test_config(""));
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !node.log_text().contains("starting actor") {
        assert!(std::time::Instant::now() < deadline, "{}", node.log_text());
        std::thread::sleep(Duration::from_millis(100));
    }
    let log = node.log_text();
    assert!(
        !log.contains("\x1b["),
        "colour codes in the log file:\n{log}"
    );
}
