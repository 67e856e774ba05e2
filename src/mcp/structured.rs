//! When `structuredContent` may be dropped ([`Structured::Drop`](super::Structured::Drop)):
//! only when a text block already carries its data, else dropping it would delete the only
//! copy (`{"text": "Weather retrieved."}` beside the temperature).

use super::raw;
use crate::json_text::{exact_in_f64, minify, numbers};
use serde::de::IgnoredAny;
use serde_json::Value as Json;

/// Whether the text block `text` (as sent, unescaped) carries the data of `structured` (the
/// `structuredContent`'s text as sent): its JSON is the same text but for whitespace, or the same
/// value, or `structured` is one string field holding exactly `text` (the filesystem server's
/// `{"content": TEXT}`: every character is in the block, only the wrapper's key is not).
pub(super) fn carries(text: &str, data: &str) -> bool {
    if let Some(entries) = raw::entries(data)
        && let [only] = entries.as_slice()
        && raw::string(only.value).is_some_and(|s| s == text)
    {
        return true;
    }
    // JSON texts start alike; a text that does not cannot be the same data.
    if text.trim_start().as_bytes().first() != data.as_bytes().first() {
        return false;
    }
    if minify(text) == minify(data) {
        // `minify` drops whitespace even where JSON would not allow it: check it is JSON.
        return serde_json::from_str::<IgnoredAny>(text).is_ok();
    }
    // Compared as values only when every number is exact: two texts whose numbers differ
    // past `f64`'s digits would read as one value.
    let exact = |t: &str| numbers(t.as_bytes()).all(|r| exact_in_f64(&t.as_bytes()[r]));
    if !exact(text) || !exact(data) {
        return false;
    }
    match (
        crate::json::from_str::<Json>(text),
        crate::json::from_str::<Json>(data),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carried_only_when_the_text_holds_the_data() {
        let data = r#"{"temperature":22.5,"unit":"C","big":12345678901234567890123}"#;
        for text in [
            r#"{"temperature":22.5,"unit":"C","big":12345678901234567890123}"#,
            "{\n  \"temperature\": 22.5,\n  \"unit\": \"C\",\n  \"big\": 12345678901234567890123\n}",
        ] {
            assert!(carries(text, data), "{text}");
        }
        for text in [
            "Weather retrieved.",
            r#"{"temperature":22.5,"unit":"C","big":12345678901234567890124}"#,
            r#"{"temperature":22.5,"unit":"C"}"#,
        ] {
            assert!(!carries(text, data), "{text}");
        }
        // Same value in another key order or number spelling.
        let exact = r#"{"a":1,"b":[2.5,1E2]}"#;
        assert!(carries(r#"{"b": [2.5, 100.0], "a": 1}"#, exact));
        // Whitespace that is not JSON's is not the same text.
        assert!(!carries("tr ue", "true"));
        // The filesystem server's wrapper.
        let wrapped = r#"{"content":"[DIR] src\n[FILE] a.rs"}"#;
        assert!(carries("[DIR] src\n[FILE] a.rs", wrapped));
        assert!(!carries("[DIR] src", wrapped));
    }
}
