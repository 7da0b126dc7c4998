//! Finds many short marker strings in a piece of text in one pass, case-insensitively:
//! a bitmap of every marker's first two bytes filters positions, and only positions that
//! pass are compared.
//!
//! Used for the built-in mining and container-escape markers (`paths`) and for configured
//! IOC strings (`policy`). Every string literal of a program goes through it, so it must
//! cost about one bit test per byte.

use rustc_hash::FxHashMap as HashMap;

/// Which list a marker came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Mining,
    Escape,
    Ioc,
}

/// One marker, lowercased, with the list it came from.
type Marker = (Box<[u8]>, Tag);

/// A set of lowercase ASCII-insensitive markers of at least two bytes.
#[derive(Debug, Default)]
pub struct MarkerSet {
    /// One bit per possible (lowercased) two-byte prefix.
    prefixes: Vec<u64>,
    /// Markers by their two-byte prefix.
    by_prefix: HashMap<u16, Vec<Marker>>,
}

fn prefix_key(a: u8, b: u8) -> u16 {
    (u16::from(a.to_ascii_lowercase()) << 8) | u16::from(b.to_ascii_lowercase())
}

impl MarkerSet {
    pub fn new<'m>(markers: impl IntoIterator<Item = (&'m str, Tag)>) -> MarkerSet {
        let mut set = MarkerSet {
            prefixes: vec![0; 1 << 10],
            by_prefix: HashMap::default(),
        };
        for (marker, tag) in markers {
            let bytes = marker.trim().to_ascii_lowercase().into_bytes();
            if bytes.len() < 2 {
                continue;
            }
            let key = prefix_key(bytes[0], bytes[1]);
            set.prefixes[usize::from(key >> 6)] |= 1 << (key & 63);
            set.by_prefix
                .entry(key)
                .or_default()
                .push((bytes.into_boxed_slice(), tag));
        }
        set
    }

    fn may_start(&self, key: u16) -> bool {
        self.prefixes
            .get(usize::from(key >> 6))
            .is_some_and(|word| word & (1 << (key & 63)) != 0)
    }

    /// Calls `found` with the tag of every marker occurring in `text` (once per position).
    pub fn find(&self, text: &str, mut found: impl FnMut(Tag)) {
        if self.by_prefix.is_empty() {
            return;
        }
        let bytes = text.as_bytes();
        for i in 0..bytes.len().saturating_sub(1) {
            let key = prefix_key(bytes[i], bytes[i + 1]);
            if !self.may_start(key) {
                continue;
            }
            for (marker, tag) in self.by_prefix.get(&key).into_iter().flatten() {
                let end = i + marker.len();
                if end <= bytes.len() && bytes[i..end].eq_ignore_ascii_case(marker) {
                    found(*tag);
                }
            }
        }
    }

    pub fn contains(&self, text: &str, tag: Tag) -> bool {
        let mut hit = false;
        self.find(text, |t| hit |= t == tag);
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markers_anywhere_ignoring_case() {
        // Markers match inside longer text, in any case, and report their own tag.
        let set = MarkerSet::new([("xmrig", Tag::Mining), ("docker.sock", Tag::Escape)]);
        let mut tags = Vec::new();
        set.find("run ./XMRig -c /var/run/docker.sock", |t| tags.push(t));
        assert_eq!(tags, vec![Tag::Mining, Tag::Escape]);
        assert!(!set.contains("xmri", Tag::Mining));
        assert!(set.contains("..xmrig", Tag::Mining));
    }

    #[test]
    fn empty_and_one_byte_markers_are_ignored() {
        // Markers shorter than two bytes would match nearly everything.
        let set = MarkerSet::new([("x", Tag::Ioc), ("", Tag::Ioc)]);
        assert!(!set.contains("xxx", Tag::Ioc));
    }
}
