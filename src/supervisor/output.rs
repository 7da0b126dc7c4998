//! Output caps and what the output says: `CappedOutput` keeps at most a fixed number of
//! bytes of one stream (raw bytes: floods without newlines and invalid UTF-8 are kept as
//! they came), and `died_of_full_disk` reads a program's stderr tail for a full tmpfs.

/// One output stream, kept up to `cap` bytes.
#[derive(Debug)]
pub struct CappedOutput {
    bytes: Vec<u8>,
    cap: usize,
    truncated: bool,
}

impl CappedOutput {
    pub fn new(cap: u64) -> Self {
        let cap = usize::try_from(cap).unwrap_or(usize::MAX);
        CappedOutput {
            bytes: Vec::new(),
            cap,
            truncated: false,
        }
    }

    /// Appends `chunk`, keeping exactly `cap` bytes once it is exceeded. Returns true the
    /// first time the cap is exceeded.
    pub fn push(&mut self, chunk: &[u8]) -> bool {
        let room = self.cap - self.bytes.len();
        if chunk.len() <= room {
            self.bytes.extend_from_slice(chunk);
            return false;
        }
        self.bytes.extend_from_slice(&chunk[..room]);
        let first_time = !self.truncated;
        self.truncated = true;
        first_time
    }

    /// `push`, and what was kept of `chunk` also goes to `live` (`stderr`: which stream).
    pub fn push_live(
        &mut self,
        chunk: &[u8],
        live: Option<&super::spec::LiveOutput>,
        stderr: bool,
    ) -> bool {
        let before = self.bytes.len();
        let over = self.push(chunk);
        if let Some(live) = live {
            live.send(stderr, &self.bytes[before..]);
        }
        over
    }

    pub fn truncated(&self) -> bool {
        self.truncated
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// How much of stderr's end is searched for the cause of death.
const STDERR_TAIL_BYTES: usize = 4096;

/// Errors meaning the program ran out of scratch space: ENOSPC (a full tmpfs) and EFBIG
/// (the RLIMIT_FSIZE cap; Python ignores SIGXFSZ, so it surfaces as an exception).
const DISK_FULL_MESSAGES: [&[u8]; 2] = [b"No space left on device", b"File too large"];

/// Whether a program that exited non-zero says, at the end of its stderr, that it died of a
/// full disk. This reads the program's own error message (there is no kernel counter for
/// tmpfs ENOSPC to ask), so a program could fake it; it can only ever mislabel its own run.
pub fn died_of_full_disk(exit_code: Option<i64>, stderr: &[u8]) -> bool {
    if matches!(exit_code, Some(0) | None) {
        return false;
    }
    let tail = &stderr[stderr.len().saturating_sub(STDERR_TAIL_BYTES)..];
    DISK_FULL_MESSAGES
        .iter()
        .any(|needle| tail.windows(needle.len()).any(|w| w == *needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_under_the_cap_is_kept_whole() {
        let mut out = CappedOutput::new(10);
        assert!(!out.push(b"hello"));
        assert!(!out.push(b"world"));
        assert_eq!(out.as_bytes(), b"helloworld");
        assert!(!out.truncated());
    }

    #[test]
    fn past_the_cap_exactly_cap_bytes_are_kept_and_truncation_reported_once() {
        let mut out = CappedOutput::new(4);
        assert!(!out.push(b"ab\xff"));
        assert!(out.push(b"cdef"));
        assert!(!out.push(b"more"));
        assert_eq!(out.as_bytes(), b"ab\xffc");
        assert!(out.truncated());
    }

    #[test]
    fn a_zero_cap_keeps_nothing() {
        let mut out = CappedOutput::new(0);
        assert!(!out.push(b""));
        assert!(out.push(b"x"));
        assert!(out.is_empty());
    }

    #[test]
    fn a_full_tmpfs_is_read_from_a_failed_programs_stderr_tail() {
        let err = b"Traceback...\nOSError: [Errno 28] No space left on device\n";
        assert!(died_of_full_disk(Some(1), err));
        assert!(!died_of_full_disk(Some(0), err));
        assert!(!died_of_full_disk(Some(1), b"ValueError\n"));
    }
}
