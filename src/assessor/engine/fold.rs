//! Constant folding helpers for text: `%`/`.format()` substitution and the decoders and
//! decompressors that obfuscated code leans on (hex, base64, rot13, zlib, gzip, bz2, lzma),
//! so `getattr(os, bytes.fromhex(...))` resolves like `os.system`.
//!
//! Pure functions; `calls` and `scan` use them. Inputs are already bounded by `limits`;
//! decompressed output is capped at `MAX_DECOMPRESSED`.

use std::io::{Read, Write};

use super::value::{piece, Piece, Value};

/// `string.Template` substitution: `$name` and `${name}` take the named value (unknown
/// parts for names not given or not known text), `$$` is `$`.
pub fn substitute_template<'v>(template: &'v str, named: &'v [(&'v str, Value)]) -> Vec<Piece<'v>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('$') {
        pieces.push(Piece::Known(&rest[..start]));
        let after = &rest[start + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            pieces.push(Piece::Known("$"));
            rest = tail;
            continue;
        }
        let (name, tail) = match after.strip_prefix('{') {
            Some(braced) => match braced.split_once('}') {
                Some((name, tail)) => (name, tail),
                None => ("", after),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() {
            pieces.push(Piece::Known("$"));
            rest = after;
            continue;
        }
        pieces.push(match named.iter().find(|(key, _)| *key == name) {
            Some((_, value)) => piece(value),
            None => Piece::Unknown,
        });
        rest = tail;
    }
    pieces.push(Piece::Known(rest));
    pieces
}

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

/// Standard base64 of bytes, padded (`base64.b64encode`).
pub fn base64_encode(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk
            .iter()
            .enumerate()
            .fold(0u32, |g, (i, &b)| g | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            match i <= chunk.len() {
                true => out.push(ALPHABET[(group >> (18 - 6 * i) & 63) as usize] as char),
                false => out.push('='),
            }
        }
    }
    out
}

/// Lowercase hex of bytes (`binascii.hexlify`, `bytes.hex()`).
pub fn hex_encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

/// The text encoding a decoder undoes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Hex when the text is hex, else base64 (`b64decode`, `unhexlify`, `codecs.decode`).
    HexOrBase64,
    Base32,
    Base32Hex,
    Base85,
    Ascii85,
}

impl Encoding {
    pub fn decode(self, text: &str) -> Option<Vec<u8>> {
        match self {
            Self::HexOrBase64 => hex_decode(text).or_else(|| base64_decode(text)),
            Self::Base32 => base32_decode(text, false),
            Self::Base32Hex => base32_decode(text, true),
            Self::Base85 => base85_decode(text, false),
            Self::Ascii85 => base85_decode(text, true),
        }
    }
}

/// Base32 of constant text (`base64.b32decode`; `hex` for `b32hexdecode`); padding optional.
pub fn base32_decode(text: &str, hex: bool) -> Option<Vec<u8>> {
    let alphabet: &[u8] = if hex {
        b"0123456789ABCDEFGHIJKLMNOPQRSTUV"
    } else {
        b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    };
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut buffer, mut bits) = (0u64, 0);
    for byte in text
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
    {
        let value = alphabet
            .iter()
            .position(|a| *a == byte.to_ascii_uppercase())?;
        buffer = (buffer << 5) | value as u64;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
        }
    }
    Some(out)
}

/// Base85 (`base64.b85decode`) or Ascii85 (`base64.a85decode`, with or without `<~ ~>`)
/// of constant text: groups of five characters make four bytes.
pub fn base85_decode(text: &str, ascii85: bool) -> Option<Vec<u8>> {
    const B85: &[u8] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let text = match ascii85 {
        true => text.trim().trim_start_matches("<~").trim_end_matches("~>"),
        false => text,
    };
    let mut out = Vec::with_capacity(text.len() * 4 / 5);
    let mut group: Vec<u32> = Vec::with_capacity(5);
    for byte in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        if ascii85 && byte == b'z' && group.is_empty() {
            out.extend_from_slice(&[0; 4]);
            continue;
        }
        let value = match ascii85 {
            true => (b'!'..=b'u')
                .contains(&byte)
                .then(|| u32::from(byte - b'!'))?,
            false => B85.iter().position(|a| *a == byte)? as u32,
        };
        group.push(value);
        if group.len() == 5 {
            out.extend_from_slice(&base85_group(&group)?);
            group.clear();
        }
    }
    if !group.is_empty() {
        // A short last group is padded with the highest digit and cut back.
        let keep = group.len() - 1;
        group.resize(5, 84);
        out.extend_from_slice(&base85_group(&group)?[..keep]);
    }
    Some(out)
}

fn base85_group(digits: &[u32]) -> Option<[u8; 4]> {
    let value = digits
        .iter()
        .try_fold(0u32, |acc, d| acc.checked_mul(85)?.checked_add(*d))?;
    Some(value.to_be_bytes())
}

/// Most bytes a constant payload is decompressed to. A decompression bomb stops here, and
/// a prefix is enough to see what a payload imports or runs.
pub const MAX_DECOMPRESSED: usize = 1 << 20;

/// The formats of the standard library's decompressors (`zlib.decompress`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// zlib's own format; also accepts gzip and raw deflate, as `wbits` lets zlib do.
    Zlib,
    Gzip,
    Bz2,
    /// xz or the older `.lzma` format, as `lzma.decompress` accepts both.
    Lzma,
}

impl Compression {
    /// The compression behind a `codecs.decode` encoding name (`"zlib"`, `"bz2_codec"`).
    pub fn from_codec(name: &str) -> Option<Self> {
        match name.strip_suffix("_codec").unwrap_or(name) {
            "zlib" | "zip" => Some(Self::Zlib),
            "bz2" => Some(Self::Bz2),
            _ => None,
        }
    }

    /// The first `MAX_DECOMPRESSED` bytes `data` decompresses to, or None when it is not
    /// in this format. Never fails otherwise: a truncated stream yields what it held.
    pub fn decompress(self, data: &[u8]) -> Option<Vec<u8>> {
        use flate2::read::{DeflateDecoder, MultiGzDecoder, ZlibDecoder};
        // Each decoder costs a large state to set up: only the one the header names is
        // tried (raw deflate has none, so it is what is left).
        const GZIP_MAGIC: &[u8] = b"\x1f\x8b";
        let zlib_header = matches!(data, [cmf, flg, ..]
            if cmf & 0x0F == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0);
        match self {
            Self::Zlib if data.starts_with(GZIP_MAGIC) => read_capped(MultiGzDecoder::new(data)),
            Self::Zlib if zlib_header => read_capped(ZlibDecoder::new(data))
                .or_else(|| read_capped(DeflateDecoder::new(data))),
            Self::Zlib => read_capped(DeflateDecoder::new(data)),
            Self::Gzip if !data.starts_with(GZIP_MAGIC) => None,
            Self::Gzip => read_capped(MultiGzDecoder::new(data)),
            Self::Bz2 => read_capped(bzip2_rs::DecoderReader::new(data)),
            Self::Lzma => {
                let first_block = xz_lzma2_capped(data)?;
                write_capped(|out| lzma_rs::lzma2_decompress(&mut &first_block[..], out))
            }
        }
    }
}

/// The LZMA2 data of an xz stream's first block, cut after the chunk that reaches
/// `MAX_DECOMPRESSED` bytes of output. lzma-rs holds an LZMA2 block's whole output before
/// writing any of it, so the cut is what bounds its memory (a chunk unpacks to at most
/// 2 MiB). None for anything but xz (the legacy `.lzma` format is not opened).
fn xz_lzma2_capped(data: &[u8]) -> Option<Vec<u8>> {
    const XZ_MAGIC: &[u8] = b"\xFD7zXZ\x00";
    let after_header = data.strip_prefix(XZ_MAGIC)?.get(6..)?;
    // Block header: its first byte gives its size in 4-byte units, less one; 0 is the index.
    let size = usize::from(*after_header.first().filter(|b| **b != 0)?) * 4 + 4;
    let mut chunks = after_header.get(size..)?;
    let (mut kept, mut unpacked) = (Vec::new(), 0usize);
    let be16 = |c: &[u8], at: usize| -> Option<usize> {
        Some(usize::from(u16::from_be_bytes([*c.get(at)?, *c.get(at + 1)?])) + 1)
    };
    while let Some(&control) = chunks.first() {
        let (length, output) = match control {
            0x00 => break,
            0x01 | 0x02 => {
                let size = be16(chunks, 1)?;
                (3 + size, size)
            }
            0x80..=0xFF => {
                let size = (usize::from(control & 0x1F) << 16) + be16(chunks, 1)?;
                let packed = be16(chunks, 3)?;
                (5 + usize::from(control >= 0xC0) + packed, size)
            }
            _ => return None,
        };
        kept.extend_from_slice(chunks.get(..length)?);
        chunks = &chunks[length..];
        unpacked += output;
        if unpacked >= MAX_DECOMPRESSED {
            break;
        }
    }
    kept.push(0x00);
    Some(kept)
}

/// Reads at most `MAX_DECOMPRESSED` bytes; None when nothing came out (an error past the
/// start of the stream keeps what was read before it).
fn read_capped(reader: impl Read) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let _ = reader.take(MAX_DECOMPRESSED as u64).read_to_end(&mut out);
    (!out.is_empty()).then_some(out)
}

/// What a decompressor writing to a `Capped` buffer produced; None when nothing.
fn write_capped<E>(decompress: impl FnOnce(&mut Capped<'_>) -> Result<(), E>) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let _ = decompress(&mut Capped(&mut out));
    (!out.is_empty()).then_some(out)
}

/// A writer that takes `MAX_DECOMPRESSED` bytes and then refuses more, which stops the
/// decompressor writing to it.
struct Capped<'a>(&'a mut Vec<u8>);

impl Write for Capped<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = MAX_DECOMPRESSED - self.0.len();
        if room == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let taken = buf.len().min(room);
        self.0.extend_from_slice(&buf[..taken]);
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `shlex.split` of constant text: words split at blanks, quotes grouping and removed,
/// backslash escaping the next character outside single quotes.
pub fn shell_words(text: &str) -> Vec<String> {
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                word.extend(chars.next());
                in_word = true;
            }
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// `textwrap.dedent`: the leading whitespace every non-blank line shares is removed, and
/// lines of whitespace only become empty.
pub fn dedent(text: &str) -> String {
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let mut margin: Option<&str> = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let own = &line[..indent(line)];
        margin = Some(match margin {
            None => own,
            Some(m) => {
                let common = m
                    .bytes()
                    .zip(own.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &m[..common]
            }
        });
    }
    let margin = margin.unwrap_or("");
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| match l.trim().is_empty() {
            true => "",
            false => l.strip_prefix(margin).unwrap_or(l),
        })
        .collect();
    lines.join("\n")
}

/// `inspect.cleandoc`: a docstring's first line stripped, the rest dedented, and blank
/// lines at either end removed.
pub fn cleandoc(doc: &str) -> String {
    let (first, rest) = doc.split_once('\n').unwrap_or((doc, ""));
    let text = format!("{}\n{}", first.trim_start(), dedent(rest));
    text.trim_matches('\n').to_string()
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
        // base64.b32encode, b32hexencode, b85encode and a85encode of b"os.system('id')".
        let text = &b"os.system('id')"[..];
        assert_eq!(
            base32_decode("N5ZS443ZON2GK3JIE5UWIJZJ", false).as_deref(),
            Some(text)
        );
        assert_eq!(
            base32_decode("DTPISSRPEDQ6AR984TKM89P9", true).as_deref(),
            Some(text)
        );
        assert_eq!(
            base85_decode("Z*wkld2@7SZ73&cWG5*", false).as_deref(),
            Some(text)
        );
        assert_eq!(
            base85_decode("Df[OPH#n(=D($cGA1&f", true).as_deref(),
            Some(text)
        );
        assert_eq!(
            base85_decode("<~Df[OPH#n(=D($cGA1&f~>", true).as_deref(),
            Some(text)
        );
        assert_eq!(base85_decode("\"bad\"", false), None);
    }

    const BZ2_OF_TEXT: &str = "425a68393141592653591f33a718000005938000e100008622dc202000314c0000d4668469894ea3b0c1d2d1254ac9a31432f307c5dc914e142407cce9c600";

    #[test]
    fn decompressors_undo_each_format_and_stop_at_the_cap() {
        use flate2::{write::GzEncoder, write::ZlibEncoder, Compression as Level};
        let text = b"__import__('os').system('id')";
        let mut zlib = ZlibEncoder::new(Vec::new(), Level::default());
        zlib.write_all(text).unwrap();
        let zlib = zlib.finish().unwrap();
        assert_eq!(
            Compression::Zlib.decompress(&zlib).as_deref(),
            Some(&text[..])
        );
        let mut gzip = GzEncoder::new(Vec::new(), Level::default());
        gzip.write_all(text).unwrap();
        let gzip = gzip.finish().unwrap();
        assert_eq!(
            Compression::Gzip.decompress(&gzip).as_deref(),
            Some(&text[..])
        );
        // zlib.decompress(data, wbits=31) reads gzip too.
        assert_eq!(
            Compression::Zlib.decompress(&gzip).as_deref(),
            Some(&text[..])
        );
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut &text[..], &mut xz).unwrap();
        assert_eq!(
            Compression::Lzma.decompress(&xz).as_deref(),
            Some(&text[..])
        );
        // bz2.compress(b"__import__('os').system('id')"), made with Python.
        let bz2 = hex_decode(BZ2_OF_TEXT).unwrap();
        assert_eq!(
            Compression::Bz2.decompress(&bz2).as_deref(),
            Some(&text[..])
        );
        assert_eq!(Compression::Zlib.decompress(b"not compressed"), None);
        assert_eq!(Compression::Bz2.decompress(b"not compressed"), None);
        assert_eq!(Compression::Lzma.decompress(b"not compressed"), None);
        // A bomb: 64 MiB of zeros in a few kilobytes stops at the cap.
        let mut bomb = ZlibEncoder::new(Vec::new(), Level::best());
        bomb.write_all(&vec![0; 64 << 20]).unwrap();
        let bomb = bomb.finish().unwrap();
        assert!(bomb.len() < 100_000);
        let out = Compression::Zlib.decompress(&bomb).unwrap();
        assert_eq!(out.len(), MAX_DECOMPRESSED);
        // xz of 64 MiB of zeros, made with Python's lzma.compress (under 10 KB): the output
        // stops within one LZMA2 chunk (2 MiB) of the cap.
        let xz_bomb = base64_decode(include_str!("xz_64_mib_of_zeros.b64")).unwrap();
        let out = Compression::Lzma.decompress(&xz_bomb).unwrap();
        assert!(out.len() >= MAX_DECOMPRESSED && out.len() <= MAX_DECOMPRESSED + (2 << 20));
    }

    #[test]
    fn shell_words_split_as_shlex_does() {
        assert_eq!(
            shell_words("find / -name 'a b' -exec \"rm\" {} \\;"),
            ["find", "/", "-name", "a b", "-exec", "rm", "{}", ";"]
        );
        assert_eq!(shell_words("  "), Vec::<String>::new());
        assert_eq!(shell_words("x ''"), ["x", ""]);
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
