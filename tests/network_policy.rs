//! The network policy against real Docker: `network: allowlist` sandboxes reach allowlisted
//! test servers only through cordon's egress proxy (plain GET, a TLS tunnel, `pip install`
//! from a local index), every known bypass is refused (POST, an unlisted name, a direct
//! IP, a name resolving to a private address, a mismatched TLS server name, dropping the
//! proxy variables, the host's addresses, DNS), every attempt is audited, and `none` means
//! nothing at all. Test servers run in containers from the sandbox image on a network the
//! test creates (internal: nothing here can reach the internet), mapped to test names by
//! the proxy's resolver override.

mod pipeline_support;

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cordon::audit::StoredEntry;
use cordon::protocol::exec::{ExecRequest, ExecResult, Status};
use pipeline_support::*;
use serde_json::Value;

/// Test servers and their network; removed (with whatever cordon left) on drop.
struct World {
    id: String,
    upstream: String,
    web: String,
    tls: String,
    web_ip: String,
    tls_ip: String,
    upstream_gateway: String,
    internal_name: String,
    cert: String,
    dir: tempfile::TempDir,
}

fn docker_quiet(args: &[&str]) {
    let _ = Command::new("docker").args(args).output();
}

impl World {
    fn start() -> World {
        let id = fresh_id()[16..].to_lowercase();
        let dir = tempfile::tempdir().expect("temp dir");
        write_site(dir.path());
        let cert = make_cert(dir.path());
        let upstream = format!("cordon-test-up-{id}");
        let label = format!("cordon.test={id}");
        docker_cli(&[
            "network",
            "create",
            "--internal",
            "--label",
            &label,
            &upstream,
        ]);
        let internal_name = format!("internal-{id}.test");
        let mut world = World {
            web: format!("cordon-test-web-{id}"),
            tls: format!("cordon-test-tls-{id}"),
            id,
            upstream,
            web_ip: String::new(),
            tls_ip: String::new(),
            upstream_gateway: String::new(),
            internal_name,
            cert,
            dir,
        };
        world.start_servers();
        world
    }

    fn start_servers(&mut self) {
        let site = format!("{}:/srv:ro", self.dir.path().display());
        let label = format!("cordon.test={}", self.id);
        let image = "cordon-python:3.11";
        docker_cli(&[
            "run",
            "-d",
            "--name",
            &self.web,
            "--label",
            &label,
            "--network",
            &self.upstream,
            "--network-alias",
            &self.internal_name,
            "-v",
            &site,
            image,
            "python3",
            "-m",
            "http.server",
            "80",
            "--directory",
            "/srv",
        ]);
        docker_cli(&[
            "run",
            "-d",
            "--name",
            &self.tls,
            "--label",
            &label,
            "--network",
            &self.upstream,
            "-v",
            &site,
            "-w",
            "/srv",
            image,
            "python3",
            "-c",
            TLS_SERVER,
        ]);
        let ip_of = |c: &str| {
            docker_cli(&[
                "inspect",
                "-f",
                "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
                c,
            ])
        };
        self.web_ip = ip_of(&self.web);
        self.tls_ip = ip_of(&self.tls);
        self.upstream_gateway = docker_cli(&[
            "network",
            "inspect",
            "-f",
            "{{range .IPAM.Config}}{{.Gateway}}{{end}}",
            &self.upstream,
        ]);
        wait_listening(&self.web, 80);
        wait_listening(&self.tls, 443);
    }

    fn config(&self) -> String {
        self.config_with("")
    }

    /// The settings, with `extra` lines added to `[network]`.
    fn config_with(&self, extra: &str) -> String {
        test_config(&format!(
            r#"
[network]
allowed_trust = ["trusted"]
allowlist = ["web.test", "secure.test", "{internal}"]
resolve = ["web.test={web}", "secure.test={tls}"]
upstream_network = "{upstream}"
{extra}
"#,
            internal = self.internal_name,
            web = self.web_ip,
            tls = self.tls_ip,
            upstream = self.upstream,
        ))
    }

    /// Fills in the placeholders of a Python template.
    fn code(&self, template: &str, listener_port: u16) -> String {
        template
            .replace("WEB_IP", &self.web_ip)
            .replace("INTERNAL_NAME", &self.internal_name)
            .replace("UPSTREAM_GATEWAY", &self.upstream_gateway)
            .replace("LISTENER_PORT", &listener_port.to_string())
            .replace("CERT_PEM", &self.cert)
    }
}

impl Drop for World {
    fn drop(&mut self) {
        docker_quiet(&["rm", "-f", &self.web, &self.tls]);
        docker_quiet(&["network", "rm", &self.upstream]);
    }
}

/// Removes what a node of `host` may have left when a test fails midway (its process is
/// killed first, being declared after this guard): containers, then networks.
struct Leftovers(Option<String>);

impl Drop for Leftovers {
    fn drop(&mut self) {
        let Some(host) = &self.0 else { return };
        let filter = format!("label=cordon.host={host}");
        let ids = Command::new("docker")
            .args(["ps", "-aq", "--filter", &filter])
            .output();
        for id in ids
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
            .unwrap_or_default()
            .split_whitespace()
        {
            docker_quiet(&["rm", "-f", id]);
        }
        let nets = Command::new("docker")
            .args(["network", "ls", "-q", "--filter", &filter])
            .output();
        for id in nets
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
            .unwrap_or_default()
            .split_whitespace()
        {
            docker_quiet(&["network", "rm", id]);
        }
    }
}

/// Waits until `container` accepts connections on `port`.
fn wait_listening(container: &str, port: u16) {
    let probe = format!("import socket; socket.create_connection(('127.0.0.1', {port}), 1)");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let ok = Command::new("docker")
            .args(["exec", container, "python3", "-c", &probe])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if ok {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{container} does not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The TLS test server: Python's http.server behind Python's ssl, on 443.
const TLS_SERVER: &str = "import http.server, ssl\n\
s = http.server.HTTPServer(('', 443), http.server.SimpleHTTPRequestHandler)\n\
c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n\
c.load_cert_chain('/srv/cert.pem', '/srv/key.pem')\n\
s.socket = c.wrap_socket(s.socket, server_side=True)\n\
s.serve_forever()\n";

/// A self-signed certificate for secure.test, made with openssl; returns its PEM.
fn make_cert(dir: &Path) -> String {
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=secure.test",
            "-addext",
            "subjectAltName=DNS:secure.test",
        ])
        .arg("-keyout")
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("cert.pem"))
        .output()
        .expect("these tests need openssl on PATH");
    assert!(
        status.status.success(),
        "openssl: {}",
        String::from_utf8_lossy(&status.stderr)
    );
    make_readable(&dir.join("key.pem"));
    std::fs::read_to_string(dir.join("cert.pem")).expect("cert")
}

fn make_readable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
}

/// hello.txt and a one-package index (PEP 503) with a tiny wheel, built here as a zip.
fn write_site(dir: &Path) {
    std::fs::write(dir.join("hello.txt"), "hello from the allowlist\n").unwrap();
    std::fs::write(dir.join("big.bin"), vec![b'x'; 1 << 20]).unwrap();
    let simple = dir.join("simple/tinypkg");
    std::fs::create_dir_all(&simple).unwrap();
    std::fs::create_dir_all(dir.join("packages")).unwrap();
    let wheel = "tinypkg-1.0-py3-none-any.whl";
    std::fs::write(
        simple.join("index.html"),
        format!("<html><body><a href=\"/packages/{wheel}\">{wheel}</a></body></html>\n"),
    )
    .unwrap();
    let status = Command::new("python3")
        .args(["-c", WHEEL_SCRIPT])
        .arg(dir.join("packages").join(wheel))
        .status()
        .expect("python3");
    assert!(status.success(), "building the test wheel");
    write_compiled_package(dir);
}

/// `fastmod`, a wheel whose module is a compiled C extension (built here with the host's
/// gcc against its Python 3.11 headers: the sandbox's Python is 3.11 too), in the index.
fn write_compiled_package(dir: &Path) {
    let build = tempfile::tempdir().unwrap();
    std::fs::write(build.path().join("fastmod.c"), FASTMOD_C).unwrap();
    let status = Command::new("python3")
        .args(["-c", COMPILED_WHEEL_SCRIPT])
        .arg(build.path())
        .arg(dir.join("packages"))
        .status()
        .expect("python3");
    assert!(
        status.success(),
        "building the compiled test wheel (needs gcc)"
    );
    let simple = dir.join("simple/fastmod");
    std::fs::create_dir_all(&simple).unwrap();
    let wheel = "fastmod-1.0-cp311-cp311-linux_x86_64.whl";
    std::fs::write(
        simple.join("index.html"),
        format!("<html><body><a href=\"/packages/{wheel}\">{wheel}</a></body></html>\n"),
    )
    .unwrap();
}

const FASTMOD_C: &str = r#"
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(6 * 7); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, "The answer."}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fastmod", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fastmod(void) { return PyModule_Create(&module); }
"#;

/// Compiles argv[1]/fastmod.c and writes the fastmod wheel into argv[2].
const COMPILED_WHEEL_SCRIPT: &str = r#"
import base64, hashlib, os, subprocess, sys, sysconfig, zipfile
build, out = sys.argv[1], sys.argv[2]
so = "fastmod.cpython-311-x86_64-linux-gnu.so"
subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-I", sysconfig.get_paths()["include"],
                os.path.join(build, "fastmod.c"), "-o", os.path.join(build, so)], check=True)
files = {
    so: open(os.path.join(build, so), "rb").read(),
    "fastmod-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: fastmod\nVersion: 1.0\n",
    "fastmod-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: cordon-tests\nRoot-Is-Purelib: false\nTag: cp311-cp311-linux_x86_64\n",
}
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data in files.items())
record += "fastmod-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(os.path.join(out, "fastmod-1.0-cp311-cp311-linux_x86_64.whl"), "w") as wheel:
    for name, data in files.items():
        wheel.writestr(name, data)
    wheel.writestr("fastmod-1.0.dist-info/RECORD", record)
"#;

/// Writes a minimal wheel of `tinypkg` (VALUE = 42) to argv[1]; a wheel is a zip.
const WHEEL_SCRIPT: &str = r#"
import base64, hashlib, sys, zipfile
files = {
    "tinypkg/__init__.py": "VALUE = 42\n",
    "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: cordon-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data.encode()).digest()).rstrip(b"=").decode()
record = "".join(f"{name},{digest(data)},{len(data)}\n" for name, data in files.items())
record += "tinypkg-1.0.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as wheel:
    for name, data in files.items():
        wheel.writestr(name, data)
    wheel.writestr("tinypkg-1.0.dist-info/RECORD", record)
"#;

/// A trusted request asking for `network`.
fn with_network(code: &str, network: Option<&str>) -> ExecRequest {
    ExecRequest {
        network: network.map(str::to_string),
        ..request(code, "trusted")
    }
}

/// The JSON object the program printed last.
fn printed(result: &ExecResult) -> Value {
    let line = result.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|_| {
        panic!(
            "no JSON from the program: status {:?} stdout {:?} stderr {:?}",
            result.status, result.stdout, result.stderr
        )
    })
}

/// The request's `network_connection` audit bodies, waiting for `count` of them.
fn connections(node: &Node, request_id: &str, count: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found: Vec<Value> = audit_entries(&node.audit_dir(), request_id)
            .into_iter()
            .filter(|e| e.kind == "network_connection")
            .map(|e| e.body)
            .collect();
        if found.len() >= count || Instant::now() > deadline {
            return found;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn network_violations(entries: &[StoredEntry]) -> Vec<&Value> {
    entries
        .iter()
        .filter(|e| e.kind == "violation" && e.body["violation"]["kind"] == "network")
        .map(|e| &e.body)
        .collect()
}

/// The one connection entry matching `pick`, or a failure listing them all.
fn find<'a>(all: &'a [Value], what: &str, pick: impl Fn(&Value) -> bool) -> &'a Value {
    all.iter()
        .find(|c| pick(c))
        .unwrap_or_else(|| panic!("no audit entry for {what} among {all:#?}"))
}

async fn run_with_id(
    client: &cordon::client::Client,
    request: &ExecRequest,
) -> (String, ExecResult) {
    let id = cordon::client::Client::new_request_id();
    let result = client
        .run(&id, request, Duration::from_secs(150))
        .await
        .expect("a result");
    (id, result)
}

const ALLOWED: &str = r#"
import json, ssl, subprocess, sys, urllib.request
out = {}
out["get"] = urllib.request.urlopen("http://web.test/hello.txt", timeout=20).read().decode()
ctx = ssl.create_default_context(cadata="""CERT_PEM""")
out["https"] = urllib.request.urlopen("https://secure.test/hello.txt", context=ctx, timeout=20).read().decode()
pip = subprocess.run([sys.executable, "-m", "pip", "install", "--index-url", "http://web.test/simple/",
    "--trusted-host", "web.test", "--target", "/work/lib", "tinypkg"], capture_output=True, text=True, timeout=100)
out["pip"] = pip.returncode
out["pip_err"] = pip.stderr[-1500:]
sys.path.insert(0, "/work/lib")
import tinypkg
out["value"] = tinypkg.VALUE
print(json.dumps(out))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowlisted_fetches_work_through_the_proxy_and_are_audited() {
    let world = World::start();
    let nats = Nats::start();
    let mut leftovers = Leftovers(None);
    let mut node = Node::up(&nats, "netallow", &world.config());
    leftovers.0 = Some(node.host.clone());
    let client = client(&nats).await;
    let (id, result) = run_with_id(
        &client,
        &with_network(&world.code(ALLOWED, 0), Some("allowlist")),
    )
    .await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    let out = printed(&result);
    assert_eq!(out["get"], "hello from the allowlist\n");
    assert_eq!(
        out["https"], "hello from the allowlist\n",
        "TLS through a CONNECT tunnel"
    );
    assert_eq!(out["pip"], 0, "pip install: {}", out["pip_err"]);
    assert_eq!(out["value"], 42, "the package pip installed imports");
    assert_eq!(
        result.limits.as_ref().unwrap().network.as_str(),
        "allowlist"
    );

    let seen = connections(&node, &id, 4);
    let get = find(&seen, "the GET", |c| {
        c["method"] == "GET" && c["host"] == "web.test" && c["allowed"] == true
    });
    assert!(get["bytes_received"].as_u64().unwrap() > 0, "{get}");
    assert_eq!(get["address"], world.web_ip.as_str());
    let tunnel = find(&seen, "the tunnel", |c| {
        c["method"] == "CONNECT" && c["host"] == "secure.test"
    });
    assert_eq!(tunnel["allowed"], true, "{tunnel}");
    assert_eq!(tunnel["port"], 443);
    find(&seen, "pip's download of the wheel", |c| {
        c["method"] == "GET"
            && c["allowed"] == true
            && c["bytes_received"].as_u64().unwrap_or(0) > 500
    });
    let entries = audit_entries(&node.audit_dir(), &id);
    assert!(
        network_violations(&entries).is_empty(),
        "nothing was denied: {seen:#?}"
    );

    assert!(node.stop().success(), "cordon stops cleanly");
    assert_no_containers_within(&node.host, Duration::from_secs(5));
    assert!(
        networks_of(&node.host).is_empty(),
        "request networks left: {:?}",
        networks_of(&node.host)
    );
}

const BYPASSES: &str = r#"
import json, os, socket, ssl, urllib.error, urllib.request
res = {}
def http(name, url, data=None):
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=20).read()
        res[name] = "ok"
    except urllib.error.HTTPError as e:
        res[name] = e.code
    except Exception as e:
        res[name] = "error: " + type(e).__name__
http("post", "http://web.test/hello.txt", b"x=1")
http("unlisted", "http://unlisted.test/")
http("direct_ip", "http://WEB_IP/hello.txt")
http("private", "http://INTERNAL_NAME/hello.txt")
proxy_host, proxy_port = os.environ["HTTP_PROXY"].rsplit("/", 1)[1].split(":")
try:
    s = socket.create_connection((proxy_host, int(proxy_port)), timeout=20)
    s.sendall(b"CONNECT secure.test:443 HTTP/1.1\r\nHost: secure.test:443\r\n\r\n")
    s.recv(1024)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    t = ctx.wrap_socket(s, server_hostname="evil.test")
    t.sendall(b"GET /hello.txt HTTP/1.1\r\nHost: secure.test\r\n\r\n")
    res["sni"] = "ok: " + t.recv(100).decode(errors="replace")
except Exception as e:
    res["sni"] = "error: " + type(e).__name__
for name in ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"]:
    os.environ.pop(name, None)
def tcp(name, address):
    try:
        socket.create_connection(address, timeout=3).close()
        res[name] = "connected"
    except Exception as e:
        res[name] = "error: " + type(e).__name__
# The sandbox network's gateway is its first address (Docker's rule): found from the
# sandbox's own address on the way to the proxy.
probe = socket.create_connection((proxy_host, int(proxy_port)), timeout=20)
gateway = probe.getsockname()[0].rsplit(".", 1)[0] + ".1"
probe.close()
tcp("direct_web", ("WEB_IP", 80))
tcp("own_gateway", (gateway, LISTENER_PORT))
tcp("docker0", ("172.17.0.1", LISTENER_PORT))
tcp("upstream_gateway", ("UPSTREAM_GATEWAY", LISTENER_PORT))
tcp("proxy_elsewhere", (proxy_host, 22))
try:
    socket.getaddrinfo("web.test", 80)
    res["dns"] = "resolved"
except Exception as e:
    res["dns"] = "error: " + type(e).__name__
res["ipv6"] = open("/proc/net/if_inet6").read()
try:
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open("http://web.test/hello.txt", timeout=5)
    res["no_proxy"] = "ok"
except Exception as e:
    res["no_proxy"] = "error: " + type(e).__name__
print(json.dumps(res))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bypass_is_refused_and_audited_as_a_network_violation() {
    let world = World::start();
    // Listens on every host address: the sandbox must not reach it through any of them.
    let host_listener = TcpListener::bind("0.0.0.0:0").expect("host listener");
    host_listener.set_nonblocking(true).unwrap();
    let listener_port = host_listener.local_addr().unwrap().port();
    let nats = Nats::start();
    let mut leftovers = Leftovers(None);
    // The program reads /proc/net/if_inet6, which the Assessor rates HIGH (kernel state):
    // this node lets HIGH code keep the network it asks for, so the sandbox is tested.
    let config = world.config_with("force_none_at = \"BLOCKED\"");
    let mut node = Node::up(&nats, "netdeny", &config);
    leftovers.0 = Some(node.host.clone());
    let client = client(&nats).await;
    let code = world.code(BYPASSES, listener_port);
    let (id, result) = run_with_id(&client, &with_network(&code, Some("allowlist"))).await;
    assert_eq!(
        result.status,
        Status::Completed,
        "a denial refuses the connection, not the run: {result:?}"
    );
    let out = printed(&result);
    for refused in ["post", "unlisted", "direct_ip", "private"] {
        assert_eq!(out[refused], 403, "{refused}: {out}");
    }
    for failed in [
        "sni",
        "direct_web",
        "own_gateway",
        "docker0",
        "upstream_gateway",
        "proxy_elsewhere",
        "dns",
        "no_proxy",
    ] {
        let text = out[failed].as_str().unwrap_or_default();
        assert!(text.starts_with("error"), "{failed} should fail: {out}");
    }
    assert_eq!(out["ipv6"], "", "no IPv6 address at all: {out}");
    assert!(
        matches!(host_listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "nothing from the sandbox reached the host"
    );

    let seen = connections(&node, &id, 5);
    let denied = |what: &str, method: &str, host: &str, why: &str| {
        let entry = find(&seen, what, |c| c["method"] == method && c["host"] == host);
        assert_eq!(entry["allowed"], false, "{what}: {entry}");
        let reason = entry["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{what}: {reason}");
    };
    denied("the POST", "POST", "", "POST is not allowed");
    denied(
        "the unlisted name",
        "GET",
        "unlisted.test",
        "not on the allowlist",
    );
    denied("the direct IP", "GET", &world.web_ip, "direct IP address");
    denied(
        "the private address",
        "GET",
        &world.internal_name,
        "private address",
    );
    denied(
        "the mismatched SNI",
        "CONNECT",
        "secure.test",
        "does not match",
    );
    let entries = audit_entries(&node.audit_dir(), &id);
    let violations = network_violations(&entries);
    assert!(
        violations.len() >= 5,
        "each denial is a network violation: {violations:#?}"
    );
    // The result itself names the refused hosts, not only the audit log.
    let named = |host: &str, why: &str| {
        result
            .network_denied
            .iter()
            .any(|d| d.host == host && d.reason.contains(why))
    };
    assert!(
        named("unlisted.test", "not on the allowlist"),
        "{:?}",
        result.network_denied
    );
    assert!(
        named(&world.internal_name, "private address"),
        "{:?}",
        result.network_denied
    );

    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(5));
    assert!(networks_of(&node.host).is_empty());
}

/// Imports the compiled package installed for the request, and tries to write where it
/// was installed.
const USES_FASTMOD: &str = r#"
import json, fastmod
out = {"answer": fastmod.answer(), "from": fastmod.__file__}
try:
    open("/packages/planted.py", "w").write("x = 1")
    out["wrote"] = True
except OSError as e:
    out["wrote"] = type(e).__name__
print(json.dumps(out))
"#;

/// A request's packages are installed before its code from the index, through the proxy,
/// as binary wheels (one with a compiled extension) into a directory the program imports
/// from and cannot write; the install is audited; without network it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requests_compiled_package_is_installed_through_the_proxy_and_imported() {
    let world = World::start();
    let nats = Nats::start();
    let mut leftovers = Leftovers(None);
    let config = world.config_with("package_index = \"http://web.test/simple/\"");
    let mut node = Node::up(&nats, "netpkg", &config);
    leftovers.0 = Some(node.host.clone());
    let client = client(&nats).await;
    let request = ExecRequest {
        packages: Some(vec!["fastmod==1.0".into()]),
        ..with_network(USES_FASTMOD, Some("allowlist"))
    };
    let (id, result) = run_with_id(&client, &request).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    let out = printed(&result);
    assert_eq!(out["answer"], 42, "{out}");
    assert!(
        out["from"]
            .as_str()
            .unwrap_or_default()
            .starts_with("/packages/"),
        "{out}"
    );
    assert_eq!(
        out["wrote"], "PermissionError",
        "the program cannot write its packages: {out}"
    );
    let entries = audit_entries(&node.audit_dir(), &id);
    let install = entries
        .iter()
        .find(|e| e.kind == "packages_installed")
        .expect("the install is audited");
    assert_eq!(install.body["exit_code"], 0, "{:?}", install.body);
    assert_eq!(install.body["requirements"][0], "fastmod==1.0");
    let seen = connections(&node, &id, 2);
    find(&seen, "pip's download of the compiled wheel", |c| {
        c["host"] == "web.test" && c["allowed"] == true
    });

    let without_network = ExecRequest {
        packages: Some(vec!["fastmod".into()]),
        ..with_network(USES_FASTMOD, None)
    };
    let refused = run_request(&client, &without_network).await;
    assert_eq!(refused.status, Status::Failed, "{refused:?}");
    assert_eq!(refused.error.unwrap().code, "packages_need_network");
    assert!(node.stop().success());
    assert_no_containers_within(&node.host, Duration::from_secs(5));
}

const NOTHING: &str = r#"
import json, socket
res = {"interfaces": [name for _, name in socket.if_nameindex()]}
for name, address in [("web", ("WEB_IP", 80)), ("docker0", ("172.17.0.1", 22))]:
    try:
        socket.create_connection(address, timeout=3).close()
        res[name] = "connected"
    except Exception as e:
        res[name] = "error: " + type(e).__name__
try:
    socket.getaddrinfo("web.test", 80)
    res["dns"] = "resolved"
except Exception as e:
    res["dns"] = "error: " + type(e).__name__
print(json.dumps(res))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_network_nothing_is_reachable_and_untrusted_code_cannot_ask_for_it() {
    let world = World::start();
    let nats = Nats::start();
    let mut leftovers = Leftovers(None);
    let node = Node::up(&nats, "netnone", &world.config());
    leftovers.0 = Some(node.host.clone());
    let client = client(&nats).await;
    let (_, result) = run_with_id(&client, &with_network(&world.code(NOTHING, 0), None)).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    let out = printed(&result);
    assert_eq!(out["interfaces"], serde_json::json!(["lo"]), "{out}");
    for failed in ["web", "docker0", "dns"] {
        assert!(
            out[failed]
                .as_str()
                .unwrap_or_default()
                .starts_with("error"),
            "{out}"
        );
    }

    let untrusted = ExecRequest {
        network: Some("allowlist".into()),
        ..request("print(1)", "untrusted")
    };
    let (id, rejected) = run_with_id(&client, &untrusted).await;
    assert_eq!(rejected.status, Status::Rejected);
    let error = rejected.error.expect("an error");
    assert_eq!(error.code, "network_not_allowed");
    assert!(error.message.contains("untrusted"), "{}", error.message);
    let kinds = audit_kinds(&node.audit_dir(), &id);
    assert!(kinds.contains(&"rejected".to_string()), "{kinds:?}");
    assert!(
        networks_of(&node.host).is_empty(),
        "no network was made for either"
    );
}

/// Request networks Docker still has for `host`.
fn networks_of(host: &str) -> Vec<String> {
    let filter = format!("label=cordon.host={host}");
    let names = docker_cli(&["network", "ls", "-q", "--filter", &filter]);
    names.split_whitespace().map(str::to_string).collect()
}

const CAPPED: &str = r#"
import json, urllib.error, urllib.request
res = []
for path in ["hello.txt", "hello.txt", "big.bin", "hello.txt", "hello.txt"]:
    try:
        body = urllib.request.urlopen("http://web.test/" + path, timeout=20).read()
        res.append(len(body))
    except urllib.error.HTTPError as e:
        res.append(e.code)
    except Exception as e:
        res.append("error: " + type(e).__name__)
print(json.dumps(res))
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bytes_and_connections_are_capped_per_request() {
    let world = World::start();
    let nats = Nats::start();
    let mut leftovers = Leftovers(None);
    let config = world.config_with("max_bytes = 100000\nmax_connections = 3");
    let node = Node::up(&nats, "netcaps", &config);
    leftovers.0 = Some(node.host.clone());
    let client = client(&nats).await;
    let (id, result) = run_with_id(&client, &with_network(CAPPED, Some("allowlist"))).await;
    assert_eq!(result.status, Status::Completed, "{result:?}");
    let out = printed(&result);
    assert_eq!(out[0], 25, "{out}");
    assert_eq!(out[1], 25, "{out}");
    assert!(
        !matches!(out[2].as_u64(), Some(n) if n >= 1 << 20),
        "the big file is cut: {out}"
    );
    assert_eq!(out[3], 403, "past the connection cap: {out}");
    assert_eq!(out[4], 403, "past the connection cap: {out}");

    let seen = connections(&node, &id, 4);
    let big = find(&seen, "the capped download", |c| {
        c["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("byte cap")
    });
    assert_eq!(big["allowed"], false, "{big}");
    assert!(big["bytes_received"].as_u64().unwrap() <= 100_000, "{big}");
    let over = find(&seen, "the refused attempts", |c| {
        c["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("2 more connection attempts refused")
    });
    assert_eq!(over["allowed"], false);
    assert_eq!(seen.len(), 4, "three attempts and one summary: {seen:#?}");
    let entries = audit_entries(&node.audit_dir(), &id);
    assert_eq!(
        network_violations(&entries).len(),
        2,
        "the cut and the refused ones"
    );
}
