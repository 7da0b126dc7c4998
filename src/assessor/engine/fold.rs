//! Constant folding helpers for text: `%`/`.format()` substitution and the decoders that
//! obfuscated code leans on (hex, base64, rot13), so `getattr(os, bytes.fromhex(...))`
//! resolves like `os.system`.
//!
//! Pure functions; `calls` and `scan` use them. Inputs are already bounded by `limits`.

use super::value::{piece, Piece, Value};

/// Fills `%s`-style or `{}`-style placeholders with the given values, in order; values
/// that are not known text become unknown parts. `{name}`, `{0}`, `{name!r}` (`str.format`)
/// and `%(name)s` (`%` with a dict) take the named or numbered value (`!r` quotes known
/// text as `repr` would).
pub fn substitute_named<'v>(
    template: &'v str,
    args: &'v [Value],
    named: &'v [(&'v str, Value)],
    braces: bool,
) -> Vec<Piece<'v>> {
    let mut pieces = Vec::new();
    let mut next = args.iter();
    let mut rest = template;
    while let Some(start) = rest.find(if braces { '{' } else { '%' }) {
        pieces.push(Piece::Known(&rest[..start]));
        let after = &rest[start + 1..];
        if after.starts_with(if braces { '{' } else { '%' }) {
            pieces.push(Piece::Known(&rest[start..start + 1]));
            rest = &after[1..];
            continue;
        }
        // `%(name)s` takes `name` from a mapping.
        let mapping_key = (!braces && after.starts_with('('))
            .then(|| after[1..].split_once(')').map(|(key, _)| key))
            .flatten();
        let end = if braces {
            after.find('}').map_or(after.len(), |e| e + 1)
        } else {
            let from = mapping_key.map_or(0, |key| key.len() + 2);
            after[from..]
                .find(|c: char| c.is_ascii_alphabetic())
                .map_or(after.len(), |e| from + e + 1)
        };
        let field = match mapping_key {
            Some(key) => key,
            None => &after[..end.saturating_sub(1)],
        };
        let (key, conversion) = match field.split_once('!') {
            Some((key, conversion)) => (key, conversion.chars().next()),
            None => (field.split(':').next().unwrap_or(""), None),
        };
        let key = key.split(':').next().unwrap_or("");
        let value = if let Some(key) = mapping_key {
            named.iter().find(|(name, _)| *name == key).map(|(_, v)| v)
        } else if !braces || key.is_empty() {
            next.next()
        } else if let Ok(index) = key.parse::<usize>() {
            args.get(index)
        } else {
            named.iter().find(|(name, _)| *name == key).map(|(_, v)| v)
        };
        match (value, conversion) {
            (Some(value), Some('r')) if value.exact_text().is_some() => {
                pieces.push(Piece::Known("'"));
                pieces.push(piece(value));
                pieces.push(Piece::Known("'"));
            }
            (Some(value), _) if value.as_int().is_none() => pieces.push(piece(value)),
            _ => pieces.push(Piece::Unknown),
        }
        rest = &after[end..];
    }
    pieces.push(Piece::Known(rest));
    pieces
}

/// `bytes.fromhex` / `binascii.unhexlify` of constant text.
pub fn hex_decode(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks(2)
        .map(|pair| Some((hex_digit(pair[0])? << 4) | hex_digit(pair[1])?))
        .collect()
}

fn hex_digit(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|d| d as u8)
}

/// Standard or URL-safe base64 of constant text; padding optional.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for byte in text.bytes() {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            b if b.is_ascii_whitespace() => continue,
            _ => return None,
        };
        buffer = (buffer << 6) | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

pub fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assessor::engine::value::Folder;

    #[test]
    fn decoders_undo_common_encodings() {
        // Hex, base64 and rot13 of "system" decode back to "system".
        assert_eq!(hex_decode("73797374656d").as_deref(), Some(&b"system"[..]));
        assert_eq!(base64_decode("c3lzdGVt").as_deref(), Some(&b"system"[..]));
        assert_eq!(rot13("flfgrz"), "system");
        assert_eq!(hex_decode("7"), None);
    }

    #[test]
    fn placeholders_take_known_text() {
        // "rm -rf %s" % "/" folds to "rm -rf /"; unknown arguments leave a marker.
        let mut folder = Folder::default();
        let slash = folder.literal("/");
        let value = folder.join(
            substitute_named("rm -rf %s", std::slice::from_ref(&slash), &[], false),
            Default::default(),
        );
        assert_eq!(value.exact_text(), Some("rm -rf /"));
        let value = folder.join(
            substitute_named("echo {} {}", &[], &[], true),
            Default::default(),
        );
        assert_eq!(value.exact_text(), None);
        let named = [
            ("fn", folder.literal("popen")),
            ("arg", folder.literal("ls")),
        ];
        let value = folder.join(
            substitute_named(
                "os.{fn}({arg!r}) {0}",
                std::slice::from_ref(&slash),
                &named,
                true,
            ),
            Default::default(),
        );
        assert_eq!(value.exact_text(), Some("os.popen('ls') /"));
    }
}
