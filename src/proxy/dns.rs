//! The proxy's DNS responder: the only upstream name server an allowlist sandbox has.
//! Every query is answered at once with an authoritative NXDOMAIN and nothing is ever
//! forwarded, so Docker's embedded resolver on the request's network has nowhere to send
//! a name out (CVE-2024-29018 stays closed) and a lookup fails in milliseconds instead of
//! waiting on an address that may be a real machine. The sandbox needs no DNS: its proxy
//! is named by address and resolves allowlisted names itself. UDP and TCP, port 53.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::sync::Semaphore;

/// The port Docker's embedded resolver sends its upstream queries to (it cannot be changed).
pub const DNS_PORT: u16 = 53;
/// A DNS message header.
const HEADER_BYTES: usize = 12;
/// Largest query read; anything longer is not a single question and is dropped.
const MAX_QUERY_BYTES: usize = 4096;
/// Time a TCP client gets to send its query.
const TCP_TIMEOUT: Duration = Duration::from_secs(5);
/// TCP connections served at once; more wait for a slot.
const TCP_CONNECTIONS: usize = 64;

const RCODE_FORMERR: u8 = 1;
const RCODE_NXDOMAIN: u8 = 3;
const RCODE_NOTIMP: u8 = 4;
const FLAG_RESPONSE: u8 = 0x80;
const FLAG_AUTHORITATIVE: u8 = 0x04;
const FLAG_RECURSION_DESIRED: u8 = 0x01;

/// The reply to one message: its id and question echoed, flagged an authoritative
/// NXDOMAIN (Docker's resolver passes an authoritative NXDOMAIN on and asks no one
/// else). `None` for what must not be answered: a response (no loops) or a message
/// shorter than a header.
pub fn answer(message: &[u8]) -> Option<Vec<u8>> {
    if message.len() < HEADER_BYTES || message[2] & FLAG_RESPONSE != 0 {
        return None;
    }
    let opcode = (message[2] >> 3) & 0x0f;
    let questions = u16::from_be_bytes([message[4], message[5]]);
    let question = match (opcode, questions) {
        (0, 1) => question_end(message).map(|end| &message[HEADER_BYTES..end]),
        _ => None,
    };
    let rcode = match (opcode, question) {
        (0, Some(_)) => RCODE_NXDOMAIN,
        (0, None) => RCODE_FORMERR,
        _ => RCODE_NOTIMP,
    };
    let question = question.unwrap_or_default();
    let mut reply = Vec::with_capacity(HEADER_BYTES + question.len());
    reply.extend_from_slice(&message[..2]);
    reply.push(
        FLAG_RESPONSE | (opcode << 3) | FLAG_AUTHORITATIVE | (message[2] & FLAG_RECURSION_DESIRED),
    );
    reply.push(rcode);
    let count = u8::from(!question.is_empty());
    reply.extend_from_slice(&[0, count, 0, 0, 0, 0, 0, 0]);
    reply.extend_from_slice(question);
    Some(reply)
}

/// Where the single question ends: its name (plain labels, no compression) then type and
/// class.
fn question_end(message: &[u8]) -> Option<usize> {
    let mut at = HEADER_BYTES;
    loop {
        let label = *message.get(at)? as usize;
        at += 1;
        if label == 0 {
            break;
        }
        if label & 0xc0 != 0 {
            return None;
        }
        at += label;
    }
    let end = at + 4;
    (end <= message.len()).then_some(end)
}

/// Binds both sockets on every address of the proxy (each request network's `.2`).
pub async fn bind() -> std::io::Result<(UdpSocket, TcpListener)> {
    let address = SocketAddr::from(([0, 0, 0, 0], DNS_PORT));
    Ok((
        UdpSocket::bind(address).await?,
        TcpListener::bind(address).await?,
    ))
}

/// Answers UDP queries until the task is dropped.
pub async fn serve_udp(socket: UdpSocket) {
    let mut buffer = vec![0u8; MAX_QUERY_BYTES];
    loop {
        let Ok((n, from)) = socket.recv_from(&mut buffer).await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        if let Some(reply) = answer(&buffer[..n]) {
            let _ = socket.send_to(&reply, from).await;
        }
    }
}

/// Answers TCP queries (length-prefixed, one per connection) until the task is dropped.
pub async fn serve_tcp(listener: TcpListener) {
    let slots = Arc::new(Semaphore::new(TCP_CONNECTIONS));
    loop {
        let Ok(permit) = slots.clone().acquire_owned().await else {
            return;
        };
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(TCP_TIMEOUT, answer_tcp(stream)).await;
                    drop(permit);
                });
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

async fn answer_tcp(mut stream: TcpStream) -> std::io::Result<()> {
    let length = stream.read_u16().await? as usize;
    if length > MAX_QUERY_BYTES {
        return Ok(());
    }
    let mut message = vec![0u8; length];
    stream.read_exact(&mut message).await?;
    if let Some(reply) = answer(&message) {
        stream.write_u16(reply.len() as u16).await?;
        stream.write_all(&reply).await?;
    }
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query for `web.test`, type A, with recursion desired.
    fn query() -> Vec<u8> {
        let mut q = vec![0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0];
        q.extend_from_slice(b"\x03web\x04test\x00\x00\x01\x00\x01");
        q
    }

    #[test]
    fn a_query_gets_an_authoritative_nxdomain_with_its_question() {
        let reply = answer(&query()).unwrap();
        assert_eq!(&reply[..2], &[0xab, 0xcd], "the id is echoed");
        assert_eq!(reply[2], 0x80 | 0x04 | 0x01, "response, authoritative, RD");
        assert_eq!(reply[3] & 0x0f, RCODE_NXDOMAIN);
        assert_eq!(
            &reply[4..12],
            &[0, 1, 0, 0, 0, 0, 0, 0],
            "no answer records"
        );
        assert_eq!(&reply[12..], &query()[12..]);
    }

    #[test]
    fn responses_and_scraps_are_never_answered() {
        let mut response = query();
        response[2] |= 0x80;
        assert_eq!(answer(&response), None);
        assert_eq!(answer(&[0; 5]), None);
    }

    #[test]
    fn a_malformed_question_gets_formerr_and_other_opcodes_notimp() {
        let mut cut = query();
        cut.truncate(16);
        assert_eq!(answer(&cut).unwrap()[3], RCODE_FORMERR);
        let mut compressed = query();
        compressed[12] = 0xc0;
        assert_eq!(answer(&compressed).unwrap()[3], RCODE_FORMERR);
        let mut update = query();
        update[2] = 5 << 3;
        let reply = answer(&update).unwrap();
        assert_eq!(reply[3], RCODE_NOTIMP);
        assert_eq!(reply.len(), HEADER_BYTES);
    }
}
