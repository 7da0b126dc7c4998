//! Static disassembly of constant pickle payloads: walks the opcodes (protocols 0 to 5)
//! and lists the globals the payload would import, without executing anything. A payload
//! that imports `os.system`, `subprocess.*`, `builtins.eval` and the like runs code when
//! loaded.
//!
//! Called by `calls` for `pickle.loads` / `marshal.loads` of a constant. Pure; bounded by
//! the payload's length (every opcode advances, memo and string stacks are capped).

/// Most globals and remembered strings kept per payload.
const MAX_TRACKED: usize = 256;

/// The `module.name` globals a pickle would import (`GLOBAL`, `INST`, `STACK_GLOBAL`),
/// in order; stops quietly at the first opcode it does not know.
pub fn globals(data: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    let mut reader = Reader { data, at: 0 };
    // Strings pushed recently (for `STACK_GLOBAL`), and the memo (for `GET`s).
    let mut strings: Vec<Option<String>> = Vec::new();
    let mut memo: Vec<(u64, Option<String>)> = Vec::new();
    while let Some(op) = reader.byte() {
        let pushed: Option<Option<String>> = match op {
            b'c' | b'i' => {
                let (Some(module), Some(name)) = (reader.line(), reader.line()) else {
                    break;
                };
                found.push(format!("{}.{}", text(module), text(name)));
                Some(None)
            }
            0x93 => {
                // STACK_GLOBAL: module and name are the two strings on top of the stack.
                let name = strings.pop().flatten();
                let module = strings.pop().flatten();
                if let (Some(module), Some(name)) = (module, name) {
                    found.push(format!("{module}.{name}"));
                }
                Some(None)
            }
            b'S' | b'V' => Some(reader.line().map(|l| unquote(&text(l)))),
            b'T' | b'X' | b'B' => reader.sized(4).map(|s| Some(text(s))),
            b'U' | 0x8c | b'C' => reader.sized(1).map(|s| Some(text(s))),
            0x8d | 0x8e | 0x96 => reader.sized(8).map(|s| Some(text(s))),
            0x8a => reader.sized(1).map(|_| None),
            0x8b => reader.sized(4).map(|_| None),
            b'I' | b'L' | b'F' | b'P' => reader.line().map(|_| None),
            b'p' => {
                let index = reader.line().and_then(|l| text(l).trim().parse().ok());
                remember(&mut memo, index, &strings);
                continue;
            }
            b'q' | b'r' => {
                let index = reader.int(if op == b'q' { 1 } else { 4 });
                remember(&mut memo, index, &strings);
                continue;
            }
            0x94 => {
                let index = memo.len() as u64;
                remember(&mut memo, Some(index), &strings);
                continue;
            }
            b'g' => {
                let index: Option<u64> = reader.line().and_then(|l| text(l).trim().parse().ok());
                Some(recall(&memo, index))
            }
            b'h' | b'j' => {
                let index = reader.int(if op == b'h' { 1 } else { 4 });
                Some(recall(&memo, index))
            }
            b'J' => reader.skip(4).map(|_| None),
            b'K' | 0x80 | 0x82 => reader.skip(1).map(|_| None),
            b'M' | 0x83 => reader.skip(2).map(|_| None),
            0x84 => reader.skip(4).map(|_| None),
            b'G' | 0x95 => reader.skip(8).map(|_| None),
            b'.' => break,
            b'('
            | b'0'
            | b'1'
            | b'2'
            | b'N'
            | b'R'
            | b'a'
            | b'b'
            | b'd'
            | b'}'
            | b'e'
            | b'l'
            | b']'
            | b'o'
            | b's'
            | b'u'
            | b't'
            | b')'
            | 0x81
            | 0x85..=0x92
            | 0x97
            | 0x98
            | b'Q' => Some(None),
            _ => break,
        };
        match pushed {
            Some(value) if strings.len() < MAX_TRACKED => strings.push(value),
            Some(_) => {}
            None => break, // truncated argument
        }
        if found.len() >= MAX_TRACKED {
            break;
        }
    }
    found
}

fn remember(memo: &mut Vec<(u64, Option<String>)>, index: Option<u64>, strings: &[Option<String>]) {
    if let (Some(index), true) = (index, memo.len() < MAX_TRACKED) {
        memo.push((index, strings.last().cloned().flatten()));
    }
}

fn recall(memo: &[(u64, Option<String>)], index: Option<u64>) -> Option<String> {
    let index = index?;
    memo.iter().rev().find(|(i, _)| *i == index)?.1.clone()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `'abc'` or `"abc"` as protocol 0 writes `STRING` arguments.
fn unquote(line: &str) -> String {
    let line = line.trim_end_matches('\r');
    line.strip_prefix('\'')
        .and_then(|l| l.strip_suffix('\''))
        .or_else(|| line.strip_prefix('"').and_then(|l| l.strip_suffix('"')))
        .unwrap_or(line)
        .to_string()
}

struct Reader<'d> {
    data: &'d [u8],
    at: usize,
}

impl<'d> Reader<'d> {
    fn byte(&mut self) -> Option<u8> {
        let byte = *self.data.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    fn skip(&mut self, n: usize) -> Option<&'d [u8]> {
        let end = self.at.checked_add(n)?;
        let bytes = self.data.get(self.at..end)?;
        self.at = end;
        Some(bytes)
    }

    fn int(&mut self, width: usize) -> Option<u64> {
        let bytes = self.skip(width)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |n, b| (n << 8) | u64::from(*b)),
        )
    }

    /// A length of `width` little-endian bytes, then that many bytes.
    fn sized(&mut self, width: usize) -> Option<&'d [u8]> {
        let len = usize::try_from(self.int(width)?).ok()?;
        self.skip(len)
    }

    fn line(&mut self) -> Option<&'d [u8]> {
        let rest = self.data.get(self.at..)?;
        let end = rest.iter().position(|b| *b == b'\n')?;
        self.at += end + 1;
        Some(&rest[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_zero_globals_are_read() {
        // `cos\nsystem\n(S'id'\ntR.` imports os.system.
        assert_eq!(globals(b"cos\nsystem\n(S'id'\ntR."), ["os.system"]);
    }

    #[test]
    fn stack_global_takes_the_strings_before_it() {
        // Protocol 4: SHORT_BINUNICODE "posix", MEMOIZE, SHORT_BINUNICODE "system",
        // MEMOIZE, STACK_GLOBAL.
        let payload =
            b"\x80\x04\x95\x1d\x00\x00\x00\x00\x00\x00\x00\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x02id\x94\x85\x94R\x94.";
        assert_eq!(globals(payload), ["posix.system"]);
    }

    #[test]
    fn plain_data_imports_nothing_and_garbage_stops() {
        // A pickled string or list has no globals; unknown opcodes end the walk.
        assert!(
            globals(b"\x80\x04\x95\x08\x00\x00\x00\x00\x00\x00\x00\x8c\x04text\x94.").is_empty()
        );
        assert!(globals(b"\xff\xfe garbage").is_empty());
        assert!(globals(b"X\xff\xff\xff\x7f").is_empty());
    }
}
