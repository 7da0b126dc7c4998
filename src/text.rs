//! Small text helpers that more than one actor needs (the audit log's previews and the
//! supervisor's filesystem-change paths), kept below both.

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn preview_of(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_never_cuts_a_character() {
        assert_eq!(preview_of("héllo", 2), "h");
        assert_eq!(preview_of("héllo", 3), "hé");
        assert_eq!(preview_of("abc", 10), "abc");
    }
}
