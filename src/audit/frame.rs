//! Framing of entries inside a segment file, and the segment file header. Pure: works on
//! byte slices, so third parties can embed it.
//!
//! A segment is `header | frame*`. The header is `magic "CRDNAUDT" | format u32 |
//! first_index u64` (20 bytes); a frame is `len u32 | crc32c(payload) u32 | payload`
//! (little-endian), the payload being one encoded entry.

/// The first bytes of every segment file.
pub const SEGMENT_MAGIC: [u8; 8] = *b"CRDNAUDT";
/// The segment format version this build writes and reads.
pub const SEGMENT_FORMAT: u32 = 1;
/// Size of the segment header in bytes.
pub const HEADER_LEN: usize = 20;
/// Size of a frame's `len` and `crc` in bytes.
pub const FRAME_OVERHEAD: usize = 8;
/// The largest payload a frame may carry; a larger `len` is corruption, not an entry.
pub const MAX_PAYLOAD_BYTES: usize = 16 * 1024 * 1024;

/// Why a segment header or a frame does not check out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("segment header has magic {found:02x?}, not \"CRDNAUDT\"")]
    BadMagic { found: [u8; 8] },
    #[error("segment format {0} is not supported (this build reads {SEGMENT_FORMAT})")]
    UnsupportedFormat(u32),
    #[error("frame length is 0")]
    EmptyFrame,
    #[error("frame length {len} is over the {MAX_PAYLOAD_BYTES}-byte limit")]
    TooLong { len: u64 },
    #[error("crc32c mismatch: frame says {stored:08x}, payload has {computed:08x}")]
    CrcMismatch { stored: u32, computed: u32 },
}

/// What the header of a segment says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SegmentHeader {
    /// Index of the first entry the segment holds (or would hold, when empty).
    pub first_index: u64,
}

impl SegmentHeader {
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0; HEADER_LEN];
        out[..8].copy_from_slice(&SEGMENT_MAGIC);
        out[8..12].copy_from_slice(&SEGMENT_FORMAT.to_le_bytes());
        out[12..20].copy_from_slice(&self.first_index.to_le_bytes());
        out
    }

    /// Reads the header at the start of `segment`; `None` when it is shorter than a header.
    pub fn decode(segment: &[u8]) -> Option<Result<SegmentHeader, FrameError>> {
        let header = segment.get(..HEADER_LEN)?;
        let magic: [u8; 8] = array(&header[..8]);
        let format = u32::from_le_bytes(array(&header[8..12]));
        let first_index = u64::from_le_bytes(array(&header[12..20]));
        Some(if magic != SEGMENT_MAGIC {
            Err(FrameError::BadMagic { found: magic })
        } else if format != SEGMENT_FORMAT {
            Err(FrameError::UnsupportedFormat(format))
        } else {
            Ok(SegmentHeader { first_index })
        })
    }
}

/// Appends one frame carrying `payload` to `out`.
pub fn encode_frame(payload: &[u8], out: &mut Vec<u8>) {
    debug_assert!(!payload.is_empty() && payload.len() <= MAX_PAYLOAD_BYTES);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32c::crc32c(payload).to_le_bytes());
    out.extend_from_slice(payload);
}

/// What is found at one position of a segment.
#[derive(Debug, PartialEq, Eq)]
pub enum FrameRead<'a> {
    /// A frame whose CRC checks out; the next one starts at `next`.
    Frame { payload: &'a [u8], next: usize },
    /// Exactly the end of the bytes.
    End,
    /// The bytes stop inside a frame: `needed` bytes from `at` would complete it.
    Incomplete { needed: usize },
    /// A complete frame that does not check out.
    Bad(FrameError),
}

/// Reads the frame starting at byte `at` of `segment`.
pub fn read_frame(segment: &[u8], at: usize) -> FrameRead<'_> {
    let rest = segment.get(at..).unwrap_or_default();
    if rest.is_empty() {
        return FrameRead::End;
    }
    let Some(head) = rest.get(..FRAME_OVERHEAD) else {
        return FrameRead::Incomplete {
            needed: FRAME_OVERHEAD,
        };
    };
    let len = u32::from_le_bytes(array(&head[..4])) as usize;
    let stored = u32::from_le_bytes(array(&head[4..8]));
    if len == 0 {
        return FrameRead::Bad(FrameError::EmptyFrame);
    }
    if len > MAX_PAYLOAD_BYTES {
        return FrameRead::Bad(FrameError::TooLong { len: len as u64 });
    }
    let Some(payload) = rest.get(FRAME_OVERHEAD..FRAME_OVERHEAD + len) else {
        return FrameRead::Incomplete {
            needed: FRAME_OVERHEAD + len,
        };
    };
    let computed = crc32c::crc32c(payload);
    if computed != stored {
        return FrameRead::Bad(FrameError::CrcMismatch { stored, computed });
    }
    FrameRead::Frame {
        payload,
        next: at + FRAME_OVERHEAD + len,
    }
}

/// Whether the bytes from `at` to the end look like an interrupted last write: all zeros,
/// or an incomplete frame with no valid frame starting anywhere after it. A valid frame
/// further on means something was altered (a length changed), not a crash.
pub fn is_torn_tail(segment: &[u8], at: usize) -> bool {
    let tail = segment.get(at..).unwrap_or_default();
    if tail.iter().all(|&b| b == 0) {
        return true;
    }
    let incomplete = matches!(read_frame(segment, at), FrameRead::Incomplete { .. });
    incomplete && !(at + 1..segment.len()).any(|start| frame_starts_at(segment, start))
}

fn frame_starts_at(segment: &[u8], at: usize) -> bool {
    matches!(read_frame(segment, at), FrameRead::Frame { .. })
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_frames() -> Vec<u8> {
        let mut out = Vec::new();
        encode_frame(b"first entry", &mut out);
        encode_frame(b"second", &mut out);
        out
    }

    #[test]
    fn frames_read_back_in_order_then_end() {
        let bytes = two_frames();
        let FrameRead::Frame { payload, next } = read_frame(&bytes, 0) else {
            panic!("no first frame")
        };
        assert_eq!(payload, b"first entry");
        let FrameRead::Frame { payload, next } = read_frame(&bytes, next) else {
            panic!("no second frame")
        };
        assert_eq!(payload, b"second");
        assert_eq!(read_frame(&bytes, next), FrameRead::End);
    }

    #[test]
    fn a_cut_frame_is_incomplete_and_torn() {
        let bytes = two_frames();
        for cut in 19 + 1..bytes.len() {
            let torn = &bytes[..cut];
            assert!(matches!(read_frame(torn, 19), FrameRead::Incomplete { .. }));
            assert!(is_torn_tail(torn, 19), "cut at {cut}");
        }
    }

    #[test]
    fn a_flipped_payload_bit_is_a_crc_mismatch() {
        let mut bytes = two_frames();
        bytes[10] ^= 1;
        assert!(matches!(
            read_frame(&bytes, 0),
            FrameRead::Bad(FrameError::CrcMismatch { .. })
        ));
    }

    #[test]
    fn a_grown_length_followed_by_a_valid_frame_is_not_torn() {
        let mut bytes = two_frames();
        let mut third = Vec::new();
        encode_frame(b"third", &mut third);
        bytes.extend_from_slice(&third);
        // Make frame two claim to run past the end of the segment.
        bytes[19..23].copy_from_slice(&1000u32.to_le_bytes());
        assert!(!is_torn_tail(&bytes, 19));
    }

    #[test]
    fn a_zero_filled_tail_is_torn_and_a_huge_length_is_bad() {
        let mut bytes = two_frames();
        bytes.extend_from_slice(&[0; 64]);
        assert!(is_torn_tail(&bytes, 33));
        assert_eq!(
            read_frame(&[0xff; 12], 0),
            FrameRead::Bad(FrameError::TooLong {
                len: u32::MAX as u64
            })
        );
    }

    #[test]
    fn a_header_round_trips_and_bad_magic_is_named() {
        let header = SegmentHeader { first_index: 42 };
        assert_eq!(SegmentHeader::decode(&header.encode()), Some(Ok(header)));
        assert_eq!(SegmentHeader::decode(&[0; 5]), None);
        assert!(matches!(
            SegmentHeader::decode(&[0; HEADER_LEN]),
            Some(Err(FrameError::BadMagic { .. }))
        ));
    }
}
