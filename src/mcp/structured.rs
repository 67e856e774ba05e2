//! When `structuredContent` may be dropped ([`Structured::Drop`](super::Structured::Drop)):
//! only when a text block already carries its data, else dropping it would delete the only
//! copy (`{"text": "Weather retrieved."}` beside the temperature).

use std::cell::OnceCell;

use super::json_text::string_end;
use super::raw;
use serde_json::Value as Json;

/// A result's `structuredContent` (its text as sent), read once for all the text blocks it is
/// compared with: a block carries its data when the block's JSON is the same value as the
/// data, or as the data's only member (servers commonly wrap what their text holds: the memory
/// server's text is the entities array, its structured content `{"entities": [...]}`), or the
/// data is one string field holding exactly the block's text (the filesystem server's
/// `{"content": TEXT}`).
///
/// Cost: each block is compared token by token without allocating, stopping at the first
/// difference; only texts whose tokens differ (key order, number spelling, escapes) are read
/// as values, and the data's values are read once whatever the number of blocks.
pub(super) struct Carried<'d> {
    /// The data, then its only member's value when it has exactly one.
    forms: Vec<Form<'d>>,
    /// The only member's string, unescaped, when it is one.
    only_string: Option<String>,
}

/// One JSON text a block may match, and its value read when a comparison first needs it.
struct Form<'d> {
    text: &'d str,
    value: OnceCell<Option<Json>>,
}

impl<'d> Form<'d> {
    fn new(text: &'d str) -> Self {
        Form {
            text: trim(text),
            value: OnceCell::new(),
        }
    }

    /// Whether `text` (a block's, unescaped, leading whitespace trimmed) is the same JSON
    /// value as this form; `text_value` is its value once read.
    fn same_as(&self, text: &str, text_value: &OnceCell<Option<Json>>) -> bool {
        // JSON texts of one value start alike; a text that does not cannot be it.
        if text.as_bytes().first() != self.text.as_bytes().first() {
            return false;
        }
        if same_tokens(text, self.text) {
            return true;
        }
        let value = self.value.get_or_init(|| exact_value(self.text));
        value
            .as_ref()
            .is_some_and(|v| text_value.get_or_init(|| exact_value(text)).as_ref() == Some(v))
    }
}

/// The value of a JSON text, when every number in it is exact in `f64`: two texts whose
/// numbers differ past `f64`'s digits would read as one value, so such texts are never equal
/// as values (only as tokens).
fn exact_value(text: &str) -> Option<Json> {
    if !crate::json::inexact_numbers(text.as_bytes()).is_empty() {
        return None;
    }
    crate::json::from_str::<Json>(text).ok()
}

impl<'d> Carried<'d> {
    /// The forms of `data`, the `structuredContent`'s text as sent.
    pub(super) fn new(data: &'d str) -> Self {
        let mut forms = vec![Form::new(data)];
        let mut only_string = None;
        if let Some(entries) = raw::entries(data)
            && let [only] = entries.as_slice()
        {
            match raw::string(only.value) {
                Some(s) => only_string = Some(s),
                None => forms.push(Form::new(only.value)),
            }
        }
        Carried { forms, only_string }
    }

    /// Whether the text block `text` (as sent, unescaped) carries the data.
    pub(super) fn by(&self, text: &str) -> bool {
        if self.only_string.as_deref() == Some(text) {
            return true;
        }
        let (text, value) = (trim(text), OnceCell::new());
        self.forms.iter().any(|f| f.same_as(text, &value))
    }
}

/// `text` without the whitespace JSON allows before a value.
fn trim(text: &str) -> &str {
    text.trim_start_matches([' ', '\t', '\n', '\r'])
}

/// Whether two JSON texts are the same tokens: equal but for the whitespace JSON allows
/// between tokens (pretty against compact). Whitespace inside a number or literal (`tr ue`)
/// is a difference, as such a text is not JSON. Linear, without allocating; strings are
/// compared as slices.
fn same_tokens(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let skip = |t: &[u8], mut at: usize| {
        while matches!(t.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    };
    // The last token byte: whitespace after a byte of a value and before another is a join.
    let mut last = b'[';
    let (mut i, mut j) = (0, 0);
    loop {
        let (ni, nj) = (skip(a, i), skip(b, j));
        let spaced = ni > i || nj > j;
        (i, j) = (ni, nj);
        let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) else {
            return i == a.len() && j == b.len();
        };
        let structural = |c: u8| matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b':');
        if x != y || (spaced && !structural(last) && !structural(x)) {
            return false;
        }
        if x == b'"' {
            let end = string_end(a, i + 1);
            if b.get(j..j + (end - i)) != Some(&a[i..end]) {
                return false;
            }
            (j, i) = (j + (end - i), end);
        } else {
            (i, j) = (i + 1, j + 1);
        }
        last = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn carries(text: &str, data: &str) -> bool {
        Carried::new(data).by(text)
    }

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
        assert!(!carries("[1 2]", "[12]"));
        assert!(!carries(r#"["a" "b"]"#, r#"["a""b"]"#));
        // The filesystem server's wrapper.
        let wrapped = r#"{"content":"[DIR] src\n[FILE] a.rs"}"#;
        assert!(carries("[DIR] src\n[FILE] a.rs", wrapped));
        assert!(!carries("[DIR] src", wrapped));
    }

    #[test]
    fn the_only_member_is_carried_by_its_json() {
        // The memory server: the array as pretty text, `{"entities": [...]}` as structured.
        let data =
            r#"{"entities":[{"name":"Ada","entityType":"person","observations":["born 1815"]}]}"#;
        let pretty = "[\n  {\n    \"name\": \"Ada\",\n    \"entityType\": \"person\",\n    \
                      \"observations\": [\n      \"born 1815\"\n    ]\n  }\n]";
        assert!(carries(pretty, data));
        // As a value: other key order and escapes.
        let data = r#"{"result":[{"a":1,"b":"\u00e9"}]}"#;
        assert!(carries(r#"[{"b": "é", "a": 1}]"#, data));
        // Part of the member, or a member beside others, is not enough.
        assert!(!carries(r#"[{"a":1}]"#, data));
        let two = r#"{"entities":[1,2],"relations":[3]}"#;
        assert!(!carries("[1,2]", two));
        assert!(carries("{\"entities\": [1, 2], \"relations\": [3]}", two));
        // Numbers past `f64`'s digits are compared as tokens only.
        let big = r#"{"n":[12345678901234567890123]}"#;
        assert!(carries("[ 12345678901234567890123 ]", big));
        assert!(!carries("[12345678901234567890124]", big));
    }

    #[test]
    fn tokens_are_compared_without_whitespace() {
        assert!(same_tokens("{ \"a\" : [1, 2] }\n", r#"{"a":[1,2]}"#));
        assert!(same_tokens(r#"{"a b":"c\" d"}"#, r#"{"a b":"c\" d"}"#));
        assert!(!same_tokens(r#"{"a b":"c"}"#, r#"{"ab":"c"}"#));
        assert!(!same_tokens(r#"{"a":"c\" d"}"#, r#"{"a":"c\"d"}"#));
        assert!(!same_tokens("[1]", "[1"));
        assert!(!same_tokens(r#"["a"#, r#"["a"]"#));
        assert!(!same_tokens("[1,2]", "[1,2,3]"));
    }
}
