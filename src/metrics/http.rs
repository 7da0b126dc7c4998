//! The `/metrics` endpoint: a minimal HTTP/1.1 responder on a TCP listener (Prometheus
//! scrapes plain GETs). Queue depths are read from JetStream at scrape time. Requests are
//! bounded (first 8 KiB read, 5 s to send them), so a slow or hostile peer costs little.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::registry::Registry;
use crate::bus::streams::StreamKind;
use crate::bus::Bus;
use crate::shutdown::Shutdown;

const STREAMS: [StreamKind; 4] = [
    StreamKind::Submit,
    StreamKind::Assessed,
    StreamKind::Scheduled,
    StreamKind::Audit,
];

/// Serves `/metrics` on `listener` until shutdown.
pub async fn serve(
    listener: TcpListener,
    bus: Bus,
    registry: Arc<Mutex<Registry>>,
    mut shutdown: Shutdown,
) {
    loop {
        let (socket, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => { tracing::warn!(%error, "metrics accept failed"); continue; }
            },
            _ = shutdown.wait() => return,
        };
        let (bus, registry) = (bus.clone(), registry.clone());
        tokio::spawn(async move {
            let _ =
                tokio::time::timeout(Duration::from_secs(5), answer(socket, &bus, &registry)).await;
        });
    }
}

async fn answer(
    mut socket: TcpStream,
    bus: &Bus,
    registry: &Mutex<Registry>,
) -> std::io::Result<()> {
    let head = read_request_head(&mut socket).await?;
    let wants_metrics = head.starts_with(b"GET /metrics ") || head.starts_with(b"GET /metrics?");
    let (status, body) = if wants_metrics {
        let depths = queue_depths(bus).await;
        let mut snapshot = registry.lock().unwrap_or_else(|p| p.into_inner()).clone();
        snapshot.queue_depth = depths;
        ("200 OK", snapshot.render())
    } else {
        (
            "404 Not Found",
            "only /metrics is served here\n".to_string(),
        )
    };
    let response_head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(response_head.as_bytes()).await?;
    socket.write_all(body.as_bytes()).await?;
    socket.shutdown().await
}

/// Reads up to the end of the request head (a blank line), at most 8 KiB.
async fn read_request_head(socket: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 1024];
    while head.len() < 8192 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = socket.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..read]);
    }
    Ok(head)
}

async fn queue_depths(bus: &Bus) -> std::collections::BTreeMap<String, u64> {
    let mut depths = std::collections::BTreeMap::new();
    for kind in STREAMS {
        let name = bus.stream_name(kind).to_string();
        if let Ok(mut stream) = bus.js.get_stream(&name).await {
            if let Ok(info) = stream.info().await {
                depths.insert(name, info.state.messages);
            }
        }
    }
    depths
}
