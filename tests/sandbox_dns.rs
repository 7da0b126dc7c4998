//! An allowlist sandbox's name lookups are answered on the host, at once, and never leave
//! it: packets are captured on every interface that existed before the test while the
//! sandbox looks up names no one else uses, and none of them shows up there; each lookup
//! fails with "name not known" in under 100 ms (the proxy's responder answered it). The
//! proxy's upstream network is one the test creates (internal), and the only traffic the
//! test sends itself is a control datagram to loopback that proves the capture was live.

mod pipeline_support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use cordon::protocol::exec::{ExecRequest, Status};
use pipeline_support::*;
use serde_json::Value;

/// One `tcpdump` per interface, writing DNS traffic to a file; stopped on drop.
struct Capture {
    children: Vec<(String, Child, PathBuf)>,
}

impl Capture {
    /// Starts capturing port-53 traffic on each of `interfaces`, returning once each
    /// capture says it is listening.
    fn start(interfaces: &[String], dir: &Path) -> Capture {
        let mut children = Vec::new();
        for interface in interfaces {
            let file = dir.join(format!("{interface}.pcap"));
            let mut child = Command::new("tcpdump")
                .args([
                    "-i",
                    interface,
                    "--immediate-mode",
                    "-U",
                    "-n",
                    "-s",
                    "0",
                    "-w",
                ])
                .arg(&file)
                .arg("port 53")
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("tcpdump (scripts/setup installs it)");
            let mut line = String::new();
            BufReader::new(child.stderr.take().unwrap())
                .read_line(&mut line)
                .expect("tcpdump's first line");
            assert!(line.contains("listening"), "tcpdump on {interface}: {line}");
            children.push((interface.clone(), child, file));
        }
        Capture { children }
    }

    /// Stops every capture and returns each interface with the bytes it captured.
    fn finish(mut self) -> Vec<(String, Vec<u8>)> {
        let mut captured = Vec::new();
        for (interface, child, file) in self.children.drain(..) {
            stop(child);
            captured.push((interface, std::fs::read(&file).unwrap_or_default()));
        }
        captured
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        for (_, child, _) in self.children.drain(..) {
            stop(child);
        }
    }
}

/// SIGTERM (tcpdump then flushes its file), then waits.
fn stop(mut child: Child) {
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
}

/// Every network interface of the host that is up right now (one that is down carries
/// nothing).
fn host_interfaces() -> Vec<String> {
    std::fs::read_dir("/sys/class/net")
        .expect("/sys/class/net")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| {
            let flags = std::fs::read_to_string(format!("/sys/class/net/{name}/flags"));
            let flags = flags.unwrap_or_default();
            let flags = u32::from_str_radix(flags.trim().trim_start_matches("0x"), 16);
            flags.is_ok_and(|f| f & libc::IFF_UP as u32 != 0)
        })
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Looks up each name (glibc through Docker's resolver, then a raw query over TCP to the
/// resolver), timing each and keeping the error's number.
const LOOKUPS: &str = r#"
import json, socket, struct, time
out = {}
for name in NAMES:
    start = time.monotonic()
    try:
        socket.getaddrinfo(name, 80)
        result = "resolved"
    except socket.gaierror as e:
        result = e.errno
    out[name] = {"ms": (time.monotonic() - start) * 1000, "result": result}
question = b"".join(bytes([len(p)]) + p.encode() for p in "TCP_NAME".split(".")) + b"\0\0\1\0\1"
query = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + question
start = time.monotonic()
with socket.create_connection(("127.0.0.11", 53), timeout=5) as s:
    s.sendall(struct.pack(">H", len(query)) + query)
    reply = s.recv(4096)
out["tcp"] = {"ms": (time.monotonic() - start) * 1000, "rcode": reply[5] & 15}
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowlist_lookups_fail_at_once_and_no_dns_leaves_the_host() {
    let existing = host_interfaces();
    let marker = format!("leak{}", fresh_id().to_lowercase());
    let names = [
        format!("{marker}a.test"),
        format!("{marker}b.example.com"),
        format!("{marker}c"),
    ];
    let tcp_name = format!("{marker}d.example.org");

    let upstream = format!("cordon-test-dns-{}", &marker[4..20]);
    docker_cli(&["network", "create", "--internal", &upstream]);
    let _network = NetworkGuard(upstream.clone());
    let nats = Nats::start();
    let config = test_config(&format!(
        "\n[network]\nallowed_trust = [\"trusted\"]\nallowlist = [\"web.test\"]\nupstream_network = \"{upstream}\"\n"
    ));
    let mut node = Node::up(&nats, "dns", &config);
    let client = client(&nats).await;

    let captures = tempfile::tempdir().unwrap();
    let capture = Capture::start(&existing, captures.path());
    let code = LOOKUPS
        .replace("NAMES", &serde_json::to_string(&names).unwrap())
        .replace("TCP_NAME", &tcp_name);
    let request = ExecRequest {
        network: Some("allowlist".into()),
        ..request(&code, "trusted")
    };
    let result = run_request(&client, &request).await;
    // The control: a datagram to loopback carrying its own marker, which the capture on
    // `lo` must hold (so an empty capture elsewhere means nothing was sent, not that the
    // capture was deaf).
    let control = format!("control{}", &marker[4..]);
    let probe = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    probe.send_to(control.as_bytes(), "127.0.0.1:53").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let captured = capture.finish();

    assert_eq!(result.status, Status::Completed, "{result:?}");
    let out: Value = serde_json::from_str(result.stdout.trim())
        .unwrap_or_else(|_| panic!("no JSON from the program: {result:?}"));
    for name in &names {
        let lookup = &out[name];
        assert_eq!(
            lookup["result"],
            libc::EAI_NONAME,
            "{name} is answered 'not known' (NXDOMAIN), not left to time out: {out}"
        );
        assert!(lookup["ms"].as_f64().unwrap() < 100.0, "{name}: {out}");
    }
    assert_eq!(out["tcp"]["rcode"], 3, "NXDOMAIN over TCP too: {out}");
    assert!(out["tcp"]["ms"].as_f64().unwrap() < 100.0, "{out}");

    let lo = captured
        .iter()
        .find(|(i, _)| i == "lo")
        .expect("lo captured");
    assert!(
        contains(&lo.1, control.as_bytes()),
        "the capture on lo saw the control datagram"
    );
    for (interface, bytes) in &captured {
        for name in names.iter().chain([&tcp_name]) {
            let label = name.split('.').next().unwrap();
            assert!(
                !contains(bytes, label.as_bytes()),
                "a lookup of {name} left through {interface}"
            );
        }
    }
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}

/// Removes the test's upstream network (after the node has removed its proxy).
struct NetworkGuard(String);

impl Drop for NetworkGuard {
    fn drop(&mut self) {
        let _ = Command::new("docker")
            .args(["network", "rm", &self.0])
            .output();
    }
}
