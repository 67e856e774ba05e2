//! JSON text edited in place: what is read stays borrowed from the text as it came, what is
//! changed is spliced in, and every other byte (numbers with all their digits, escapes, key
//! order, even whitespace) stays as sent.
//!
//! A proxy that parsed messages into `serde_json::Value` and printed them again would change
//! numbers beyond `f64` (`1234567890123456789012` → `1.2345678901234568e21`) and refuse text
//! `Value` cannot hold (a lone surrogate `"\ud83d"`, `1e400`, 130 levels of nesting). Values
//! read as [`RawValue`] keep their text, and an edit is a byte range and its replacement.
//!
//! A `tools/call` result is read in one pass by [`call_result`]: its own entries, its
//! `content` array's objects and their entries, each value's text found once. A 1 MB result
//! is mostly one `text` string with an escape every few bytes; that string is validated and
//! unescaped together by [`literal`] (reading it as a [`RawValue`] inside the result, again
//! inside `content`, then unescaping it, took three passes).

use std::borrow::Cow;
use std::ops::Range;

use serde::Deserialize;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::json_text::byte_matches;

/// One entry of a JSON object (read by [`entries`], [`call_result`] or the one-pass
/// reader): its key (unescaped) and its value's text as sent (a slice of the whole text).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Member<'t> {
    pub key: Cow<'t, str>,
    pub value: &'t str,
}

/// The entries of `text` in order, when it is a JSON object; `None` for anything else (or an
/// object whose keys cannot be read as strings, such as a key with a lone surrogate).
pub(crate) fn entries(text: &str) -> Option<Vec<Member<'_>>> {
    serde_json::from_str::<MemberList<'_>>(text)
        .ok()
        .map(|e| e.0)
}

/// The items of `text` in order, when it is a JSON array.
pub(crate) fn items(text: &str) -> Option<Vec<&RawValue>> {
    struct Items<'t>(Vec<&'t RawValue>);
    impl<'de> Deserialize<'de> for Items<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct ItemsVisitor;
            impl<'de> Visitor<'de> for ItemsVisitor {
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
            d.deserialize_seq(ItemsVisitor)
        }
    }
    serde_json::from_str::<Items<'_>>(text).ok().map(|i| i.0)
}

/// A `tools/call` result read by [`call_result`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CallResult<'t> {
    /// Its entries in order, `content` among them.
    pub members: Vec<Member<'t>>,
    /// Its (last) `content`, when that is an array.
    pub content: Option<Content<'t>>,
}

/// A result's `content` array: its text and its items, each one's entries when it is an
/// object and `None` when it is not.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Content<'t> {
    pub json: &'t str,
    pub items: Vec<Option<ContentObject<'t>>>,
}

/// An object among the items of `content`: the text it spans, its entries, and its `text`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ContentObject<'t> {
    pub json: &'t str,
    pub members: Vec<Member<'t>>,
    /// Its (last) `text` entry, read with the object; `None` when it has none.
    pub text: Option<ItemText<'t>>,
}

/// The `text` of a content item.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ItemText<'t> {
    /// A string, unescaped.
    String(Cow<'t, str>),
    /// Not a string, or one holding a lone surrogate (which Rust strings cannot).
    Unreadable,
}

impl<'t> ItemText<'t> {
    /// The text of a value read as sent.
    fn of(value: &'t str) -> Self {
        match unquote(value) {
            Some(s) => ItemText::String(s),
            None => ItemText::Unreadable,
        }
    }
}

/// `text` read as a `tools/call` result: `None` when it is not a JSON object (or has a key
/// that cannot be read as a string). One pass over the text when `content` is an array of
/// objects whose keys can all be read (the results servers send); otherwise the entries are
/// read with serde_json and `content` item by item, as before the one-pass reader.
///
/// Every item's `text` is unescaped as it is read: a result of several large text blocks
/// holds all of them unescaped while its blocks are converted, where unescaping one block at
/// a time held one (a single block, the common case, is read once instead of twice).
pub(crate) fn call_result(text: &str) -> Option<CallResult<'_>> {
    let mut reader = OnePassReader { text, at: 0 };
    reader.call_result().or_else(|| call_result_by_serde(text))
}

/// [`call_result`] with serde_json reading the entries, then `content`'s objects.
fn call_result_by_serde(text: &str) -> Option<CallResult<'_>> {
    let entries = entries(text)?;
    let content = get(&entries, "content").and_then(|content| {
        Some(Content {
            json: content,
            items: objects(content)?,
        })
    });
    Some(CallResult {
        members: entries,
        content,
    })
}

/// A cursor over JSON text for the one-pass reader. Structure (objects, arrays, commas) is
/// walked here; every value it does not walk is read by serde_json as a [`RawValue`], and
/// strings by [`literal`], so it accepts exactly what serde_json accepts. `None` means
/// "not read here": the caller falls back to serde_json, which decides.
struct OnePassReader<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> OnePassReader<'t> {
    /// The next byte after JSON whitespace, not consumed.
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    /// Consumes `byte`, the next one after whitespace.
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Any value, as its text.
    fn value(&mut self) -> Option<&'t str> {
        self.peek()?;
        let mut de = serde_json::Deserializer::from_str(&self.text[self.at..]);
        let value = <&RawValue>::deserialize(&mut de).ok()?.get();
        self.at = span(self.text, value).end;
        Some(value)
    }

    /// A string: its text as sent and unescaped (`None` for a lone surrogate).
    fn string(&mut self) -> Option<(&'t str, Option<Cow<'t, str>>)> {
        self.peek()?;
        let start = self.at;
        let (end, unescaped) = literal(self.text, start)?;
        self.at = end;
        Some((&self.text[start..end], unescaped))
    }

    /// An object: calls `entry` with each key, the reader at its value (which `entry` reads);
    /// returns the object's text.
    fn object(
        &mut self,
        mut entry: impl FnMut(&mut Self, Cow<'t, str>) -> Option<()>,
    ) -> Option<&'t str> {
        self.eat(b'{')?;
        let start = self.at - 1;
        if self.peek()? != b'}' {
            loop {
                // serde_json cannot read a key with a lone surrogate either.
                let key = self.string()?.1?;
                self.eat(b':')?;
                entry(self, key)?;
                match self.peek()? {
                    b',' => self.at += 1,
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        self.at += 1;
        Some(&self.text[start..self.at])
    }

    /// The whole text as a result (see [`call_result`]).
    fn call_result(&mut self) -> Option<CallResult<'t>> {
        let mut members = Vec::new();
        let mut content = None;
        self.object(|reader, key| {
            let value = if key == "content" && reader.peek()? == b'[' {
                let read = reader.content()?;
                let json = read.json;
                content = Some(read);
                json
            } else {
                if key == "content" {
                    // A later `content` that is not an array is the one that counts.
                    content = None;
                }
                reader.value()?
            };
            members.push(Member { key, value });
            Some(())
        })?;
        // Nothing but whitespace after the object.
        match self.peek() {
            None => Some(CallResult { members, content }),
            Some(_) => None,
        }
    }

    /// `content`, when every item is an object.
    fn content(&mut self) -> Option<Content<'t>> {
        self.eat(b'[')?;
        let start = self.at - 1;
        let mut items = Vec::new();
        if self.peek()? != b']' {
            loop {
                items.push(Some(self.item()?));
                match self.peek()? {
                    b',' => self.at += 1,
                    b']' => break,
                    _ => return None,
                }
            }
        }
        self.at += 1;
        Some(Content {
            json: &self.text[start..self.at],
            items,
        })
    }

    /// One content item; its `text` string is unescaped as it is read.
    fn item(&mut self) -> Option<ContentObject<'t>> {
        let mut members = Vec::new();
        let mut text = None;
        let json = self.object(|reader, key| {
            let value = if key == "text" && reader.peek()? == b'"' {
                let (value, unescaped) = reader.string()?;
                text = Some(unescaped.map_or(ItemText::Unreadable, ItemText::String));
                value
            } else {
                let value = reader.value()?;
                if key == "text" {
                    text = Some(ItemText::Unreadable);
                }
                value
            };
            members.push(Member { key, value });
            Some(())
        })?;
        Some(ContentObject {
            json,
            members,
            text,
        })
    }
}

/// The items of `text`, when it is a JSON array: each one's entries when it is an object,
/// `None` when it is not. One serde_json pass when every item is an object ([`items`] then
/// [`entries`] on each would read every item twice, and a long string with many escapes is
/// slow to skip). [`call_result`]'s fallback.
fn objects(text: &str) -> Option<Vec<Option<ContentObject<'_>>>> {
    struct Objects<'t>(Vec<Vec<Member<'t>>>);
    impl<'de> Deserialize<'de> for Objects<'de> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct ObjectsVisitor;
            impl<'de> Visitor<'de> for ObjectsVisitor {
                type Value = Objects<'de>;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a JSON array of objects")
                }
                fn visit_seq<A: SeqAccess<'de>>(
                    self,
                    mut seq: A,
                ) -> Result<Objects<'de>, A::Error> {
                    let mut out = Vec::new();
                    while let Some(item) = seq.next_element::<MemberList<'de>>()? {
                        out.push(item.0);
                    }
                    Ok(Objects(out))
                }
            }
            d.deserialize_seq(ObjectsVisitor)
        }
    }
    fn object<'t>(json: &'t str, entries: Vec<Member<'t>>) -> ContentObject<'t> {
        let text = get(&entries, "text").map(ItemText::of);
        ContentObject {
            json,
            members: entries,
            text,
        }
    }
    let Ok(Objects(all)) = serde_json::from_str::<Objects<'_>>(text) else {
        // Not an array, or an item that is not an object: item by item.
        return Some(
            items(text)?
                .into_iter()
                .map(|item| entries(item.get()).map(|entries| object(item.get(), entries)))
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
            .map_or(start + 1, |e| span(text, e.value).end);
        let end = skip(inner, b"") + 1;
        out.push(Some(object(&text[start..end], entries)));
        at = end;
    }
    Some(out)
}

/// A JSON object's entries in order, keys unescaped and values as sent: what [`entries`] reads,
/// and [`objects`] reads each item into.
struct MemberList<'t>(Vec<Member<'t>>);

impl<'de> Deserialize<'de> for MemberList<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(MemberListVisitor)
    }
}

/// Reads a map into an [`MemberList`].
struct MemberListVisitor;

impl<'de> Visitor<'de> for MemberListVisitor {
    type Value = MemberList<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MemberList<'de>, A::Error> {
        let mut out = Vec::new();
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            let value = map.next_value::<&'de RawValue>()?.get();
            out.push(Member { key, value });
        }
        Ok(MemberList(out))
    }
}

/// The value of `key` among `entries` (the last one, as JSON parsers resolve duplicates).
pub(crate) fn get<'t>(entries: &[Member<'t>], key: &str) -> Option<&'t str> {
    entries.iter().rev().find(|e| e.key == key).map(|e| e.value)
}

/// The value at `path` (object keys, outermost first) in the JSON text `text`, as sent;
/// `None` when a step is missing or not an object.
/// (The proxy's readers use it; the catalog does not.)
#[cfg(feature = "mcp-stdio")]
pub(crate) fn get_path<'t>(text: &'t str, path: &[&str]) -> Option<&'t str> {
    let (last, parents) = path.split_last()?;
    let mut object = text;
    for key in parents {
        let entries = entries(object)?;
        object = get(&entries, key)?;
    }
    get(&entries(object)?, last)
}

/// The string a raw value holds, unescaped; `None` when it is not a string (or holds a lone
/// surrogate, which Rust strings cannot).
pub(crate) fn string(value: &str) -> Option<String> {
    unquote(value).map(Cow::into_owned)
}

/// The string the JSON text `value` is, unescaped (borrowed when it has no escapes); `None`
/// when it is not one string literal (or holds a lone surrogate).
pub(crate) fn unquote(value: &str) -> Option<Cow<'_, str>> {
    match literal(value, 0)? {
        (end, unescaped) if end == value.len() => unescaped,
        _ => None,
    }
}

/// The bytes that end a run of plain bytes in a JSON string literal: its quote, an escape, a
/// control character (which serde_json writes escaped, and refuses unescaped).
const NEEDS_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The byte each one-letter escape (`\n`) stands for; 0 for the letters that are not one.
const UNESCAPED: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The stops among eight bytes (a quote, a backslash, a control character: the bytes
/// [`NEEDS_ESCAPE`] marks): the high bit of each stop's byte set, exact up to the first one
/// (a borrow may mark bytes after it). SWAR, as serde_json skips strings.
fn stops_in(chunk: &[u8; 8]) -> u64 {
    const ONES: u64 = u64::MAX / 255;
    let word = u64::from_le_bytes(*chunk);
    // Below 0x20: the subtraction borrows into the high bit of a byte that was under it.
    let control = word.wrapping_sub(ONES * 0x20) & !word & (ONES << 7);
    control | byte_matches(word, b'"') | byte_matches(word, b'\\')
}

/// The first stop at or after `at` in `bytes` (its length when there is none).
fn plain_end(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes[at..].first_chunk::<8>() {
        let stops = stops_in(chunk);
        if stops != 0 {
            return at + (stops.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && !NEEDS_ESCAPE[usize::from(bytes[at])] {
        at += 1;
    }
    at
}

/// Reads the JSON string literal whose opening quote is at `at` in `text`, validating and
/// unescaping in one pass: the index just past its closing quote, and its text (borrowed
/// when it has no escapes; `None` when it holds a lone surrogate, which Rust strings cannot).
/// `None` when it is not a literal serde_json accepts: an unescaped control character, an
/// escape other than `\" \\ \/ \b \f \n \r \t \uXXXX`, no closing quote.
///
/// A 1 MB text of pretty JSON has an escape every six to ten bytes: it is read eight bytes
/// at a time ([`unescape_runs`]) and each word copied whole (one store), a one-letter escape
/// in it replaced by its byte first; the copy is then cut back. A call to copy a run of four
/// bytes costs more than the run. Validating as a [`RawValue`] then unescaping read the text
/// twice, and serde_json's string parsing is slower on it.
pub(crate) fn literal(text: &str, at: usize) -> Option<(usize, Option<Cow<'_, str>>)> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let start = at + 1;
    let mut i = plain_end(bytes, start);
    match bytes.get(i)? {
        b'"' => return Some((i + 1, Some(Cow::Borrowed(&text[start..i])))),
        b'\\' => {}
        _ => return None,
    }
    // Never longer than what it is read from: the rest of the text, often all of it (the
    // `text` of a result).
    let mut out = Vec::with_capacity(bytes.len() - start);
    out.extend_from_slice(&bytes[start..i]);
    let mut buf = [0; BUF];
    let mut lone = false;
    loop {
        let (read, len) = unescape_runs(bytes, i, &mut buf);
        out.extend_from_slice(&buf[..len]);
        i = read;
        if len + WORD > BUF {
            // The buffer is full, and `i` maybe not at a stop.
            continue;
        }
        // Fewer than eight bytes left, or at a stop that is not a one-letter escape in a word.
        let end = plain_end(bytes, i);
        out.extend_from_slice(&bytes[i..end]);
        i = end;
        match bytes.get(i)? {
            b'"' => break,
            b'\\' => {}
            _ => return None,
        }
        let escaped = *bytes.get(i + 1)?;
        match UNESCAPED[usize::from(escaped)] {
            0 if escaped == b'u' => {
                let mut code = hex4(bytes, i + 2)?;
                i += 6;
                // A high surrogate pairs with a low one right after it.
                if (0xd800..0xdc00).contains(&code)
                    && bytes.get(i..i + 2) == Some(b"\\u")
                    && let Some(low) = hex4(bytes, i + 2).filter(|l| (0xdc00..0xe000).contains(l))
                {
                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                    i += 6;
                }
                match char::from_u32(code) {
                    Some(c) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                    // A surrogate without its other half: valid JSON, not a Rust string. The
                    // rest is still read, to know where the literal ends and that it is JSON.
                    None => lone = true,
                }
            }
            0 => return None,
            byte => {
                out.push(byte);
                i += 2;
            }
        }
    }
    if out.capacity() > 2 * out.len() + 64 {
        // A short literal (a key) early in a long text.
        out.shrink_to_fit();
    }
    // Whole chars of `text` and the chars of escapes: UTF-8, checked without `unsafe`.
    let out = String::from_utf8(out).ok()?;
    Some((i + 1, (!lone).then_some(Cow::Owned(out))))
}

/// The bytes [`literal`] and [`quote`] read at once.
const WORD: usize = 8;

/// The buffer [`literal`] and [`quote`] write words to, then append to their output with one
/// call: written at an index kept in a register, where `Vec::extend_from_slice` reloads the
/// length and checks the capacity on every word.
const BUF: usize = 256;

/// [`literal`]'s runs and one-letter escapes from `bytes[i..]`, written to `buf` a word at a
/// time while a word is left to read and to write: where it stopped reading (at a stop that
/// is not a one-letter escape inside a word, or fewer than eight bytes from the end) and the
/// length written.
fn unescape_runs(bytes: &[u8], mut i: usize, buf: &mut [u8; BUF]) -> (usize, usize) {
    let mut len = 0;
    while i + WORD <= bytes.len() && len + WORD <= BUF {
        let chunk = <[u8; WORD]>::try_from(&bytes[i..i + WORD]).unwrap_or_default();
        let word = u64::from_le_bytes(chunk);
        let stops = stops_in(&chunk);
        if stops == 0 {
            buf[len..len + WORD].copy_from_slice(&chunk);
            i += WORD;
            len += WORD;
            continue;
        }
        let shift = stops.trailing_zeros() & !7;
        // The byte after the stop: 0 (no escape) when the stop is the word's last byte.
        let escaped = (word >> shift >> 8) as u8;
        let unescaped = UNESCAPED[usize::from(escaped)];
        let plain = (shift / 8) as usize;
        if (word >> shift) as u8 != b'\\' || unescaped == 0 {
            buf[len..len + WORD].copy_from_slice(&chunk);
            return (i + plain, len + plain);
        }
        // The run, and the byte the escape stands for in the backslash's place.
        let word = word & !(0xff << shift) | u64::from(unescaped) << shift;
        buf[len..len + WORD].copy_from_slice(&word.to_le_bytes());
        i += plain + 2;
        len += plain + 1;
    }
    (i, len)
}

/// The value of the four hex digits at `at` (strict: no sign, as serde_json reads them).
fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)?
        .iter()
        .try_fold(0, |n, &b| Some(n << 4 | char::from(b).to_digit(16)?))
}

/// The letter of each one-letter escape serde_json writes (`\n`); 0 for the other bytes
/// [`NEEDS_ESCAPE`] marks (written `\u00xx`), and for those it does not.
const ESCAPED: [u8; 256] = {
    let mut table = [0; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[0x08] = b'b';
    table[0x0c] = b'f';
    table[b'\n' as usize] = b'n';
    table[b'\r' as usize] = b'r';
    table[b'\t' as usize] = b't';
    table
};

/// A JSON string literal of `text`, escaped as serde_json escapes: `\" \\ \b \f \n \r \t`,
/// other control characters as `\u00xx`, every other char as it is. Read eight bytes at a
/// time ([`escape_runs`]) and each word copied whole, then cut back to its first byte to
/// escape (serde_json looks at each byte, and a call to copy each run costs more than a short
/// run): a converted block's text is quoted whole, and compact JSON has a quote every few
/// bytes.
pub(crate) fn quote(text: &str) -> String {
    // Room for the quotes and a newline every 32 bytes without growing.
    let mut out = Vec::with_capacity(text.len() + text.len() / 32 + 2);
    quote_into(text, &mut out);
    // `text` with ASCII bytes replaced by ASCII escapes: UTF-8, checked without `unsafe`.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`quote`], appended to `out`.
fn quote_into(text: &str, out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    out.push(b'"');
    let mut buf = [0; BUF];
    let mut i = 0;
    loop {
        let (read, len) = escape_runs(bytes, i, &mut buf);
        out.extend_from_slice(&buf[..len]);
        i = read;
        if len + 2 * WORD > BUF {
            // The buffer is full, and `i` maybe not at a stop.
            continue;
        }
        // Fewer than eight bytes left, or at a byte written `\u00xx`.
        let end = plain_end(bytes, i);
        out.extend_from_slice(&bytes[i..end]);
        i = end;
        let Some(&b) = bytes.get(i) else {
            break;
        };
        match ESCAPED[usize::from(b)] {
            0 => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ]),
            letter => out.extend_from_slice(&[b'\\', letter]),
        }
        i += 1;
    }
    out.push(b'"');
}

/// [`quote`]'s runs and one-letter escapes from `bytes[i..]`, written to `buf` a word at a
/// time while a word is left to read and two to write: where it stopped reading (at a byte
/// written `\u00xx`, or fewer than eight bytes from the end) and the length written.
fn escape_runs(bytes: &[u8], mut i: usize, buf: &mut [u8; BUF]) -> (usize, usize) {
    let mut len = 0;
    while i + WORD <= bytes.len() && len + 2 * WORD <= BUF {
        let chunk = <[u8; WORD]>::try_from(&bytes[i..i + WORD]).unwrap_or_default();
        let stops = stops_in(&chunk);
        buf[len..len + WORD].copy_from_slice(&chunk);
        if stops == 0 {
            i += WORD;
            len += WORD;
            continue;
        }
        let plain = (stops.trailing_zeros() / 8) as usize;
        let letter = ESCAPED[usize::from(chunk[plain])];
        if letter == 0 {
            return (i + plain, len + plain);
        }
        // The run, then the escape over the byte it stands for.
        buf[len + plain..len + plain + 2].copy_from_slice(&[b'\\', letter]);
        i += plain + 1;
        len += plain + 2;
    }
    (i, len)
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
    edits: Vec<(Range<usize>, Edit)>,
}

/// What a [`Splice`] puts in place of a range.
#[derive(Debug)]
enum Edit {
    /// JSON text, as it is.
    Json(String),
    /// A string, quoted as it is written out (no second copy of a long converted block).
    Quoted(String),
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
        self.edits.push((range, Edit::Json(with)));
    }

    /// Replaces `part`, a slice of the text, with `with` as a JSON string literal
    /// ([`quote`]).
    pub(crate) fn replace_quoted(&mut self, part: &str, with: String) {
        let range = span(self.text, part);
        self.edits.push((range, Edit::Quoted(with)));
    }

    /// Sets `key` of the object `object` (a slice of the text whose `entries` are given) to
    /// `value` (JSON text): replaces its last value, or adds the entry at the end.
    pub(crate) fn set(&mut self, object: &str, entries: &[Member<'_>], key: &str, value: String) {
        match entries.iter().rev().find(|e| e.key == key) {
            Some(old) => self.replace(old.value, value),
            None => {
                let end = span(self.text, json_trim(object)).end - 1;
                let comma = if entries.is_empty() { "" } else { "," };
                self.edits.push((
                    end..end,
                    Edit::Json(format!("{comma}{}:{value}", quote(key))),
                ));
            }
        }
    }

    /// Inserts `with` (JSON text, its comma included) right after `part`, a slice of the text.
    pub(crate) fn insert_after(&mut self, part: &str, with: String) {
        let end = span(self.text, part).end;
        self.edits.push((end..end, Edit::Json(with)));
    }

    /// Adds `item` (JSON text) at the end of the array `array`, a slice of the text holding
    /// `len` items.
    pub(crate) fn push(&mut self, array: &str, len: usize, item: &str) {
        let end = span(self.text, json_trim(array)).end - 1;
        let comma = if len == 0 { "" } else { "," };
        self.edits
            .push((end..end, Edit::Json(format!("{comma}{item}"))));
    }

    /// Removes every entry `key` of the object `object` (with its comma).
    pub(crate) fn remove(&mut self, object: &str, entries: &[Member<'_>], key: &str) {
        let whole = span(self.text, json_trim(object));
        // An entry runs from its key's opening quote, the first `"` after the previous value
        // (or the brace), to its value's end.
        let mut starts = Vec::with_capacity(entries.len());
        let mut ends = Vec::with_capacity(entries.len());
        let mut from = whole.start + 1;
        for entry in entries {
            let value = span(self.text, entry.value);
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
                    .push((whole.start + 1..whole.end - 1, Edit::Json(String::new())));
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
            self.edits.push((range, Edit::Json(String::new())));
        }
    }

    /// The text with every edit applied.
    ///
    /// # Panics
    /// When two edits overlap (a bug of the caller).
    pub(crate) fn finish(mut self) -> String {
        self.edits.sort_by_key(|(r, _)| (r.start, r.end));
        let mut out = Vec::with_capacity(self.text.len());
        let mut at = 0;
        for (range, with) in &self.edits {
            assert!(range.start >= at, "overlapping JSON edits");
            out.extend_from_slice(&self.text.as_bytes()[at..range.start]);
            match with {
                Edit::Json(json) => out.extend_from_slice(json.as_bytes()),
                Edit::Quoted(text) => quote_into(text, &mut out),
            }
            at = range.end;
        }
        out.extend_from_slice(&self.text.as_bytes()[at..]);
        // Slices of a `str` cut at the ranges of JSON values, and `str`s: UTF-8.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::json_text::next_random;

    #[test]
    #[cfg(feature = "mcp-stdio")]
    fn values_are_found_by_path_as_sent() {
        let text = r#"{"_meta": {"progressToken": 1.50, "a": 1, "a": {"b": "x"}}, "n": 2}"#;
        let at = |path: &[&str]| get_path(text, path);
        assert_eq!(at(&["_meta", "progressToken"]), Some("1.50"));
        // The last of duplicate keys, as JSON parsers resolve them.
        assert_eq!(at(&["_meta", "a", "b"]), Some(r#""x""#));
        assert_eq!(at(&["n"]), Some("2"));
        assert_eq!(at(&["n", "b"]), None);
        assert_eq!(at(&["missing", "b"]), None);
        assert_eq!(at(&[]), None);
    }

    const TEXT: &str = r#"{"id": 123456789012345678901234567890, "a": {"n": 1e400, "s": "\ud83d"}, "b": [1E2, 0.1000000000000000055511151231257827]}"#;

    #[test]
    fn reads_without_reprinting() {
        let e = entries(TEXT).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(get(&e, "id").unwrap(), "123456789012345678901234567890");
        let a = entries(get(&e, "a").unwrap()).unwrap();
        assert_eq!(get(&a, "n").unwrap(), "1e400");
        assert_eq!(string(get(&a, "s").unwrap()), None);
        let b = items(get(&e, "b").unwrap()).unwrap();
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
            assert_eq!(string(value.get()), Some(want), "{literal}");
        }
        for lone in [
            r#""\ud83d""#,
            r#""\ud83d\u0041""#,
            r#""\ude00""#,
            r#""x\ud83d""#,
        ] {
            let value: Box<RawValue> = serde_json::from_str(lone).unwrap();
            assert_eq!(string(value.get()), None, "{lone}");
        }
        let number: Box<RawValue> = serde_json::from_str("12").unwrap();
        assert_eq!(string(number.get()), None);
    }

    #[test]
    fn edits_keep_every_other_byte() {
        let e = entries(TEXT).unwrap();
        let mut s = Splice::new(TEXT);
        s.replace(get(&e, "b").unwrap(), "[]".into());
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
                objects.iter().map(|o| o.as_ref().map(|o| o.json)).collect();
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
            assert_eq!(third.members.len(), 2);
            assert_eq!(get(&third.members, "c"), Some("[2]"));
        }
        assert!(objects("{}").is_none() && objects("[").is_none());
    }

    /// The one-pass reader reads what serde_json reads, or leaves the text to it.
    #[test]
    fn results_read_in_one_pass_as_serde_json_reads_them() {
        let one_pass = |text| OnePassReader { text, at: 0 }.call_result();
        let text = "\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti \\u00e9\\ud83d\\ude00 é\"";
        for (result, fast) in [
            (r#"{"content": []}"#, true),
            (
                &format!(
                    r#" {{ "content" : [ {{"type": "text", "text": {text}, "_meta": {{"a": [1E2]}} }} , {{}} ], "x": 1e400 }} "#
                ),
                true,
            ),
            (r#"{"content": [{"type": "text", "text": "\ud83d"}]}"#, true),
            (r#"{"content": [{"type": "text", "text": 12}]}"#, true),
            (r#"{"content": [{"text": "a", "text": "\u0041"}]}"#, true),
            (r#"{"content": [1], "content": [{"text": "b"}]}"#, false),
            (r#"{"content": [{"text": "b"}], "content": 2}"#, true),
            (r#"{"isError": true}"#, true),
            (r#"{"content": [{"type": "text"}, 3, {"a": 1}]}"#, false),
            (
                r#"{"content": [{"\ud83d": 1}, {"type": "text", "text": "{}"}]}"#,
                false,
            ),
            (
                r#"{"content": [{"type": "text", "text": "{}"}], "\ud83d": 1}"#,
                false,
            ),
            (r#"{"content": [], }"#, false),
            (r#"{"content": [{"text": "a"},]}"#, false),
            (r#"{"content": [{"text": "a\u+041"}]}"#, false),
            (r#"{"content": [{"text": "a\x"}]}"#, false),
            ("{\"content\": [{\"text\": \"a\tb\"}]}", false),
            (r#"{"content": [{"text": "a"}]} x"#, false),
            (r#"{"content": [{"text": "a"}]"#, false),
            (r#"{"content": [{"text": 01}]}"#, false),
            ("[]", false),
            ("", false),
        ] {
            let slow = call_result_by_serde(result);
            match one_pass(result) {
                Some(read) => assert_eq!(Some(read), slow, "{result}"),
                None => assert!(!fast, "not read in one pass: {result}"),
            }
            assert!(!fast || one_pass(result).is_some(), "{result}");
            assert_eq!(call_result(result), slow, "{result}");
        }
    }

    #[test]
    fn mutated_results_read_in_one_pass_as_serde_json_reads_them() {
        // Random edits of real-looking results: wherever the one-pass reader takes a text,
        // it reads exactly what serde_json reads; it never panics on any of them.
        const SEEDS: &[&str] = &[
            r#"{"content": [{"type": "text", "text": "{\"a\": [1, 2.5e3, \"x\\u0041\"]}", "_meta": {"k": 1}}], "structuredContent": {"a": 1E2}, "isError": false}"#,
            r#"{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA=="},[1],"s"],"content":[]}"#,
            r#"{ "_meta" : { } , "content" : [ { "text" : "\ud83d\ude00 é \t" , "type" : "text" } ] }"#,
        ];
        const ALPHABET: &[&str] = &[
            "{", "}", "[", "]", "\"", ",", ":", "\\", " ", "\n", "u", "d", "8", "3", "0", "a", "e",
            "E", "-", ".", "1", "t", "n", "l", "é", "\u{1}", "text", "content",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for seed in SEEDS {
            for _ in 0..4000 {
                let mut chars: Vec<String> = seed.chars().map(String::from).collect();
                for _ in 0..1 + next_random(&mut state) % 3 {
                    let at = (next_random(&mut state) % (chars.len() as u64 + 1)) as usize;
                    let pick = ALPHABET[next_random(&mut state) as usize % ALPHABET.len()];
                    match next_random(&mut state) % 3 {
                        0 => chars.insert(at, pick.to_owned()),
                        1 if at < chars.len() => {
                            chars.remove(at);
                        }
                        _ if at < chars.len() => chars[at] = pick.to_owned(),
                        _ => chars.push(pick.to_owned()),
                    }
                }
                let text: String = chars.concat();
                if let Some(read) = (OnePassReader { text: &text, at: 0 }).call_result() {
                    assert_eq!(Some(read), call_result_by_serde(&text), "{text}");
                }
                let _ = call_result(&text);
            }
        }
    }

    #[test]
    fn literals_read_as_serde_json_reads_them() {
        for text in [
            r#""""#,
            r#""plain é""#,
            r#""a\"b\\c\/d\be\ff\ng\rh\ti""#,
            r#""\u0041\u00E9\u20ac\ud83d\ude00 end""#,
            r#""\ud83d""#,
            r#""\ud83d\u0041""#,
            r#""\ud83d\ud83d\ude00""#,
            r#""\ude00x""#,
            r#""\ud83d\uZZZZ""#,
            r#""\u+041""#,
            r#""\u004""#,
            r#""\x""#,
            "\"a\u{1}b\"",
            "\"a\u{7f}b\"",
            r#""open"#,
            r#""a\""#,
        ] {
            let by_serde = serde_json::from_str::<&RawValue>(text).is_ok();
            let read = literal(text, 0).filter(|(end, _)| *end == text.len());
            assert_eq!(read.is_some(), by_serde, "{text}");
            let want = serde_json::from_str::<String>(text).ok();
            assert_eq!(read.and_then(|r| r.1).map(Cow::into_owned), want, "{text}");
        }
        // Borrowed when there is nothing to unescape; the end of a literal inside a text.
        assert!(matches!(unquote(r#""abc""#), Some(Cow::Borrowed("abc"))));
        assert_eq!(literal(r#"["ab", 1]"#, 1).map(|r| r.0), Some(5));
    }

    #[test]
    fn quotes_as_serde_json_does() {
        let every_ascii: String = (0..128u8).map(char::from).collect();
        for text in [
            "",
            "plain",
            "é ü 😀 \u{7f}",
            "users[2]{id,name}:\n  1,\"Ali\\ce\"\n  2,Bob\r\t\u{8}\u{c}\u{1}\u{1f}",
            "0123456\"89abcdef\n",
            &every_ascii,
            &every_ascii.repeat(3)[5..],
        ] {
            assert_eq!(
                quote(text),
                serde_json::to_string(text).unwrap(),
                "{text:?}"
            );
        }
    }

    /// Long strings with escapes at every offset of a word and across the write buffer:
    /// read and written as serde_json reads and writes them.
    #[test]
    fn long_escaped_strings_agree_with_serde_json() {
        let marks = [
            "\"", "\\", "\n", "\t", "\r", "\u{8}", "\u{c}", "\u{1}", "\u{1f}", "é", "😀", " ",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..2000 {
            let len = next_random(&mut state) % 700;
            let mut text = String::new();
            for _ in 0..len {
                let r = next_random(&mut state);
                if r.is_multiple_of(4) {
                    text.push_str(marks[(r / 4) as usize % marks.len()]);
                } else {
                    text.push('a');
                }
            }
            let quoted = quote(&text);
            assert_eq!(quoted, serde_json::to_string(&text).unwrap(), "{text:?}");
            let read = literal(&quoted, 0);
            assert_eq!(read.as_ref().map(|r| r.0), Some(quoted.len()), "{text:?}");
            let read = read.and_then(|r| r.1).map(Cow::into_owned);
            assert_eq!(read.as_deref(), Some(text.as_str()), "{text:?}");
            // The other escapes serde_json reads: `\/`, `\uXXXX` (pairs, lone halves).
            let other = quoted
                .replace('a', "\\/")
                .replace('é', "\\u00e9")
                .replace('😀', "\\ud83d\\ude00");
            let read = literal(&other, 0).filter(|(end, _)| *end == other.len());
            let want = serde_json::from_str::<String>(&other).ok();
            assert_eq!(
                read.and_then(|r| r.1).map(Cow::into_owned),
                want,
                "{other:?}"
            );
            let cut = format!("{}\\ud83dx\"", &other[..other.len() - 1]);
            let read = literal(&cut, 0).filter(|(end, _)| *end == cut.len());
            assert!(matches!(read, Some((_, None))), "{cut:?}");
        }
    }

    #[test]
    fn inserts_after_values_and_at_array_ends() {
        let text = r#"{"a": [1, 2], "b": [ ]}"#;
        let e = entries(text).unwrap();
        let (a, b) = (get(&e, "a").unwrap(), get(&e, "b").unwrap());
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
