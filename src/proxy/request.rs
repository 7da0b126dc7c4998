//! The HTTP/1.1 request head a sandbox sends the egress proxy, parsed by hand with hard
//! caps: the request line (`GET http://host/path HTTP/1.1`, `CONNECT host:443 HTTP/1.1`)
//! and header lines. Pure; `worker` reads the head (at most `MAX_HEAD_BYTES`) and calls
//! `parse_head`, then `policy` decides. Anything unusual is refused rather than guessed.

/// Longest request head (request line and headers) accepted.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Most header lines accepted.
pub const MAX_HEADERS: usize = 64;
/// Longest DNS name.
const MAX_HOST_CHARS: usize = 253;

/// The method of a request; anything else is refused at parse time with its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Head,
    Connect,
}

impl Method {
    pub fn as_str(&self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Connect => "CONNECT",
        }
    }
}

/// Where a request wants to go. `host` is lowercased with no trailing dot; an IP literal
/// is kept as written (without brackets) and flagged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub is_ip: bool,
}

/// A parsed request head.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    pub method: Method,
    pub target: Target,
    /// Origin-form path and query for GET/HEAD (`/simple/pkg/`); empty for CONNECT.
    pub path: String,
    /// Header lines as (name, value), in order.
    pub headers: Vec<(String, String)>,
}

/// Why a head was refused. `method` is set when the method was read (for the audit entry).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{why}")]
pub struct HeadError {
    pub method: Option<String>,
    pub why: String,
}

fn refuse(method: Option<&str>, why: impl Into<String>) -> HeadError {
    HeadError {
        method: method.map(|m| m.chars().take(16).collect()),
        why: why.into(),
    }
}

/// Where the head ends in `buffer` (the index just past `\r\n\r\n`), if it is complete.
pub fn head_end(buffer: &[u8]) -> Option<usize> {
    buffer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|i| i + 4)
}

/// Parses a complete head (everything up to and including the blank line).
pub fn parse_head(head: &[u8]) -> Result<RequestHead, HeadError> {
    if head.len() > MAX_HEAD_BYTES {
        return Err(refuse(None, "request head too large"));
    }
    let text = std::str::from_utf8(head).map_err(|_| refuse(None, "request head is not UTF-8"))?;
    let body = text
        .strip_suffix("\r\n\r\n")
        .ok_or_else(|| refuse(None, "request head does not end with a blank line"))?;
    let mut lines = body.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let (method, target_text) = parse_request_line(request_line)?;
    let headers = parse_headers(lines, method.as_str())?;
    let (target, path) = match method {
        Method::Connect => (
            parse_authority(target_text, None, "CONNECT")?,
            String::new(),
        ),
        Method::Get | Method::Head => parse_absolute_uri(target_text, method.as_str())?,
    };
    Ok(RequestHead {
        method,
        target,
        path,
        headers,
    })
}

fn parse_request_line(line: &str) -> Result<(Method, &str), HeadError> {
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refuse(None, "malformed request line"));
    };
    let method = match method {
        "GET" => Method::Get,
        "HEAD" => Method::Head,
        "CONNECT" => Method::Connect,
        other if is_token(other) => {
            return Err(refuse(
                Some(other),
                format!("method {other} is not allowed (only GET, HEAD and CONNECT)"),
            ))
        }
        _ => return Err(refuse(None, "malformed method")),
    };
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(refuse(
            Some(method.as_str()),
            "only HTTP/1.0 and HTTP/1.1 are spoken",
        ));
    }
    Ok((method, target))
}

fn parse_headers<'a>(
    lines: impl Iterator<Item = &'a str>,
    method: &str,
) -> Result<Vec<(String, String)>, HeadError> {
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() == MAX_HEADERS {
            return Err(refuse(Some(method), "too many header lines"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| refuse(Some(method), "malformed header line"))?;
        if !is_token(name) {
            return Err(refuse(Some(method), "malformed header name"));
        }
        if value.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
            return Err(refuse(Some(method), "control character in a header value"));
        }
        headers.push((name.to_string(), value.trim().to_string()));
    }
    Ok(headers)
}

/// `http://host[:port][/path]` into its target and origin-form path.
fn parse_absolute_uri(uri: &str, method: &str) -> Result<(Target, String), HeadError> {
    let scheme_end = uri.find("://").ok_or_else(|| {
        refuse(
            Some(method),
            "plain HTTP requests must use an absolute URI (http://host/path)",
        )
    })?;
    if !uri[..scheme_end].eq_ignore_ascii_case("http") {
        return Err(refuse(
            Some(method),
            format!(
                "scheme {:?} is not allowed (use CONNECT for https)",
                &uri[..scheme_end.min(16)]
            ),
        ));
    }
    let rest = &uri[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let target = parse_authority(&rest[..authority_end], Some(80), method)?;
    let mut path = rest[authority_end..]
        .split('#')
        .next()
        .unwrap_or_default()
        .to_string();
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    if !path.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(refuse(
            Some(method),
            "the path holds characters that must be percent-encoded",
        ));
    }
    Ok((target, path))
}

/// `host[:port]` or `[v6]:port`. `default_port` is used when no port is given (`None`:
/// the port is required).
fn parse_authority(
    text: &str,
    default_port: Option<u16>,
    method: &str,
) -> Result<Target, HeadError> {
    if text.contains('@') {
        return Err(refuse(
            Some(method),
            "credentials in the URI are not allowed",
        ));
    }
    let (host, port_text, bracketed) = match text.strip_prefix('[') {
        Some(rest) => {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| refuse(Some(method), "unclosed IPv6 literal"))?;
            (host, after.strip_prefix(':'), true)
        }
        None => match text.rsplit_once(':') {
            Some((host, port)) => (host, Some(port), false),
            None => (text, None, false),
        },
    };
    let port = match (port_text, default_port) {
        (Some(p), _) => p.parse::<u16>().ok().filter(|p| *p != 0).ok_or_else(|| {
            refuse(
                Some(method),
                format!("bad port {:?}", p.chars().take(8).collect::<String>()),
            )
        })?,
        (None, Some(default)) => default,
        (None, None) => return Err(refuse(Some(method), "CONNECT needs host:port")),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let is_ip = bracketed || host.parse::<std::net::IpAddr>().is_ok();
    if is_ip {
        if host.parse::<std::net::IpAddr>().is_err() {
            return Err(refuse(Some(method), "malformed IP literal"));
        }
    } else if !is_dns_name(&host) {
        return Err(refuse(Some(method), "malformed host name"));
    }
    Ok(Target { host, port, is_ip })
}

fn is_dns_name(host: &str) -> bool {
    !host.is_empty()
        && host.len() <= MAX_HOST_CHARS
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// An RFC 9110 token (method and header names).
fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

impl RequestHead {
    /// The value of header `name` (case-insensitive), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the request announces a body (read-only access: none is allowed).
    pub fn has_body(&self) -> bool {
        self.header("transfer-encoding").is_some()
            || self
                .header("content-length")
                .is_some_and(|v| v.trim() != "0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RequestHead, HeadError> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn a_plain_get_is_split_into_target_and_path() {
        let head = parse(
            "GET http://PyPI.org./simple/x/?a=1 HTTP/1.1\r\nHost: pypi.org\r\nAccept: */*\r\n\r\n",
        )
        .unwrap();
        assert_eq!(head.method, Method::Get);
        assert_eq!(
            head.target,
            Target {
                host: "pypi.org".into(),
                port: 80,
                is_ip: false
            }
        );
        assert_eq!(head.path, "/simple/x/?a=1");
        assert_eq!(head.header("accept"), Some("*/*"));
        assert!(!head.has_body());
    }

    #[test]
    fn connect_needs_an_authority_with_a_port() {
        let head = parse("CONNECT files.pythonhosted.org:443 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(head.method, Method::Connect);
        assert_eq!(head.target.port, 443);
        assert!(parse("CONNECT files.pythonhosted.org HTTP/1.1\r\n\r\n").is_err());
        let v6 = parse("CONNECT [::1]:443 HTTP/1.1\r\n\r\n").unwrap();
        assert!(v6.target.is_ip);
        assert_eq!(v6.target.host, "::1");
    }

    #[test]
    fn other_methods_are_refused_with_their_name() {
        let error = parse("POST http://pypi.org/upload HTTP/1.1\r\n\r\n").unwrap_err();
        assert_eq!(error.method.as_deref(), Some("POST"));
        assert!(error.why.contains("POST is not allowed"), "{error}");
    }

    #[test]
    fn ip_literals_are_flagged() {
        let head = parse("GET http://10.0.0.1:8080/ HTTP/1.1\r\n\r\n").unwrap();
        assert!(head.target.is_ip);
        assert_eq!(head.target.port, 8080);
    }

    #[test]
    fn malformed_and_sneaky_heads_are_refused() {
        for bad in [
            "GET /relative HTTP/1.1\r\n\r\n",
            "GET https://pypi.org/ HTTP/1.1\r\n\r\n",
            "GET http://user:pw@pypi.org/ HTTP/1.1\r\n\r\n",
            "GET http://pypi.org/ HTTP/2\r\n\r\n",
            "GET  http://pypi.org/ HTTP/1.1\r\n\r\n",
            "GET http://pypi.org/ HTTP/1.1\r\nBad Header: x\r\n\r\n",
            "GET http://pypi.org/ HTTP/1.1\r\nX: a\nInjected: b\r\n\r\n",
            "GET http://pyp_i.org/ HTTP/1.1\r\n\r\n",
            "GET http://pypi.org:0/ HTTP/1.1\r\n\r\n",
            "GET http://pypi.org:99999/ HTTP/1.1\r\n\r\n",
            "GET http://pypi.org/a b HTTP/1.1\r\n\r\n",
            "GET http://pypi.org/ HTTP/1.1\r\n",
            "CONNECT [::1 HTTP/1.1\r\n\r\n",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let too_many: String = (0..=MAX_HEADERS).map(|i| format!("X{i}: v\r\n")).collect();
        assert!(parse(&format!("GET http://a.b/ HTTP/1.1\r\n{too_many}\r\n")).is_err());
        assert!(parse_head(&vec![b'a'; MAX_HEAD_BYTES + 1]).is_err());
    }

    #[test]
    fn a_body_is_noticed() {
        let chunked =
            parse("GET http://a.b/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
        assert!(chunked.has_body());
        let sized = parse("GET http://a.b/ HTTP/1.1\r\nContent-Length: 5\r\n\r\n").unwrap();
        assert!(sized.has_body());
    }

    #[test]
    fn the_end_of_a_head_is_found() {
        assert_eq!(head_end(b"GET x\r\n\r\nbody"), Some(9));
        assert_eq!(head_end(b"GET x\r\n"), None);
    }
}
