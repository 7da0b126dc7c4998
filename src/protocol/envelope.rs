//! The versioned envelope around every message, and its MessagePack codec.
//! Encoding is always `rmp_serde::to_vec_named` (maps with field names), so fields can be
//! added with `#[serde(default)]` without breaking older readers. Decoding never panics:
//! a payload from another process is untrusted input.

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

/// The schema version this build writes and accepts.
pub const SCHEMA_VERSION: u32 = 1;

/// The wrapper every message travels in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope<T> {
    /// Schema version of the envelope and body (`SCHEMA_VERSION`).
    pub schema: u32,
    /// The request this message is about (a ULID); empty for host-level messages.
    pub request_id: String,
    /// When the client submitted the request, in Unix milliseconds (0 if unknown).
    #[serde(default)]
    pub submitted_at_ms: u64,
    /// When this message was published, in Unix milliseconds.
    pub sent_at_ms: u64,
    /// The client the request belongs to: the `<client>` token of the submit subject the
    /// server accepted, set by the Assessor and carried by every later message so the
    /// result goes to `cordon.v1.exec.result.<client>.<request_id>`. Whatever a client
    /// puts here itself is ignored. Empty for host-level messages.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub client: String,
    /// The message itself.
    pub body: T,
}

impl<T> Envelope<T> {
    /// Wraps `body` for `request_id`, stamped now.
    pub fn new(request_id: impl Into<String>, submitted_at_ms: u64, body: T) -> Self {
        Envelope {
            schema: SCHEMA_VERSION,
            request_id: request_id.into(),
            submitted_at_ms,
            sent_at_ms: now_ms(),
            client: String::new(),
            body,
        }
    }

    /// The same envelope, for the requests of `client`.
    pub fn with_client(self, client: impl Into<String>) -> Self {
        Envelope {
            client: client.into(),
            ..self
        }
    }

    /// A new envelope for the same request (and client) carrying another body.
    pub fn reply<U>(&self, body: U) -> Envelope<U> {
        Envelope::new(self.request_id.clone(), self.submitted_at_ms, body)
            .with_client(self.client.clone())
    }
}

/// What an envelope says about itself before its body is understood.
#[derive(Deserialize)]
struct EnvelopeHead {
    schema: u32,
    #[serde(default)]
    request_id: Option<String>,
    #[allow(dead_code)]
    #[serde(default)]
    body: IgnoredAny,
}

/// Why a payload could not be decoded. `request_id` is set when the head was readable,
/// so the sender can still be told.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CodecError {
    #[error("payload is not valid MessagePack")]
    InvalidMsgpack,
    #[error("envelope is malformed: {0}")]
    BadEnvelope(String),
    #[error("schema version {found} is not supported (this build speaks {SCHEMA_VERSION})")]
    UnsupportedSchema {
        found: u32,
        request_id: Option<String>,
    },
    #[error("message body is invalid: {message}")]
    BadBody {
        message: String,
        request_id: Option<String>,
    },
    #[error("message could not be encoded: {0}")]
    Encode(String),
}

impl CodecError {
    /// The request id read from the envelope head, when there was one.
    pub fn request_id(&self) -> Option<&str> {
        match self {
            CodecError::UnsupportedSchema { request_id, .. }
            | CodecError::BadBody { request_id, .. } => request_id.as_deref(),
            _ => None,
        }
    }
}

/// Encodes an envelope as MessagePack with named fields.
pub fn encode<T: Serialize>(envelope: &Envelope<T>) -> Result<Vec<u8>, CodecError> {
    rmp_serde::to_vec_named(envelope).map_err(|e| CodecError::Encode(e.to_string()))
}

/// Decodes an envelope, checking the schema version before the body.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<Envelope<T>, CodecError> {
    if !is_one_msgpack_value(bytes) {
        return Err(CodecError::InvalidMsgpack);
    }
    let head: EnvelopeHead =
        rmp_serde::from_slice(bytes).map_err(|e| CodecError::BadEnvelope(e.to_string()))?;
    if head.schema != SCHEMA_VERSION {
        return Err(CodecError::UnsupportedSchema {
            found: head.schema,
            request_id: head.request_id,
        });
    }
    rmp_serde::from_slice(bytes).map_err(|e| CodecError::BadBody {
        message: e.to_string(),
        request_id: head.request_id,
    })
}

/// Whether `bytes` is exactly one MessagePack value with nothing after it. Most bytes are a
/// valid first byte (0x00-0x7f is a whole integer), so text or JSON would otherwise pass
/// as "a number followed by junk" and be blamed on the envelope instead.
fn is_one_msgpack_value(bytes: &[u8]) -> bool {
    let mut rest = bytes;
    let parsed = IgnoredAny::deserialize(&mut rmp_serde::Deserializer::new(&mut rest)).is_ok();
    parsed && rest.is_empty()
}

/// The current time in Unix milliseconds.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Ping {
        text: String,
    }

    #[test]
    fn an_envelope_round_trips_with_named_fields() {
        let sent = Envelope::new("req-1", 7, Ping { text: "hi".into() });
        let bytes = encode(&sent).unwrap();
        // Named fields: the field name is in the bytes.
        assert!(bytes.windows(4).any(|w| w == b"text"));
        assert_eq!(decode::<Ping>(&bytes).unwrap(), sent);
    }

    #[test]
    fn garbage_is_invalid_msgpack() {
        assert_eq!(decode::<Ping>(&[0xc1]), Err(CodecError::InvalidMsgpack));
        assert_eq!(decode::<Ping>(b""), Err(CodecError::InvalidMsgpack));
    }

    #[test]
    fn text_json_and_trailing_bytes_are_invalid_msgpack() {
        for bytes in [&b"hello, not msgpack"[..], br#"{"text": "hi"}"#] {
            assert_eq!(decode::<Ping>(bytes), Err(CodecError::InvalidMsgpack));
        }
        let mut bytes = encode(&Envelope::new("r", 0, Ping { text: "x".into() })).unwrap();
        bytes.push(0x01);
        assert_eq!(decode::<Ping>(&bytes), Err(CodecError::InvalidMsgpack));
    }

    #[test]
    fn another_schema_version_is_refused_with_the_request_id() {
        let mut env = Envelope::new("req-2", 0, Ping { text: "x".into() });
        env.schema = 99;
        let err = decode::<Ping>(&encode(&env).unwrap()).unwrap_err();
        assert!(matches!(
            err,
            CodecError::UnsupportedSchema { found: 99, .. }
        ));
        assert_eq!(err.request_id(), Some("req-2"));
    }

    #[test]
    fn a_body_missing_fields_names_the_field() {
        let env = Envelope::new("req-3", 0, serde_json::json!({"other": 1}));
        let err = decode::<Ping>(&encode(&env).unwrap()).unwrap_err();
        assert!(err.to_string().contains("text"), "{err}");
        assert_eq!(err.request_id(), Some("req-3"));
    }
}
