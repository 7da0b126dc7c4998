//! The server name (SNI) of a TLS ClientHello, read by hand with a bounds check on every
//! length. The egress proxy reads the first TLS record a sandbox sends after CONNECT and
//! relays the tunnel only when the name equals the CONNECT host. Pure.
//! The ClientHello must fit in the first record (every common client sends it so); one
//! split across records is refused, never guessed at.

/// Bytes of a TLS record header.
pub const RECORD_HEADER: usize = 5;
/// Largest TLS plaintext record body (2^14) plus the allowed expansion.
pub const MAX_RECORD: usize = 16384 + 2048;

const HANDSHAKE: u8 = 22;
const CLIENT_HELLO: u8 = 1;
const SERVER_NAME: u16 = 0;
const HOST_NAME: u8 = 0;

/// Why no server name could be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SniError {
    #[error("the tunnel did not start with a TLS handshake")]
    NotTls,
    #[error("the TLS record is larger than TLS allows")]
    RecordTooLarge,
    #[error("the ClientHello is truncated or malformed")]
    Malformed,
    #[error("the ClientHello spans several TLS records")]
    Fragmented,
    #[error("the ClientHello names no server (SNI)")]
    NoServerName,
}

/// The length of the record body announced by a record header (checked).
pub fn record_length(header: &[u8; RECORD_HEADER]) -> Result<usize, SniError> {
    if header[0] != HANDSHAKE || header[1] != 3 {
        return Err(SniError::NotTls);
    }
    let length = u16::from_be_bytes([header[3], header[4]]) as usize;
    if length > MAX_RECORD {
        return Err(SniError::RecordTooLarge);
    }
    Ok(length)
}

/// The lowercased host name of the ClientHello in `body`, a whole first record body.
pub fn server_name(body: &[u8]) -> Result<String, SniError> {
    let mut hello = Reader::new(body);
    if hello.u8()? != CLIENT_HELLO {
        return Err(SniError::NotTls);
    }
    let length = hello.u24()?;
    let mut hello = Reader::new(hello.take(length).map_err(|_| SniError::Fragmented)?);
    hello.take(2 + 32)?; // legacy version, random
    let session = hello.u8()? as usize;
    hello.take(session)?;
    let suites = hello.u16()? as usize;
    hello.take(suites)?;
    let compression = hello.u8()? as usize;
    hello.take(compression)?;
    let extensions = hello.u16()? as usize;
    let mut extensions = Reader::new(hello.take(extensions)?);
    while !extensions.is_empty() {
        let kind = extensions.u16()?;
        let length = extensions.u16()? as usize;
        let data = extensions.take(length)?;
        if kind == SERVER_NAME {
            return host_name(data);
        }
    }
    Err(SniError::NoServerName)
}

/// The one `host_name` entry of a server_name extension.
fn host_name(data: &[u8]) -> Result<String, SniError> {
    let mut outer = Reader::new(data);
    let list = outer.u16()? as usize;
    let mut list = Reader::new(outer.take(list)?);
    while !list.is_empty() {
        let kind = list.u8()?;
        let length = list.u16()? as usize;
        let name = list.take(length)?;
        if kind == HOST_NAME {
            let name = std::str::from_utf8(name).map_err(|_| SniError::Malformed)?;
            if name.is_empty() || !name.is_ascii() {
                return Err(SniError::Malformed);
            }
            return Ok(name.trim_end_matches('.').to_ascii_lowercase());
        }
    }
    Err(SniError::NoServerName)
}

/// A cursor over bytes whose every read is bounds-checked.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { rest: bytes }
    }

    fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], SniError> {
        if n > self.rest.len() {
            return Err(SniError::Malformed);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, SniError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, SniError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u24(&mut self) -> Result<usize, SniError> {
        let b = self.take(3)?;
        Ok(((b[0] as usize) << 16) | ((b[1] as usize) << 8) | b[2] as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal but well-formed ClientHello record body with the given extensions.
    fn hello(extensions: &[u8]) -> Vec<u8> {
        let mut body = vec![3, 3];
        body.extend([7u8; 32]);
        body.push(0); // session id
        body.extend([0, 2, 0x13, 0x01]); // one suite
        body.extend([1, 0]); // null compression
        body.extend((extensions.len() as u16).to_be_bytes());
        body.extend(extensions);
        let mut handshake = vec![CLIENT_HELLO];
        handshake.extend(&(body.len() as u32).to_be_bytes()[1..]);
        handshake.extend(body);
        handshake
    }

    fn sni_extension(name: &[u8]) -> Vec<u8> {
        let mut entry = vec![HOST_NAME];
        entry.extend((name.len() as u16).to_be_bytes());
        entry.extend(name);
        let mut data = (entry.len() as u16).to_be_bytes().to_vec();
        data.extend(entry);
        let mut ext = SERVER_NAME.to_be_bytes().to_vec();
        ext.extend((data.len() as u16).to_be_bytes());
        ext.extend(data);
        ext
    }

    #[test]
    fn the_server_name_is_read_past_other_extensions() {
        let mut extensions = vec![0, 10, 0, 2, 0, 29]; // supported_groups, 2 bytes
        extensions.extend(sni_extension(b"Files.PythonHosted.org"));
        assert_eq!(
            server_name(&hello(&extensions)).unwrap(),
            "files.pythonhosted.org"
        );
    }

    #[test]
    fn a_hello_without_a_name_is_refused() {
        assert_eq!(
            server_name(&hello(&[0, 10, 0, 2, 0, 29])),
            Err(SniError::NoServerName)
        );
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let full = hello(&sni_extension(b"pypi.org"));
        for cut in 0..full.len() {
            assert!(server_name(&full[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn lying_lengths_are_refused() {
        let mut bad = hello(&sni_extension(b"pypi.org"));
        let last = bad.len() - 9;
        bad[last] = 0xff; // the name's length
        assert!(server_name(&bad).is_err());
        let mut huge = hello(&sni_extension(b"pypi.org"));
        huge[1] = 0xff; // the handshake length
        assert_eq!(server_name(&huge), Err(SniError::Fragmented));
    }

    #[test]
    fn record_headers_are_checked() {
        assert_eq!(record_length(&[22, 3, 1, 0x02, 0x00]), Ok(512));
        assert_eq!(record_length(b"GET /"), Err(SniError::NotTls));
        assert_eq!(
            record_length(&[22, 3, 1, 0xff, 0xff]),
            Err(SniError::RecordTooLarge)
        );
    }
}
