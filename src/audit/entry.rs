//! One audit log entry and its deterministic binary encoding (format version 1). Pure: no
//! I/O, so third parties can embed it to check a log on their own.
//!
//! Layout, all integers little-endian, every field always present, in this order:
//! `version u8 | index u64 | prev_hash [32] | at_ms u64 | request_id str | event_id str |
//! actor str | host str | kind str | body bytes`, where `str` and `bytes` are a `u32`
//! length followed by that many bytes (`str` is UTF-8). Nothing may follow `body`.
//! One value has exactly one encoding, so `encode(decode(b)) == b` for every valid `b`.
//! The entry hash is SHA-256 of the encoded bytes; it links the chain and is the leaf data
//! of a later Merkle tree.

use sha2::{Digest, Sha256};

/// The entry format version this build writes and reads.
pub const ENTRY_VERSION: u8 = 1;

/// SHA-256 of an encoded entry.
pub type EntryHash = [u8; 32];

/// The `prev_hash` of entry 0.
pub const GENESIS_PREV_HASH: EntryHash = [0; 32];

/// One record in the log, as it is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// 0-based position in the log.
    pub index: u64,
    /// Hash of the previous entry's encoded bytes; zeros for entry 0.
    pub prev_hash: EntryHash,
    /// When the event happened, Unix milliseconds, as the reporting actor said.
    pub at_ms: u64,
    pub request_id: String,
    pub event_id: String,
    pub actor: String,
    pub host: String,
    /// The record's name (`AuditRecord::name`).
    pub kind: String,
    /// Deterministic MessagePack of the record's stored form (see `stored`).
    pub body: Vec<u8>,
}

/// Why bytes are not a valid entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    #[error("entry version {0} is not supported (this build reads {ENTRY_VERSION})")]
    UnsupportedVersion(u8),
    #[error("entry ends inside field `{field}`")]
    Truncated { field: &'static str },
    #[error("field `{field}` is not UTF-8")]
    NotUtf8 { field: &'static str },
    #[error("{count} unexpected bytes after the last field")]
    TrailingBytes { count: usize },
    #[error("field `{field}` is {len} bytes, more than a u32 length can say")]
    FieldTooLong { field: &'static str, len: usize },
}

impl Entry {
    /// The canonical bytes of this entry.
    pub fn encode(&self) -> Result<Vec<u8>, EntryError> {
        let mut out = Vec::with_capacity(self.encoded_len_hint());
        out.push(ENTRY_VERSION);
        out.extend_from_slice(&self.index.to_le_bytes());
        out.extend_from_slice(&self.prev_hash);
        out.extend_from_slice(&self.at_ms.to_le_bytes());
        put_bytes(&mut out, "request_id", self.request_id.as_bytes())?;
        put_bytes(&mut out, "event_id", self.event_id.as_bytes())?;
        put_bytes(&mut out, "actor", self.actor.as_bytes())?;
        put_bytes(&mut out, "host", self.host.as_bytes())?;
        put_bytes(&mut out, "kind", self.kind.as_bytes())?;
        put_bytes(&mut out, "body", &self.body)?;
        Ok(out)
    }

    /// Reads an entry, refusing anything that is not exactly one canonical encoding.
    pub fn decode(bytes: &[u8]) -> Result<Entry, EntryError> {
        let mut reader = Reader { rest: bytes };
        let version = reader.u8("version")?;
        if version != ENTRY_VERSION {
            return Err(EntryError::UnsupportedVersion(version));
        }
        let entry = Entry {
            index: reader.u64("index")?,
            prev_hash: reader.hash("prev_hash")?,
            at_ms: reader.u64("at_ms")?,
            request_id: reader.string("request_id")?,
            event_id: reader.string("event_id")?,
            actor: reader.string("actor")?,
            host: reader.string("host")?,
            kind: reader.string("kind")?,
            body: reader.bytes("body")?.to_vec(),
        };
        match reader.rest.len() {
            0 => Ok(entry),
            count => Err(EntryError::TrailingBytes { count }),
        }
    }

    fn encoded_len_hint(&self) -> usize {
        1 + 8
            + 32
            + 8
            + 6 * 4
            + self.request_id.len()
            + self.event_id.len()
            + self.actor.len()
            + self.host.len()
            + self.kind.len()
            + self.body.len()
    }
}

/// SHA-256 of an entry's encoded bytes.
pub fn entry_hash(encoded: &[u8]) -> EntryHash {
    Sha256::digest(encoded).into()
}

fn put_bytes(out: &mut Vec<u8>, field: &'static str, bytes: &[u8]) -> Result<(), EntryError> {
    let len = u32::try_from(bytes.len()).map_err(|_| EntryError::FieldTooLong {
        field,
        len: bytes.len(),
    })?;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(bytes);
    Ok(())
}

/// Reads fields off the front of a byte slice, never past its end.
struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, field: &'static str, n: usize) -> Result<&'a [u8], EntryError> {
        if self.rest.len() < n {
            return Err(EntryError::Truncated { field });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], EntryError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(field, N)?);
        Ok(out)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, EntryError> {
        Ok(self.array::<1>(field)?[0])
    }

    fn u64(&mut self, field: &'static str) -> Result<u64, EntryError> {
        Ok(u64::from_le_bytes(self.array(field)?))
    }

    fn hash(&mut self, field: &'static str) -> Result<EntryHash, EntryError> {
        self.array(field)
    }

    fn bytes(&mut self, field: &'static str) -> Result<&'a [u8], EntryError> {
        let len = u32::from_le_bytes(self.array(field)?);
        self.take(field, len as usize)
    }

    fn string(&mut self, field: &'static str) -> Result<String, EntryError> {
        let bytes = self.bytes(field)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| EntryError::NotUtf8 { field })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Entry {
        Entry {
            index: 7,
            prev_hash: [0xab; 32],
            at_ms: 1_700_000_000_000,
            request_id: "01HZX".into(),
            event_id: "01HZX.received".into(),
            actor: "assessor".into(),
            host: "h1".into(),
            kind: "received".into(),
            body: vec![0x81, 0xa1, b'a', 0x01],
        }
    }

    #[test]
    fn an_entry_round_trips_through_its_encoding() {
        let entry = sample();
        let bytes = entry.encode().unwrap();
        assert_eq!(Entry::decode(&bytes).unwrap(), entry);
    }

    #[test]
    fn the_same_entry_always_encodes_to_the_same_bytes_and_hash() {
        let a = sample().encode().unwrap();
        let b = sample().clone().encode().unwrap();
        assert_eq!(a, b);
        assert_eq!(entry_hash(&a), entry_hash(&b));
    }

    #[test]
    fn the_encoding_is_pinned_byte_for_byte() {
        let bytes = sample().encode().unwrap();
        assert_eq!(bytes[0], ENTRY_VERSION);
        assert_eq!(&bytes[1..9], &7u64.to_le_bytes());
        assert_eq!(&bytes[9..41], &[0xab; 32]);
        assert_eq!(&bytes[49..53], &5u32.to_le_bytes());
        assert_eq!(&bytes[53..58], b"01HZX");
        assert_eq!(bytes.len(), sample().encoded_len_hint());
    }

    #[test]
    fn every_truncation_is_refused_without_panicking() {
        let bytes = sample().encode().unwrap();
        for cut in 0..bytes.len() {
            assert!(Entry::decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn trailing_bytes_and_unknown_versions_are_refused() {
        let mut bytes = sample().encode().unwrap();
        bytes.push(0);
        assert_eq!(
            Entry::decode(&bytes),
            Err(EntryError::TrailingBytes { count: 1 })
        );
        bytes[0] = 2;
        assert_eq!(
            Entry::decode(&bytes),
            Err(EntryError::UnsupportedVersion(2))
        );
    }

    #[test]
    fn a_huge_length_prefix_is_refused_not_allocated() {
        let mut bytes = sample().encode().unwrap();
        bytes[49..53].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            Entry::decode(&bytes),
            Err(EntryError::Truncated {
                field: "request_id"
            })
        );
    }
}
