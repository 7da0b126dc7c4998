//! Unified diffs of a submission against the same client's previous one (`similar`'s
//! Myers diff, bounded in time). Pure: no I/O. Used by `payloads` when a `received`
//! entry is written; the diff is kept as a `code_diff` blob.

use std::time::Duration;

use similar::TextDiff;

/// Longest a diff may compute before it settles for a coarser (still correct) answer.
const DIFF_DEADLINE: Duration = Duration::from_millis(500);
/// Context lines around each change.
const CONTEXT_LINES: usize = 3;

/// The unified diff turning `old` (request `old_id`) into `new` (request `new_id`); empty
/// when they are the same.
pub fn unified_diff(old_id: &str, old: &str, new_id: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(old, new);
    diff.unified_diff()
        .context_radius(CONTEXT_LINES)
        .header(&format!("{old_id}.py"), &format!("{new_id}.py"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_unified_hunk() {
        let diff = unified_diff("a", "x = 1\nprint(x)\n", "b", "x = 2\nprint(x)\n");
        assert!(
            diff.starts_with("--- a.py\n+++ b.py\n@@ -1,2 +1,2 @@\n"),
            "{diff}"
        );
        assert!(diff.contains("-x = 1\n+x = 2\n print(x)\n"), "{diff}");
    }

    #[test]
    fn the_same_code_has_an_empty_diff() {
        assert_eq!(unified_diff("a", "print(1)\n", "b", "print(1)\n"), "");
    }
}
