//! JSON text edited in place: what is read stays borrowed from the text as it came, what is
//! changed is spliced in, and every other byte (numbers with all their digits, escapes, key
//! order, even whitespace) stays as sent.
//!
//! A proxy that parsed messages into `serde_json::Value` and printed them again would change
//! numbers beyond `f64` (`1234567890123456789012` → `1.2345678901234568e21`) and refuse text
//! `Value` cannot hold (a lone surrogate `"\ud83d"`, `1e400`, 130 levels of nesting). Values
//! read as [`RawValue`] keep their text, and an edit is a byte range and its replacement.

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// One entry of an object read with [`entries`]: its key (unescaped) and its value as sent.
#[derive(Debug)]
pub(crate) struct Entry<'t> {
    pub key: Cow<'t, str>,
    pub value: &'t RawValue,
}

/// The entries of `text` in order, when it is a JSON object; `None` for anything else (or an
/// object whose keys cannot be read as strings, such as a key with a lone surrogate).
pub(crate) fn entries(text: &str) -> Option<Vec<Entry<'_>>> {
    struct Entries<'t>(Vec<Entry<'t>>);
    impl<'de> Deserialize<'de> for Entries<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Ok(Entries(d.deserialize_map(EntriesVisitor)?.0))
        }
    }
    serde_json::from_str::<Entries<'_>>(text).ok().map(|e| e.0)
}

/// The items of `text` in order, when it is a JSON array.
pub(crate) fn items(text: &str) -> Option<Vec<&RawValue>> {
    struct Items<'t>(Vec<&'t RawValue>);
    impl<'de> Deserialize<'de> for Items<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Items<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON array")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Items<'de>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(item) = seq.next_element::<&'de RawValue>()? {
                        out.push(item);
                    }
                    Ok(Items(out))
                }
            }
            d.deserialize_seq(V)
        }
    }
    serde_json::from_str::<Items<'_>>(text).ok().map(|i| i.0)
}

/// An object among the items of an array read by [`objects`]: the text it spans and its
/// entries.
#[derive(Debug)]
pub(crate) struct Object<'t> {
    pub text: &'t str,
    pub entries: Vec<Entry<'t>>,
}

/// The items of `text`, when it is a JSON array: each one's entries when it is an object,
/// `None` when it is not. One pass over the text when every item is an object (the common
/// case: [`items`] then [`entries`] on each would read every item twice, and a long string
/// with many escapes is slow to skip).
pub(crate) fn objects(text: &str) -> Option<Vec<Option<Object<'_>>>> {
    struct Objects<'t>(Vec<Vec<Entry<'t>>>);
    struct Fields<'t>(Vec<Entry<'t>>);
    impl<'de> Deserialize<'de> for Fields<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Ok(Fields(d.deserialize_map(EntriesVisitor)?.0))
        }
    }
    impl<'de> Deserialize<'de> for Objects<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Objects<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON array of objects")
                }
                fn visit_seq<A: SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Objects<'de>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(item) = seq.next_element::<Fields<'de>>()? {
                        out.push(item.0);
                    }
                    Ok(Objects(out))
                }
            }
            d.deserialize_seq(V)
        }
    }
    let Ok(Objects(all)) = serde_json::from_str::<Objects<'_>>(text) else {
        // Not an array, or an item that is not an object: item by item.
        return Some(
            items(text)?
                .into_iter()
                .map(|item| {
                    entries(item.get()).map(|entries| Object {
                        text: item.get(),
                        entries,
                    })
                })
                .collect(),
        );
    };
    // Each object's text: from its `{` (the first byte after the previous item, its comma and
    // whitespace) to the `}` after its last value.
    let bytes = text.as_bytes();
    let skip = |mut at: usize, also: &[u8]| {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || also.contains(&bytes[at])) {
            at += 1;
        }
        at
    };
    let mut at = span(text, text.trim_start()).start + 1;
    let mut out = Vec::with_capacity(all.len());
    for entries in all {
        let start = skip(at, b",");
        let inner = entries
            .last()
            .map_or(start + 1, |e| span(text, e.value.get()).end);
        let end = skip(inner, b"") + 1;
        out.push(Some(Object {
            text: &text[start..end],
            entries,
        }));
        at = end;
    }
    Some(out)
}

/// The entries of a map, keys unescaped and values as sent.
struct EntriesVisitor;

struct EntriesOf<'t>(Vec<Entry<'t>>);

impl<'de> Visitor<'de> for EntriesVisitor {
    type Value = EntriesOf<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EntriesOf<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value = map.next_value::<&'de RawValue>()?;
            out.push(Entry { key, value });
        }
        Ok(EntriesOf(out))
    }
}

/// The value of `key` among `entries` (the last one, as JSON parsers resolve duplicates).
pub(crate) fn get<'t>(entries: &[Entry<'t>], key: &str) -> Option<&'t RawValue> {
    entries.iter().rev().find(|e| e.key == key).map(|e| e.value)
}

/// The string a raw value holds, unescaped; `None` when it is not a string (or holds a lone
/// surrogate, which Rust strings cannot).
pub(crate) fn string(value: &RawValue) -> Option<String> {
    // The value was read as JSON already: a string literal whose escapes are well formed.
    let literal = value.get().strip_prefix('"')?.strip_suffix('"')?;
    unescape(literal.as_bytes())
}

/// The text of a well-formed JSON string literal's content (between the quotes). Copies runs
/// between backslashes: a 1 MB text of pretty JSON has an escape every few bytes, and this is
/// ~1.6× faster on it than serde_json's string parsing.
fn unescape(bytes: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut at, mut run) = (0, 0);
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        out.extend_from_slice(&bytes[run..at]);
        let simple = match *bytes.get(at + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let hex = |from: usize| {
                    let digits = std::str::from_utf8(bytes.get(from..from + 4)?).ok()?;
                    u32::from_str_radix(digits, 16).ok()
                };
                let mut code = hex(at + 2)?;
                at += 6;
                if (0xd800..0xdc00).contains(&code) {
                    // A high surrogate must pair with a low one.
                    if bytes.get(at..at + 2) != Some(b"\\u") {
                        return None;
                    }
                    let low = hex(at + 2).filter(|l| (0xdc00..0xe000).contains(l))?;
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                    at += 6;
                }
                let c = char::from_u32(code)?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                run = at;
                continue;
            }
            _ => return None,
        };
        out.push(simple);
        at += 2;
        run = at;
    }
    out.extend_from_slice(&bytes[run..]);
    String::from_utf8(out).ok()
}

/// A JSON string literal of `text` (escaped as serde_json escapes).
pub(crate) fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

/// Where `part`, a slice of `whole`, lies in it. `part` must borrow from `whole` (values read
/// by [`entries`] and [`items`] from `whole`'s text do).
pub(crate) fn span(whole: &str, part: &str) -> Range<usize> {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    assert!(
        start <= whole.len() && start + part.len() <= whole.len(),
        "span of a value that is not part of the text"
    );
    start..start + part.len()
}

/// `text` without the whitespace JSON allows around a value (a whole message often ends in a
/// newline: an entry added before its last byte would land after the closing brace).
fn json_trim(text: &str) -> &str {
    text.trim_matches([' ', '\t', '\n', '\r'])
}

/// Edits of one JSON text, applied together by [`Splice::finish`]. Ranges are byte ranges of
/// the original text and must not overlap.
#[derive(Debug)]
pub(crate) struct Splice<'t> {
    text: &'t str,
    edits: Vec<(Range<usize>, String)>,
}

impl<'t> Splice<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Splice {
            text,
            edits: Vec::new(),
        }
    }

    /// Replaces `part` (a slice of the text) with `with`.
    pub(crate) fn replace(&mut self, part: &str, with: String) {
        let range = span(self.text, part);
        self.edits.push((range, with));
    }

    /// Sets `key` of the object `object` (a slice of the text whose `entries` are given) to
    /// `value` (JSON text): replaces its last value, or adds the entry at the end.
    pub(crate) fn set(&mut self, object: &str, entries: &[Entry<'_>], key: &str, value: String) {
        match get(entries, key) {
            Some(old) => self.replace(old.get(), value),
            None => {
                let end = span(self.text, json_trim(object)).end - 1;
                let comma = if entries.is_empty() { "" } else { "," };
                self.edits
                    .push((end..end, format!("{comma}{}:{value}", quote(key))));
            }
        }
    }

    /// Inserts `with` (JSON text, its comma included) right after `part`, a slice of the text.
    pub(crate) fn insert_after(&mut self, part: &str, with: String) {
        let end = span(self.text, part).end;
        self.edits.push((end..end, with));
    }

    /// Adds `item` (JSON text) at the end of the array `array`, a slice of the text holding
    /// `len` items.
    pub(crate) fn push(&mut self, array: &str, len: usize, item: &str) {
        let end = span(self.text, json_trim(array)).end - 1;
        let comma = if len == 0 { "" } else { "," };
        self.edits.push((end..end, format!("{comma}{item}")));
    }

    /// Removes every entry `key` of the object `object` (with its comma).
    pub(crate) fn remove(&mut self, object: &str, entries: &[Entry<'_>], key: &str) {
        let whole = span(self.text, json_trim(object));
        // An entry runs from its key's opening quote, the first `"` after the previous value
        // (or the brace), to its value's end.
        let mut starts = Vec::with_capacity(entries.len());
        let mut ends = Vec::with_capacity(entries.len());
        let mut from = whole.start + 1;
        for entry in entries {
            let value = span(self.text, entry.value.get());
            let quote_at = self.text[from..value.start]
                .find('"')
                .map_or(from, |i| from + i);
            starts.push(quote_at);
            ends.push(value.end);
            from = value.end;
        }
        let doomed: Vec<usize> = (0..entries.len())
            .filter(|&i| entries[i].key == key)
            .collect();
        if doomed.len() == entries.len() {
            if !entries.is_empty() {
                self.edits
                    .push((whole.start + 1..whole.end - 1, String::new()));
            }
            return;
        }
        for &i in &doomed {
            // After a kept entry, from that entry's end (taking the comma before); in the
            // leading run of removed entries, up to the next key (taking the comma after).
            let range = if (0..i).any(|j| !doomed.contains(&j)) {
                ends[i - 1]..ends[i]
            } else {
                starts[i]..starts[i + 1]
            };
            self.edits.push((range, String::new()));
        }
    }

    /// The text with every edit applied.
    ///
    /// # Panics
    /// When two edits overlap (a bug of the caller).
    pub(crate) fn finish(mut self) -> String {
        self.edits.sort_by_key(|(r, _)| (r.start, r.end));
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for (range, with) in &self.edits {
            assert!(range.start >= at, "overlapping JSON edits");
            out.push_str(&self.text[at..range.start]);
            out.push_str(with);
            at = range.end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"{"id": 123456789012345678901234567890, "a": {"n": 1e400, "s": "\ud83d"}, "b": [1E2, 0.1000000000000000055511151231257827]}"#;

    #[test]
    fn reads_without_reprinting() {
        let e = entries(TEXT).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(
            get(&e, "id").unwrap().get(),
            "123456789012345678901234567890"
        );
        let a = entries(get(&e, "a").unwrap().get()).unwrap();
        assert_eq!(get(&a, "n").unwrap().get(), "1e400");
        assert_eq!(string(get(&a, "s").unwrap()), None);
        let b = items(get(&e, "b").unwrap().get()).unwrap();
        assert_eq!(b[1].get(), "0.1000000000000000055511151231257827");
        assert!(entries("[1]").is_none() && items("{}").is_none());
    }

    #[test]
    fn strings_unescape_as_serde_json_does() {
        for literal in [
            r#""""#,
            r#""plain é""#,
            r#""a\"b\\c\/d\be\ff\ng\rh\ti""#,
            r#""\u0041\u00e9\u20ac\ud83d\ude00 end""#,
            r#""\uD83D\uDE00\n{\"k\": [1, 2]}""#,
        ] {
            let value: Box<RawValue> = serde_json::from_str(literal).unwrap();
            let want: String = serde_json::from_str(literal).unwrap();
            assert_eq!(string(&value), Some(want), "{literal}");
        }
        for lone in [
            r#""\ud83d""#,
            r#""\ud83d\u0041""#,
            r#""\ude00""#,
            r#""x\ud83d""#,
        ] {
            let value: Box<RawValue> = serde_json::from_str(lone).unwrap();
            assert_eq!(string(&value), None, "{lone}");
        }
        let number: Box<RawValue> = serde_json::from_str("12").unwrap();
        assert_eq!(string(&number), None);
    }

    #[test]
    fn edits_keep_every_other_byte() {
        let e = entries(TEXT).unwrap();
        let mut s = Splice::new(TEXT);
        s.replace(get(&e, "b").unwrap().get(), "[]".into());
        s.set(TEXT, &e, "c", "true".into());
        let want = TEXT.replace(
            "[1E2, 0.1000000000000000055511151231257827]}",
            "[],\"c\":true}",
        );
        assert_eq!(s.finish(), want);
    }

    #[test]
    fn objects_of_an_array_in_one_pass_or_item_by_item() {
        for text in [
            r#" [ {"a": 1} , {}, {"b": "}", "c": [2] }]"#,
            r#"[{"a": 1},{},{"b": "}", "c": [2]}, 3]"#,
        ] {
            let objects = objects(text).unwrap();
            let spans: Vec<Option<&str>> =
                objects.iter().map(|o| o.as_ref().map(|o| o.text)).collect();
            let want = items(text).unwrap();
            assert_eq!(spans.len(), want.len(), "{text}");
            for (got, item) in spans.iter().zip(&want) {
                assert_eq!(
                    *got,
                    item.get().starts_with('{').then(|| item.get()),
                    "{text}"
                );
            }
            let third = objects[2].as_ref().unwrap();
            assert_eq!(third.entries.len(), 2);
            assert_eq!(get(&third.entries, "c").unwrap().get(), "[2]");
        }
        assert!(objects("{}").is_none() && objects("[").is_none());
    }

    #[test]
    fn inserts_after_values_and_at_array_ends() {
        let text = r#"{"a": [1, 2], "b": [ ]}"#;
        let e = entries(text).unwrap();
        let (a, b) = (get(&e, "a").unwrap().get(), get(&e, "b").unwrap().get());
        let mut s = Splice::new(text);
        s.insert_after(items(a).unwrap()[0].get(), ",1.5".into());
        s.push(a, 2, "3");
        s.push(b, 0, "0");
        assert_eq!(s.finish(), r#"{"a": [1,1.5, 2,3], "b": [ 0]}"#);
        // A whole text with whitespace around its object.
        let text = " {\"a\": 1, \"b\": 2}\n";
        let e = entries(text).unwrap();
        let mut s = Splice::new(text);
        s.set(text, &e, "c", "3".into());
        s.remove(text, &e, "a");
        assert_eq!(s.finish(), " {\"b\": 2,\"c\":3}\n");
    }

    #[test]
    fn removes_entries_with_one_comma() {
        for (text, key, want) in [
            (r#"{"a": 1, "b": 2, "c": 3}"#, "b", r#"{"a": 1, "c": 3}"#),
            (r#"{"a": 1, "b": 2, "c": 3}"#, "a", r#"{"b": 2, "c": 3}"#),
            (r#"{"a": 1, "b": 2, "c": 3}"#, "c", r#"{"a": 1, "b": 2}"#),
            (r#"{"a": 1}"#, "a", "{}"),
            (r#"{"a": 1, "a": 2, "b": 3}"#, "a", r#"{"b": 3}"#),
            (r#"{"b": 1, "a": 2, "a": 3}"#, "a", r#"{"b": 1}"#),
            (
                r#"{"a": 1, "b": 2, "a": 3, "c": 4}"#,
                "a",
                r#"{"b": 2, "c": 4}"#,
            ),
            (r#"{"x": 1}"#, "a", r#"{"x": 1}"#),
        ] {
            let e = entries(text).unwrap();
            let mut s = Splice::new(text);
            s.remove(text, &e, key);
            let out = s.finish();
            assert_eq!(out, want, "{text} - {key}");
            assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
        }
    }
}
