//! The egress proxy itself, `cordon proxy-worker`: runs in the proxy container, attached
//! to the upstream network and to each allowlist request's private internal network.
//! Reads grants on stdin (`control`), reports every connection attempt on stdout, and
//! exits when stdin closes (its supervisor is gone). Per connection: read the head
//! (capped, timed), refuse or allow by the grant's `policy`, resolve the name itself,
//! then relay one plain HTTP request or one SNI-checked TLS tunnel, capping bytes.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use super::control::{Attempt, Command, Report, MAX_LINE_BYTES};
use super::policy::{check_head, check_sni, choose_address, pinned_address, EgressPolicy};
use super::request::{head_end, parse_head, Method, RequestHead, MAX_HEAD_BYTES};
use super::sni::{record_length, server_name, RECORD_HEADER};

/// Time a client gets to send its request head or its ClientHello.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Time for a name lookup or an upstream connect.
const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(10);
/// A relay with no bytes either way for this long is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Time a revoke waits for the grant's connections to report.
const REVOKE_WAIT: Duration = Duration::from_secs(3);
/// Reports waiting for stdout; a full queue slows connections down, never grows.
const REPORT_QUEUE: usize = 1024;
/// Pause after a failed accept (out of descriptors), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// One request's grant and its running totals.
struct Grant {
    key: String,
    policy: EgressPolicy,
    attempts: AtomicU64,
    bytes: AtomicU64,
    live: AtomicU32,
    revoked: watch::Sender<bool>,
}

type Grants = Arc<Mutex<HashMap<IpAddr, Arc<Grant>>>>;

/// Runs the worker until stdin closes.
pub async fn run(port: u16) -> std::io::Result<()> {
    let listener = TcpListener::bind(("0.0.0.0", port)).await?;
    // The sandboxes' only name server: bound before the worker says it is ready, so no
    // sandbox ever looks a name up with nothing answering.
    let (dns_udp, dns_tcp) = super::dns::bind().await?;
    tokio::spawn(super::dns::serve_udp(dns_udp));
    tokio::spawn(super::dns::serve_tcp(dns_tcp));
    let grants: Grants = Arc::default();
    let (reports, outgoing) = mpsc::channel(REPORT_QUEUE);
    tokio::spawn(write_reports(outgoing));
    let _ = reports.send(Report::Ready).await;
    let control = tokio::spawn(read_commands(grants.clone(), reports.clone()));
    tokio::pin!(control);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => dispatch(stream, &grants, &reports),
                // Out of descriptors, most likely: back off instead of spinning on a
                // listener that stays ready.
                Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
            },
            _ = &mut control => return Ok(()),
        }
    }
}

fn lock(grants: &Grants) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Arc<Grant>>> {
    grants
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Hands a connection to its grant, found by the local address it arrived at; a
/// connection to an address with no grant (e.g. from the upstream side) is dropped.
fn dispatch(stream: TcpStream, grants: &Grants, reports: &mpsc::Sender<Report>) {
    let Ok(local) = stream.local_addr() else {
        return;
    };
    let Some(grant) = lock(grants).get(&local.ip()).cloned() else {
        return;
    };
    let reports = reports.clone();
    tokio::spawn(async move {
        grant.live.fetch_add(1, Ordering::SeqCst);
        let attempt = serve(stream, &grant).await;
        if let Some(attempt) = attempt {
            let key = grant.key.clone();
            let _ = reports.send(Report::Connection { key, attempt }).await;
        }
        grant.live.fetch_sub(1, Ordering::SeqCst);
    });
}

async fn write_reports(mut outgoing: mpsc::Receiver<Report>) {
    let mut stdout = tokio::io::stdout();
    while let Some(report) = outgoing.recv().await {
        if stdout.write_all(report.to_line().as_bytes()).await.is_err()
            || stdout.flush().await.is_err()
        {
            return;
        }
    }
}

/// Applies commands from stdin until it closes.
async fn read_commands(grants: Grants, reports: mpsc::Sender<Report>) {
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut stdin)
            .take(MAX_LINE_BYTES as u64)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) if !line.ends_with(b"\n") => {
                tracing::error!("control line too long; stopping");
                return;
            }
            Ok(_) => {}
        }
        match serde_json::from_slice::<Command>(&line) {
            Ok(command) => apply(command, &grants, &reports).await,
            Err(error) => tracing::warn!(%error, "ignoring a bad control line"),
        }
    }
}

async fn apply(command: Command, grants: &Grants, reports: &mpsc::Sender<Report>) {
    match command {
        Command::Grant { key, policy } => {
            let Ok(address) = key.parse::<IpAddr>() else {
                tracing::warn!(key, "grant key is not an address");
                return;
            };
            let grant = Grant {
                key: key.clone(),
                policy,
                attempts: AtomicU64::new(0),
                bytes: AtomicU64::new(0),
                live: AtomicU32::new(0),
                revoked: watch::channel(false).0,
            };
            lock(grants).insert(address, Arc::new(grant));
            let _ = reports.send(Report::Granted { key }).await;
        }
        Command::Revoke { key } => {
            let grant = key
                .parse::<IpAddr>()
                .ok()
                .and_then(|a| lock(grants).remove(&a));
            if let Some(grant) = grant {
                revoke(&grant, reports).await;
            }
            let _ = reports.send(Report::Revoked { key }).await;
        }
    }
}

/// Cuts the grant's connections, waits for them to report, and reports the attempts the
/// connection cap refused without a report each.
async fn revoke(grant: &Grant, reports: &mpsc::Sender<Report>) {
    grant.revoked.send_replace(true);
    let deadline = tokio::time::Instant::now() + REVOKE_WAIT;
    while grant.live.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let attempts = grant.attempts.load(Ordering::SeqCst);
    let over = attempts.saturating_sub(u64::from(grant.policy.max_connections));
    if over > 0 {
        let attempt = Attempt {
            method: "?".into(),
            reason: format!(
                "{over} more connection attempts refused: the cap of {} was reached",
                grant.policy.max_connections
            ),
            ..Attempt::default()
        };
        let key = grant.key.clone();
        let _ = reports.send(Report::Connection { key, attempt }).await;
    }
}

/// Serves one connection; `None` when it is past the connection cap (counted, not reported).
async fn serve(mut client: TcpStream, grant: &Grant) -> Option<Attempt> {
    let number = grant
        .attempts
        .fetch_add(1, Ordering::SeqCst)
        .saturating_add(1);
    if number > u64::from(grant.policy.max_connections) {
        let _ = client.write_all(&denial("connection cap reached")).await;
        return None;
    }
    let mut attempt = Attempt {
        method: "?".into(),
        ..Attempt::default()
    };
    let mut revoked = grant.revoked.subscribe();
    let outcome = tokio::select! {
        outcome = handle(&mut client, grant, &mut attempt) => outcome,
        _ = revoked.wait_for(|r| *r) => Err(Refusal::Cut("the request ended".into())),
    };
    attempt.reason = match outcome {
        Ok(ending) => ending,
        Err(Refusal::Denied(reason)) => {
            let _ = client.write_all(&denial(&reason)).await;
            attempt.allowed = false;
            reason
        }
        Err(Refusal::DeniedMidway(reason)) => {
            attempt.allowed = false;
            reason
        }
        Err(Refusal::Cut(reason)) => reason,
    };
    Some(attempt)
}

/// How a connection ended early. `attempt.allowed` is set once relaying starts; a
/// denial clears it, a cut keeps it.
enum Refusal {
    /// Refused before anything was relayed: answered with 403.
    Denied(String),
    /// Refused inside a tunnel or past the byte cap: nothing can be answered any more.
    DeniedMidway(String),
    /// Ended without a policy decision (the request ended, idle, a side went away).
    Cut(String),
}

fn denial(reason: &str) -> Vec<u8> {
    let body = format!("cordon egress proxy: {reason}\n");
    format!(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

async fn handle(
    client: &mut TcpStream,
    grant: &Grant,
    attempt: &mut Attempt,
) -> Result<String, Refusal> {
    let (head, early) = read_head(client).await?;
    let head = parse_head(&head).map_err(|e| {
        attempt.method = e.method.clone().unwrap_or_else(|| "?".into());
        Refusal::Denied(e.why)
    })?;
    attempt.method = head.method.as_str().to_string();
    attempt.host = head.target.host.clone();
    attempt.port = head.target.port;
    check_head(&grant.policy, &head).map_err(Refusal::Denied)?;
    let address = resolve(&grant.policy, &head.target.host, head.target.port).await?;
    let mut upstream = connect(address).await?;
    attempt.address = Some(address.ip().to_string());
    match head.method {
        Method::Connect => tunnel(client, &mut upstream, &head, early, grant, attempt).await,
        Method::Get | Method::Head => forward(client, &mut upstream, &head, grant, attempt).await,
    }
}

/// Reads up to the blank line; returns the head and any bytes read past it.
async fn read_head(client: &mut TcpStream) -> Result<(Vec<u8>, Vec<u8>), Refusal> {
    let mut buffer = Vec::with_capacity(1024);
    let read = async {
        loop {
            if let Some(end) = head_end(&buffer) {
                let early = buffer.split_off(end);
                return Ok((buffer, early));
            }
            if buffer.len() >= MAX_HEAD_BYTES {
                return Err(Refusal::Denied("request head too large".into()));
            }
            let mut chunk = [0u8; 2048];
            let room = (MAX_HEAD_BYTES + 4 - buffer.len()).min(chunk.len());
            match client.read(&mut chunk[..room]).await {
                Ok(0) | Err(_) => {
                    return Err(Refusal::Denied("connection closed before a request".into()))
                }
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
    };
    tokio::time::timeout(HEAD_TIMEOUT, read)
        .await
        .map_err(|_| Refusal::Denied("no request head in time".into()))?
}

/// The pinned address, or the system resolver's answers (all of them checked).
async fn resolve(policy: &EgressPolicy, host: &str, port: u16) -> Result<SocketAddr, Refusal> {
    if let Some(pinned) = pinned_address(policy, host) {
        return Ok(SocketAddr::new(pinned, port));
    }
    let lookup =
        tokio::time::timeout(UPSTREAM_TIMEOUT, tokio::net::lookup_host((host, port))).await;
    let answers: Vec<IpAddr> = match lookup {
        Ok(Ok(answers)) => answers.map(|a| a.ip()).collect(),
        Ok(Err(error)) => {
            return Err(Refusal::Denied(format!(
                "host {host} does not resolve: {error}"
            )))
        }
        Err(_) => return Err(Refusal::Denied(format!("resolving {host} timed out"))),
    };
    let chosen = choose_address(host, &answers).map_err(Refusal::Denied)?;
    Ok(SocketAddr::new(chosen, port))
}

async fn connect(address: SocketAddr) -> Result<TcpStream, Refusal> {
    match tokio::time::timeout(UPSTREAM_TIMEOUT, TcpStream::connect(address)).await {
        Ok(Ok(stream)) => Ok(stream),
        Ok(Err(error)) => Err(Refusal::Denied(format!(
            "cannot connect to {address}: {error}"
        ))),
        Err(_) => Err(Refusal::Denied(format!(
            "connecting to {address} timed out"
        ))),
    }
}

/// CONNECT: answer 200, read the ClientHello, check its name, then relay both ways.
async fn tunnel(
    client: &mut TcpStream,
    upstream: &mut TcpStream,
    head: &RequestHead,
    early: Vec<u8>,
    grant: &Grant,
    attempt: &mut Attempt,
) -> Result<String, Refusal> {
    client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .map_err(|_| Refusal::Cut("client went away".into()))?;
    let hello = tokio::time::timeout(HEAD_TIMEOUT, read_client_hello(client, early))
        .await
        .map_err(|_| Refusal::DeniedMidway("no TLS ClientHello in time".into()))??;
    let sni =
        server_name(&hello[RECORD_HEADER..]).map_err(|e| Refusal::DeniedMidway(e.to_string()))?;
    check_sni(&head.target.host, &sni).map_err(Refusal::DeniedMidway)?;
    attempt.allowed = true;
    upstream
        .write_all(&hello)
        .await
        .map_err(|_| Refusal::Cut("server went away".into()))?;
    attempt.bytes_sent += hello.len() as u64;
    add_bytes(grant, hello.len() as u64)?;
    relay(client, upstream, grant, attempt).await
}

/// The first TLS record, header included (`early` holds bytes already read).
async fn read_client_hello(
    client: &mut TcpStream,
    mut record: Vec<u8>,
) -> Result<Vec<u8>, Refusal> {
    let cut = |e: super::sni::SniError| Refusal::DeniedMidway(e.to_string());
    fill(client, &mut record, RECORD_HEADER).await?;
    let mut header = [0u8; RECORD_HEADER];
    header.copy_from_slice(&record[..RECORD_HEADER]);
    let length = record_length(&header).map_err(cut)?;
    fill(client, &mut record, RECORD_HEADER + length).await?;
    if record.len() > RECORD_HEADER + length {
        return Err(Refusal::DeniedMidway(
            "data after the ClientHello before the server answered".into(),
        ));
    }
    Ok(record)
}

/// Reads until `buffer` holds `want` bytes (never more than that).
async fn fill(client: &mut TcpStream, buffer: &mut Vec<u8>, want: usize) -> Result<(), Refusal> {
    while buffer.len() < want {
        let mut chunk = vec![0u8; (want - buffer.len()).min(8192)];
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => {
                return Err(Refusal::Cut(
                    "connection closed during the TLS handshake".into(),
                ))
            }
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
    Ok(())
}

/// GET/HEAD: send a rebuilt head (origin form, own Host, no hop-by-hop headers,
/// `Connection: close`) and relay the response until the server closes.
async fn forward(
    client: &mut TcpStream,
    upstream: &mut TcpStream,
    head: &RequestHead,
    grant: &Grant,
    attempt: &mut Attempt,
) -> Result<String, Refusal> {
    let rebuilt = origin_request(head);
    // Nothing was relayed yet: a request past the byte cap can still be answered 403.
    add_bytes(grant, rebuilt.len() as u64).map_err(|refusal| match refusal {
        Refusal::DeniedMidway(reason) => Refusal::Denied(reason),
        other => other,
    })?;
    attempt.allowed = true;
    upstream
        .write_all(&rebuilt)
        .await
        .map_err(|_| Refusal::Denied("server went away".into()))?;
    attempt.bytes_sent += rebuilt.len() as u64;
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = tokio::time::timeout(IDLE_TIMEOUT, upstream.read(&mut buffer)).await;
        let n = match read {
            Ok(Ok(0)) => return Ok("completed".into()),
            Ok(Ok(n)) => n,
            Ok(Err(_)) => return Ok("server closed the connection".into()),
            Err(_) => return Err(Refusal::Cut("idle for too long".into())),
        };
        add_bytes(grant, n as u64)?;
        attempt.bytes_received += n as u64;
        if client.write_all(&buffer[..n]).await.is_err() {
            return Ok("client closed the connection".into());
        }
    }
}

/// Headers that concern one hop, or that cordon sets itself.
const DROPPED_HEADERS: [&str; 10] = [
    "host",
    "connection",
    "proxy-connection",
    "proxy-authorization",
    "keep-alive",
    "te",
    "trailer",
    "upgrade",
    "transfer-encoding",
    "content-length",
];

fn origin_request(head: &RequestHead) -> Vec<u8> {
    let mut out = format!(
        "{} {} HTTP/1.1\r\nHost: {}\r\n",
        head.method.as_str(),
        head.path,
        head.target.host
    );
    for (name, value) in &head.headers {
        if !DROPPED_HEADERS.iter().any(|d| d.eq_ignore_ascii_case(name)) {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    out.push_str("Connection: close\r\n\r\n");
    out.into_bytes()
}

/// Counts bytes against the grant's cap.
fn add_bytes(grant: &Grant, n: u64) -> Result<(), Refusal> {
    let total = grant.bytes.fetch_add(n, Ordering::SeqCst) + n;
    if total > grant.policy.max_bytes {
        return Err(Refusal::DeniedMidway(format!(
            "byte cap of {} reached; connection cut",
            grant.policy.max_bytes
        )));
    }
    Ok(())
}

/// Relays a tunnel both ways until either side closes, counting bytes.
async fn relay(
    client: &mut TcpStream,
    upstream: &mut TcpStream,
    grant: &Grant,
    attempt: &mut Attempt,
) -> Result<String, Refusal> {
    let (mut client_read, mut client_write) = client.split();
    let (mut up_read, mut up_write) = upstream.split();
    let mut to_server = vec![0u8; 16 * 1024];
    let mut to_client = vec![0u8; 16 * 1024];
    loop {
        let step = tokio::time::timeout(IDLE_TIMEOUT, async {
            tokio::select! {
                read = client_read.read(&mut to_server) => (true, read),
                read = up_read.read(&mut to_client) => (false, read),
            }
        })
        .await
        .map_err(|_| Refusal::Cut("idle for too long".into()))?;
        let n = match step {
            (_, Ok(0)) | (_, Err(_)) => return Ok("completed".into()),
            (_, Ok(n)) => n,
        };
        add_bytes(grant, n as u64)?;
        let written = if step.0 {
            attempt.bytes_sent += n as u64;
            up_write.write_all(&to_server[..n]).await
        } else {
            attempt.bytes_received += n as u64;
            client_write.write_all(&to_client[..n]).await
        };
        if written.is_err() {
            return Ok("completed".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forwarded_head_is_origin_form_with_cordons_own_hop_headers() {
        let head = parse_head(
            b"GET http://pypi.org/simple/ HTTP/1.1\r\nHost: evil.example\r\nProxy-Authorization: x\r\nUpgrade: websocket\r\nAccept: text/html\r\n\r\n",
        )
        .unwrap();
        let text = String::from_utf8(origin_request(&head)).unwrap();
        assert_eq!(
            text,
            "GET /simple/ HTTP/1.1\r\nHost: pypi.org\r\nAccept: text/html\r\nConnection: close\r\n\r\n"
        );
    }
}
