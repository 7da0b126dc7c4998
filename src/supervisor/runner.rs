//! The interpreter runner's wire format (see `runner.py`, which runs inside the sandbox):
//! `cell_frame` encodes one cell for its stdin, `FrameDecoder` splits its stdout into
//! `RunnerFrame`s. Pure; the session code does the I/O.

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::protocol::interpreter::{CellInput, SkippedFile};

/// The runner's source, passed to `python3 -I -u -c`.
pub const RUNNER_SOURCE: &str = include_str!("runner.py");

/// The command of an interpreter sandbox.
pub fn runner_command() -> Vec<String> {
    ["python3", "-I", "-u", "-c", RUNNER_SOURCE]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// Largest frame accepted from a runner: an output file and its base64 and JSON
/// overhead. A larger length is a broken (or forged) stream, and ends the sandbox.
pub const MAX_FRAME_BYTES: usize = 8 << 20;

#[derive(Serialize)]
struct FileFrame<'a> {
    path: &'a str,
    data: String,
}

#[derive(Serialize)]
struct CellFrame<'a> {
    code: &'a str,
    files: Vec<FileFrame<'a>>,
    stdin: Option<String>,
    max_files: u32,
    max_file_bytes: u64,
    /// A one-off program's only cell: it ends as a script does (threads joined, atexit run).
    last: bool,
}

/// Caps on what one cell returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputCaps {
    pub max_files: u32,
    pub max_file_bytes: u64,
}

impl OutputCaps {
    /// For a run that asked for no files back: none are looked for or returned.
    pub const NONE: OutputCaps = OutputCaps {
        max_files: 0,
        max_file_bytes: 0,
    };
}

/// One cell as the runner reads it: `<decimal length>\n<JSON>`.
pub fn cell_frame(code: &str, input: &CellInput, caps: OutputCaps) -> Vec<u8> {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    let frame = CellFrame {
        code,
        files: input
            .files
            .iter()
            .map(|f| FileFrame {
                path: &f.path,
                data: b64(&f.content),
            })
            .collect(),
        stdin: input.stdin.as_deref().map(|bytes| b64(bytes)),
        max_files: caps.max_files,
        max_file_bytes: caps.max_file_bytes,
        last: input.session.is_none(),
    };
    let body = serde_json::to_vec(&frame).expect("a cell frame is always serializable");
    let mut out = format!("{}\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// A file the runner sent back.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RunnerFile {
    pub name: String,
    pub media_type: String,
    /// Base64.
    pub data: String,
}

impl RunnerFile {
    pub fn content(&self) -> Option<Vec<u8>> {
        base64::engine::general_purpose::STANDARD
            .decode(&self.data)
            .ok()
    }
}

/// How the runner says a cell ended.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct CellEnd {
    pub exit_code: i64,
    /// The cell stopped on KeyboardInterrupt (cordon's, at its deadline).
    pub interrupted: bool,
    #[serde(default)]
    pub skipped: Vec<SkippedFile>,
}

/// The first time in a cell the program asked Python for something the runtime record
/// keeps: `[event, detail, seconds into the cell]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FirstEvent(pub String, pub String, pub f64);

/// At a cell's end: every distinct event with its count and times, and how many were not
/// kept past the runner's cap.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct EventCounts {
    pub events: Vec<(String, String, u64, f64, f64)>,
    #[serde(default)]
    pub dropped: u64,
}

/// One frame from a runner.
#[derive(Debug, Clone, PartialEq)]
pub enum RunnerFrame {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    File(RunnerFile),
    End(CellEnd),
    Event(FirstEvent),
    Counts(EventCounts),
}

/// Splits a runner's stdout into frames as bytes arrive, holding at most one frame.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    pending: Vec<u8>,
}

impl FrameDecoder {
    /// Adds `bytes`; returns the frames now complete, or why the stream is not a runner's.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<RunnerFrame>, String> {
        self.pending.extend_from_slice(bytes);
        let mut frames = Vec::new();
        while self.pending.len() >= 5 {
            let length = u32::from_be_bytes(self.pending[1..5].try_into().expect("4 bytes"));
            let length = length as usize;
            if length > MAX_FRAME_BYTES {
                return Err(format!("runner frame of {length} bytes is over the limit"));
            }
            if self.pending.len() < 5 + length {
                break;
            }
            let kind = self.pending[0];
            let payload: Vec<u8> = self.pending.drain(..5 + length).skip(5).collect();
            frames.push(frame_of(kind, payload)?);
        }
        Ok(frames)
    }
}

fn frame_of(kind: u8, payload: Vec<u8>) -> Result<RunnerFrame, String> {
    let json_error = |e: serde_json::Error| format!("runner frame {:?} is bad: {e}", kind as char);
    Ok(match kind {
        b'O' => RunnerFrame::Stdout(payload),
        b'E' => RunnerFrame::Stderr(payload),
        b'F' => RunnerFrame::File(serde_json::from_slice(&payload).map_err(json_error)?),
        b'D' => RunnerFrame::End(serde_json::from_slice(&payload).map_err(json_error)?),
        b'A' => RunnerFrame::Event(serde_json::from_slice(&payload).map_err(json_error)?),
        b'S' => RunnerFrame::Counts(serde_json::from_slice(&payload).map_err(json_error)?),
        other => return Err(format!("unknown runner frame type {other:#04x}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::interpreter::InputFile;

    fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
        let mut out = vec![kind];
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn frames_split_across_reads_come_out_whole_and_in_order() {
        let mut stream = frame(b'O', b"hello");
        stream.extend(frame(b'E', b"oops"));
        stream.extend(frame(
            b'D',
            br#"{"exit_code": 3, "interrupted": false, "skipped": []}"#,
        ));
        let mut decoder = FrameDecoder::default();
        let mut frames = Vec::new();
        for chunk in stream.chunks(3) {
            frames.extend(decoder.push(chunk).unwrap());
        }
        assert_eq!(
            frames,
            [
                RunnerFrame::Stdout(b"hello".to_vec()),
                RunnerFrame::Stderr(b"oops".to_vec()),
                RunnerFrame::End(CellEnd {
                    exit_code: 3,
                    ..CellEnd::default()
                }),
            ]
        );
    }

    #[test]
    fn runtime_events_and_their_counts_are_read() {
        let mut stream = frame(b'A', br#"["open", "/etc/hosts", 0.5]"#);
        stream.extend(frame(
            b'S',
            br#"{"events": [["open", "/etc/hosts", 3, 0.5, 0.75]], "dropped": 2}"#,
        ));
        let frames = FrameDecoder::default().push(&stream).unwrap();
        assert_eq!(
            frames[0],
            RunnerFrame::Event(FirstEvent("open".into(), "/etc/hosts".into(), 0.5))
        );
        let RunnerFrame::Counts(counts) = &frames[1] else {
            panic!("{frames:?}")
        };
        assert_eq!(counts.events[0].2, 3);
        assert_eq!(counts.dropped, 2);
    }

    #[test]
    fn a_stream_that_is_not_a_runners_is_refused() {
        let mut decoder = FrameDecoder::default();
        assert!(decoder.push(b"Xhello world").is_err());
        let mut decoder = FrameDecoder::default();
        assert!(decoder.push(&[b'O', 0xff, 0xff, 0xff, 0xff]).is_err());
        let mut decoder = FrameDecoder::default();
        assert!(decoder.push(&frame(b'D', b"not json")).is_err());
    }

    #[test]
    fn a_cell_frame_is_its_length_and_json() {
        let input = CellInput {
            files: vec![InputFile {
                path: "a.csv".into(),
                content: b"x,y".to_vec().into(),
            }],
            stdin: Some(b"in".to_vec().into()),
            ..CellInput::default()
        };
        let caps = OutputCaps {
            max_files: 2,
            max_file_bytes: 10,
        };
        let frame = cell_frame("print(1)", &input, caps);
        let text = String::from_utf8(frame).unwrap();
        let (length, body) = text.split_once('\n').unwrap();
        assert_eq!(length.parse::<usize>().unwrap(), body.len());
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["code"], "print(1)");
        assert_eq!(json["files"][0]["data"], "eCx5");
        assert_eq!(json["stdin"], "aW4=");
        assert_eq!(json["max_files"], 2);
    }
}
