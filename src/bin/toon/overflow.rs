//! JSON numbers beyond the range of f64 (`1e400`, 400-digit integers) on the routes that
//! reshape a `toon::Value` (`--fields`, `--tabularize`, `--budget`, `--auto`), whose numbers
//! are `u64`, `i64` or `f64`: JavaScript's `JSON.parse` reads them as ±Infinity and the
//! reference encoder writes non-finite numbers as `null` (§3). serde_json refuses them instead
//! ("number out of range"), so the CLI rewrites exactly those numbers as `null` and parses
//! again. (Plain `toon -e` keeps every digit instead: `Recording::from_json_slice`.)

/// `text` with every number outside strings that overflows f64 replaced by `null` padded
/// with spaces to the same length (positions in later error messages stay right), or `None`
/// when there is no such number.
pub(crate) fn nulled(text: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => at = string_end(text, at + 1),
            b'-' | b'0'..=b'9' => {
                let end = number_end(text, at);
                if overflows(&text[at..end]) {
                    let copy = out.get_or_insert_with(|| text.to_vec());
                    copy[at..at + 4].copy_from_slice(b"null");
                    copy[at + 4..end].fill(b' ');
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    out
}

/// The index just past the closing quote of a string whose content starts at `at`.
fn string_end(text: &[u8], mut at: usize) -> usize {
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    text.len()
}

fn number_end(text: &[u8], mut at: usize) -> usize {
    while at < text.len() && matches!(text[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
        at += 1;
    }
    at
}

/// A well-formed number whose value is beyond f64 (at least `1e309`, so `null` fits).
fn overflows(number: &[u8]) -> bool {
    std::str::from_utf8(number)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(f64::is_infinite)
}

#[cfg(test)]
mod tests {
    use super::nulled;

    fn rewrite(text: &str) -> Option<String> {
        nulled(text.as_bytes()).map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn only_overflowing_numbers_outside_strings_change() {
        assert_eq!(rewrite("[1e400, 1]").as_deref(), Some("[null , 1]"));
        assert_eq!(
            rewrite("{\"a\":-1E+400}").as_deref(),
            Some("{\"a\":null   }")
        );
        let big = format!("[{}]", "9".repeat(400));
        assert_eq!(rewrite(&big), Some(format!("[null{}]", " ".repeat(396))));
        assert_eq!(rewrite("[\"1e400\", \"\\\"1e400\"]"), None);
        assert_eq!(
            rewrite("[1e308, 1e-400, 123456789012345678901234567890]"),
            None
        );
        assert_eq!(
            rewrite("{\"1e400\": 2e400}").as_deref(),
            Some("{\"1e400\": null }")
        );
    }
}
