//! `cordon up` without --nats is a whole machine's cordon: it starts its own nats-server,
//! permissioned (passwords in its data dir), serves requests, refuses a second cordon on
//! the same data dir, and on SIGTERM stops cleanly with its nats-server. Nobody without a
//! password gets in, and the local client cannot forge a result, a job or an audit entry.

mod pipeline_support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use cordon::protocol::exec::Status;
use pipeline_support::*;

#[tokio::test]
async fn up_serves_with_its_own_nats_server_and_takes_it_down_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let (mut up, url) = start_up(dir.path(), "t-up-embedded", &[]);
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();

    let client = local_client(&url, dir.path()).await;
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
    unsafe { libc::kill(up.0.id() as i32, libc::SIGTERM) };
    let status = up.0.wait().unwrap();
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
    let (mut up, printed) = start_up(dir.path(), "t-up-listen", &["--listen", &listen]);
    let url = format!("nats://{listen}");
    assert_eq!(printed, url);
    let client = local_client(&url, dir.path()).await;
    let result = run(&client, "print('on a fixed port')").await;
    assert_eq!(result.stdout, "on a fixed port\n", "{result:?}");
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(up.0.id() as i32, libc::SIGTERM) };
    assert!(up.0.wait().unwrap().success());
    assert!(containers_of("t-up-listen").is_empty());
}

/// A client of a `cordon up` whose data dir is `data_dir`, as the CLI is: with the local
/// client's password from that data dir.
async fn local_client(url: &str, data_dir: &std::path::Path) -> cordon::client::Client {
    let mut settings = cordon::config::Settings::load(None).unwrap();
    let credentials = cordon::node::embedded_auth::credentials_dir(data_dir);
    cordon::node::embedded_auth::use_local_client(&mut settings, &credentials);
    assert_eq!(
        settings.nats.auth.user, "local",
        "up made the local client's password"
    );
    cordon::client::Client::connect(url, &settings.nats)
        .await
        .expect("the local client connects")
}

/// Starts `cordon up` (embedded, permissioned) on `data_dir` with `extra` arguments;
/// returns it and the URL it prints.
fn start_up(data_dir: &std::path::Path, host: &str, extra: &[&str]) -> (KilledOnDrop, String) {
    let mut up = KilledOnDrop(
        Command::new(cordon_bin())
            .arg("--data-dir")
            .arg(data_dir)
            .arg("up")
            .args(extra)
            .env("CORDON__NODE__HOST_ID", host)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let mut first_line = String::new();
    BufReader::new(up.0.stdout.take().unwrap())
        .read_line(&mut first_line)
        .unwrap();
    let url = first_line
        .split_whitespace()
        .find(|w| w.starts_with("nats://"))
        .expect("up prints its URL")
        .to_string();
    (up, url)
}

/// The default bus lets no stranger in, and the local client may only submit and read its
/// own results: a forged result, a forged scheduled job (2 CPUs, 4096 pids) and a forged
/// audit entry all go nowhere, while its real request runs.
#[tokio::test]
async fn the_default_bus_refuses_strangers_and_forgeries() {
    let dir = tempfile::tempdir().unwrap();
    let host = "t-up-forgery";
    let (mut up, url) = start_up(dir.path(), host, &[]);
    let stranger = async_nats::connect(&url).await;
    assert!(
        stranger.is_err(),
        "an unauthenticated connection is refused"
    );

    let client = local_client(&url, dir.path()).await;
    let credentials = cordon::node::embedded_auth::credentials_dir(dir.path());
    let password = std::fs::read_to_string(credentials.join("local.password")).unwrap();
    let raw =
        async_nats::ConnectOptions::with_user_and_password("local".into(), password.trim().into())
            .custom_inbox_prefix("_INBOX_local")
            .connect(&url)
            .await
            .expect("the local client connects");
    let forged_id = cordon::client::Client::new_request_id();
    let mut results = raw
        .subscribe(format!("cordon.v1.exec.result.local.{forged_id}"))
        .await
        .unwrap();
    for subject in [
        format!("cordon.v1.exec.result.local.{forged_id}"),
        format!("cordon.v1.exec.scheduled.{host}"),
        "cordon.v1.audit.append".to_string(),
        format!("cordon.v1.container.kill.{host}"),
    ] {
        let _ = raw.publish(subject, b"forged".to_vec().into()).await;
    }
    let _ = raw.flush().await;
    let heard = tokio::time::timeout(
        Duration::from_secs(2),
        futures::StreamExt::next(&mut results),
    )
    .await;
    assert!(
        heard.is_err(),
        "a forged result reached a subscriber: {heard:?}"
    );

    let result = run(&client, "print('real')").await;
    assert_eq!(result.stdout, "real\n", "{result:?}");
    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(up.0.id() as i32, libc::SIGTERM) };
    assert!(up.0.wait().unwrap().success());
    let entries = cordon::audit::read_entries(&dir.path().join("audit"), None).unwrap();
    assert!(
        entries
            .iter()
            .all(|e| !e.body.to_string().contains("forged")),
        "nothing forged reached the audit log"
    );
    assert!(containers_of(host).is_empty());
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

/// The CLI against a `cordon up` (its permissioned bus): `session new` prints an id, cells
/// run with `exec --session` share state, `session list` shows it and `session close`
/// ends it; `exec --file/--stdin/--out` places and returns files; and `exec` prints output
/// as it arrives, long before the program ends.
#[tokio::test]
async fn the_cli_opens_uses_lists_and_closes_sessions_and_streams_output() {
    let dir = tempfile::tempdir().unwrap();
    let host = "t-up-sessions";
    let (mut up, url) = start_up(dir.path(), host, &[]);
    let work = tempfile::tempdir().unwrap();
    let cli = |args: &[&str]| {
        Command::new(cordon_bin())
            .arg("--data-dir")
            .arg(dir.path())
            .args(args)
            .args(["--nats", &url])
            .current_dir(work.path())
            .output()
            .unwrap()
    };
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).trim().to_string();

    let opened = cli(&["session", "new"]);
    assert!(opened.status.success(), "{opened:?}");
    let id = text(&opened.stdout);
    assert!(id.ends_with(&format!("@{host}")), "{id}");
    std::fs::write(work.path().join("set.py"), "x = 41\n").unwrap();
    std::fs::write(work.path().join("use.py"), "print(x + 1)\n").unwrap();
    assert!(cli(&["exec", "set.py", "--session", &id]).status.success());
    let used = cli(&["exec", "use.py", "--session", &id]);
    assert_eq!(text(&used.stdout), "42", "{used:?}");
    tokio::time::sleep(Duration::from_millis(1500)).await; // a load report lists it
    let listed = cli(&["session", "list"]);
    assert!(text(&listed.stdout).contains(&id), "{listed:?}");
    let closed = cli(&["session", "close", &id]);
    assert!(closed.status.success(), "{closed:?}");
    let after = cli(&["exec", "use.py", "--session", &id]);
    assert_eq!(after.status.code(), Some(70), "{after:?}");
    assert!(text(&after.stderr).contains("session_closed"), "{after:?}");

    // Files in, stdin, files out.
    std::fs::write(work.path().join("data.csv"), "a\nb\n").unwrap();
    std::fs::write(work.path().join("in.txt"), "from stdin\n").unwrap();
    let program = "rows = open('inputs/data.csv').read().split()\n\
open('outputs/count.txt', 'w').write(str(len(rows)) + ' ' + input())\n";
    std::fs::write(work.path().join("files.py"), program).unwrap();
    let out_dir = work.path().join("out");
    let files = cli(&[
        "exec",
        "files.py",
        "--file",
        "data.csv=inputs/data.csv",
        "--stdin",
        "in.txt",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(files.status.success(), "{files:?}");
    assert_eq!(
        std::fs::read_to_string(out_dir.join("count.txt")).unwrap(),
        "2 from stdin"
    );

    // Live output: the first line is printed while the program still sleeps.
    let slow = "import time\nprint('first', flush=True)\ntime.sleep(3)\nprint('second')\n";
    std::fs::write(work.path().join("slow.py"), slow).unwrap();
    let started = std::time::Instant::now();
    let mut child = Command::new(cordon_bin())
        .arg("--data-dir")
        .arg(dir.path())
        .args(["exec", "slow.py", "--nats", &url])
        .current_dir(work.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "first");
    let first_at = started.elapsed();
    assert_eq!(lines.next().unwrap().unwrap(), "second");
    let second_at = started.elapsed();
    assert!(lines.next().is_none(), "each line printed once");
    assert!(child.wait().unwrap().success());
    assert!(
        second_at >= first_at + Duration::from_millis(2500),
        "first line at {first_at:?}, second at {second_at:?}: not streamed"
    );

    // SAFETY: signalling our own child by pid.
    unsafe { libc::kill(up.0.id() as i32, libc::SIGTERM) };
    assert!(up.0.wait().unwrap().success());
    assert!(containers_of(host).is_empty());
}
