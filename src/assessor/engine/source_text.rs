//! Bytes of a file to the text Python would read (PEP 263): UTF-8 unless a coding cookie
//! in the first two lines names another encoding; and files that are not text at all.
//!
//! Called by `cordon assess` before the engine; pure (no I/O). Single-byte encodings other
//! than Latin-1 and cp1252 are read as Latin-1: every byte stays one character, so the
//! code's ASCII structure, which is all the rules look at, is exact.

use std::borrow::Cow;

/// What a file's bytes are, for the assessor.
#[derive(Debug, PartialEq, Eq)]
pub enum SourceText<'b> {
    Text(Cow<'b, str>),
    /// Binary data (NUL bytes, mostly control characters): not Python source.
    NotText,
}

/// How much of the start of a file is sampled to tell text from binary.
const SAMPLE_BYTES: usize = 8192;

/// Decodes `bytes` as Python would, or says it is not text.
pub fn decode_source(bytes: &[u8]) -> SourceText<'_> {
    if !looks_like_text(&bytes[..bytes.len().min(SAMPLE_BYTES)]) {
        return SourceText::NotText;
    }
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = match coding_cookie(bytes).as_deref() {
        None | Some("utf-8" | "utf8" | "utf-8-sig" | "ascii" | "us-ascii") => {
            match std::str::from_utf8(bytes) {
                Ok(text) => Cow::Borrowed(text),
                // Python would refuse it; reading it byte for byte still shows the code.
                Err(_) => latin1(bytes),
            }
        }
        Some("cp1252" | "windows-1252") => bytes.iter().map(|b| cp1252(*b)).collect(),
        Some(_) => latin1(bytes),
    };
    SourceText::Text(text)
}

fn latin1(bytes: &[u8]) -> Cow<'_, str> {
    Cow::Owned(bytes.iter().map(|b| char::from(*b)).collect())
}

/// No NUL byte, and at most one byte in ten a control character other than whitespace.
fn looks_like_text(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return false;
    }
    let control = sample
        .iter()
        .filter(|b| (**b < 0x20 && !b"\t\n\r\x0c".contains(b)) || **b == 0x7f)
        .count();
    control * 10 <= sample.len()
}

/// The encoding named by a `coding[:=]` comment in the first two lines, normalised
/// (lowercase, `_` as `-`), as PEP 263 reads it.
fn coding_cookie(bytes: &[u8]) -> Option<String> {
    for line in bytes.split(|b| *b == b'\n').take(2) {
        let line = String::from_utf8_lossy(line);
        let trimmed = line.trim_start_matches([' ', '\t', '\x0c']);
        let Some(comment) = trimmed.strip_prefix('#') else {
            if trimmed.trim().is_empty() {
                continue;
            }
            return None; // code on line 1: the second line is not looked at
        };
        let Some(at) = comment.find("coding") else {
            continue;
        };
        let rest = &comment[at + "coding".len()..];
        let Some(rest) = rest.strip_prefix([':', '=']) else {
            continue;
        };
        let name: String = rest
            .trim_start_matches([' ', '\t'])
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            .collect();
        if !name.is_empty() {
            return Some(name.to_ascii_lowercase().replace('_', "-"));
        }
    }
    None
}

/// One byte of Windows-1252.
fn cp1252(byte: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match byte {
        0x80..=0x9f => HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> String {
        match decode_source(bytes) {
            SourceText::Text(text) => text.into_owned(),
            SourceText::NotText => panic!("not text"),
        }
    }

    #[test]
    fn utf8_without_a_cookie_is_read_as_is() {
        // Plain UTF-8 (with or without a BOM) is borrowed unchanged.
        assert_eq!(text("x = 'é'\n".as_bytes()), "x = 'é'\n");
        assert_eq!(text(b"\xef\xbb\xbfx = 1\n"), "x = 1\n");
    }

    #[test]
    fn a_coding_cookie_picks_the_encoding() {
        // Latin-1 and cp1252 files decode as Python would read them.
        let latin = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n";
        assert!(text(latin).contains("name = 'été'"));
        let second_line = b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ns = '\x80'\n";
        assert!(text(second_line).contains("s = '€'"));
        assert_eq!(
            coding_cookie(b"import os\n# coding: latin-1\n"),
            None,
            "a cookie after code does not count"
        );
    }

    #[test]
    fn binary_data_is_not_text() {
        // NUL bytes or mostly control characters are not Python source.
        assert_eq!(
            decode_source(b"\x7fELF\x02\x01\x01\0\0\0"),
            SourceText::NotText
        );
        assert_eq!(
            decode_source(&[1, 2, 3, 4, 5, 6, 7, 8]),
            SourceText::NotText
        );
        assert!(matches!(decode_source(b"x\xff\xfe"), SourceText::Text(_)));
    }
}
