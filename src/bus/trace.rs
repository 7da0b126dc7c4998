//! W3C trace context carried in the `traceparent` NATS header, so one request can be
//! followed across processes. A request without one gets a trace id derived from its id.

/// Name of the header that carries the trace context.
pub const TRACEPARENT: &str = "traceparent";

/// A `traceparent` value: version 00, a 16-byte trace id, an 8-byte parent span id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    pub trace_id: [u8; 16],
    pub span_id: [u8; 8],
}

impl TraceContext {
    /// The trace every message about `request_id` belongs to when no header says otherwise.
    pub fn for_request(request_id: &str) -> TraceContext {
        let digest = blake3::hash(request_id.as_bytes());
        let bytes = digest.as_bytes();
        let mut trace_id = [0u8; 16];
        trace_id.copy_from_slice(&bytes[..16]);
        let mut span_id = [0u8; 8];
        span_id.copy_from_slice(&bytes[16..24]);
        TraceContext { trace_id, span_id }
    }

    /// Parses a `traceparent` header value; `None` when it is malformed.
    pub fn parse(value: &str) -> Option<TraceContext> {
        let parts: Vec<&str> = value.trim().split('-').collect();
        let [version, trace, span, _flags] = parts.as_slice() else {
            return None;
        };
        if *version != "00" {
            return None;
        }
        let trace_id: [u8; 16] = hex::decode(trace).ok()?.try_into().ok()?;
        let span_id: [u8; 8] = hex::decode(span).ok()?.try_into().ok()?;
        Some(TraceContext { trace_id, span_id })
    }

    /// The same trace with a new span, for a message this process sends on.
    pub fn child(&self, step: &str) -> TraceContext {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&self.span_id);
        hasher.update(step.as_bytes());
        let mut span_id = [0u8; 8];
        span_id.copy_from_slice(&hasher.finalize().as_bytes()[..8]);
        TraceContext {
            trace_id: self.trace_id,
            span_id,
        }
    }

    pub fn trace_id_hex(&self) -> String {
        hex::encode(self.trace_id)
    }

    pub fn to_header(&self) -> String {
        format!(
            "00-{}-{}-01",
            hex::encode(self.trace_id),
            hex::encode(self.span_id)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_round_trips() {
        let ctx = TraceContext::for_request("01JABC");
        assert_eq!(TraceContext::parse(&ctx.to_header()), Some(ctx));
    }

    #[test]
    fn a_child_keeps_the_trace_and_changes_the_span() {
        let ctx = TraceContext::for_request("r");
        let child = ctx.child("assessor");
        assert_eq!(child.trace_id, ctx.trace_id);
        assert_ne!(child.span_id, ctx.span_id);
    }

    #[test]
    fn malformed_headers_are_ignored() {
        for bad in [
            "",
            "00-zz-11-01",
            "01-00000000000000000000000000000000-0000000000000000-01",
        ] {
            assert_eq!(TraceContext::parse(bad), None, "{bad}");
        }
    }
}
