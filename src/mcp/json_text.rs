//! JSON text as the gateway reads and forwards it, by bytes: where a string or a number token
//! ends, the text without insignificant whitespace ([`minify`]), and a copy a strict reader
//! accepts ([`readable`]).
//!
//! Where tokens end is the codec's (`toon::json::string_end`, `number_end`); the rest is the
//! MCP tree's, reached through no private path of the codec, so that the tree could be a crate
//! of its own. Every function expects well-formed JSON (the caller has parsed it or is
//! about to): on other text they stay in bounds and terminate, but their answer means nothing.

// Where a string or number token ends: the codec's own scans, through its public API.
pub(crate) use crate::json::{number_end, string_end};

/// The bytes of `word` equal to `byte`, flagged by their high bit (SWAR): a zero byte in
/// `word ^ fill` is a match. The lowest flagged byte is always exact (the first match, at
/// `trailing_zeros / 8`); those above it may not be.
#[inline(always)]
pub(crate) fn byte_matches(word: u64, byte: u8) -> u64 {
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// `text` without the whitespace JSON allows between tokens (RFC 8259 §2); every other byte,
/// number tokens and string escapes included, as it was.
#[must_use]
pub(crate) fn minify(text: &str) -> String {
    minify_joined(text).0
}

/// [`minify`], and whether whitespace was removed between two bytes of numbers or literals
/// (`[1 2]`, `tr ue`): then the text is not JSON, though the result may read as JSON. Without
/// such a join the two read alike — the same tokens, or the same error — and the result is the
/// shorter to parse.
///
/// Pretty JSON is mostly short strings and runs of indentation: strings are copied eight bytes
/// at a time (each word whole, one store, the copy then cut back to its quote or backslash),
/// and indentation is skipped eight spaces at a time. Finding and copying each string with a
/// call (`memchr`, `memcpy`) cost more than the string.
#[must_use]
pub(crate) fn minify_joined(text: &str) -> (String, bool) {
    let bytes = text.as_bytes();
    // Written at `len`, which never passes `at`: a word copied at `at` fits in the text's
    // length and eight bytes more. Indexing a buffer of that size keeps `len` in a register,
    // where `Vec::push` reloads it for a capacity check on every byte.
    let mut out = vec![0; bytes.len() + 8];
    let mut len = 0;
    let mut joins = false;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        match b {
            b'"' => {
                out[len] = b;
                len += 1;
                at += 1;
                // Up to the closing quote, a backslash taking the byte after it (as
                // `string_end` reads strings); to the end when there is none.
                loop {
                    if let Some(chunk) = bytes[at..].first_chunk::<8>() {
                        let found = quote_or_backslash(chunk);
                        out[len..len + 8].copy_from_slice(chunk);
                        if found == 0 {
                            at += 8;
                            len += 8;
                            continue;
                        }
                        let plain = (found.trailing_zeros() / 8) as usize;
                        if chunk[plain] == b'"' {
                            at += plain + 1;
                            len += plain + 1;
                            break;
                        }
                        if plain < 7 {
                            // The backslash and the byte after it, both in the word.
                            at += plain + 2;
                            len += plain + 2;
                            continue;
                        }
                        // A backslash ending the word: read below.
                        at += plain;
                        len += plain;
                    }
                    // Fewer than eight bytes from the end, or at a backslash ending a word.
                    let Some(&b) = bytes.get(at) else {
                        break;
                    };
                    out[len] = b;
                    len += 1;
                    at += 1;
                    if b == b'"' {
                        break;
                    }
                    if b == b'\\'
                        && let Some(&escaped) = bytes.get(at)
                    {
                        out[len] = escaped;
                        len += 1;
                        at += 1;
                    }
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                // The whole run (a newline and its indentation), then whether it sat between
                // two bytes of a token.
                at = whitespace_end(bytes, at + 1);
                if len > 0
                    && WORD[usize::from(out[len - 1])]
                    && bytes.get(at).is_some_and(|&b| WORD[usize::from(b)])
                {
                    joins = true;
                }
            }
            b => {
                out[len] = b;
                len += 1;
                at += 1;
            }
        }
    }
    out.truncate(len);
    // Only ASCII whitespace outside strings was removed, so the bytes are still UTF-8; a
    // string cut short by a stray backslash at the very end is copied as it was.
    let out = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (out, joins)
}

/// Where a run of whitespace going on at `at` ends: eight spaces at a time, as indentation
/// comes.
#[inline(always)]
fn whitespace_end(bytes: &[u8], mut at: usize) -> usize {
    loop {
        if let Some(chunk) = bytes[at..].first_chunk::<8>() {
            let other = u64::from_le_bytes(*chunk) ^ (ONES * u64::from(b' '));
            // Past the spaces: all eight when there is no other byte.
            at += (other.trailing_zeros() / 8) as usize;
            if other == 0 {
                continue;
            }
        }
        match bytes.get(at) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => at += 1,
            _ => return at,
        }
    }
}

/// The bytes of numbers and of `true`, `false` and `null` (and of what is neither but would
/// join as they do).
const WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.');
        b += 1;
    }
    table
};

/// `u64::MAX / 255`: the byte 1 eight times.
const ONES: u64 = u64::MAX / 255;

/// The quotes and backslashes among eight bytes: the high bit of each one's byte set, exact
/// up to the first one (a borrow may mark bytes after it).
fn quote_or_backslash(chunk: &[u8; 8]) -> u64 {
    let word = u64::from_le_bytes(*chunk);
    byte_matches(word, b'"') | byte_matches(word, b'\\')
}

/// A copy of `text` that a strict reader accepts, for reading only (never for forwarding):
/// a lone surrogate escape (`"\ud83d"`, which servers in JavaScript produce by cutting
/// strings) becomes `\ufffd`, and a number beyond `f64` (`1e400`) becomes `null`. `None` when
/// there is nothing to change.
#[must_use]
pub(crate) fn readable(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut at = 0;
    let hex = |at: usize| -> Option<u16> {
        let digits = bytes.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u16> {
        (bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let end = string_end(bytes, at + 1);
                let mut i = at + 1;
                // Only escapes can be surrogates: skipped to with memchr, as `string_end` does.
                while let Some(skip) = bytes
                    .get(i..end)
                    .and_then(|rest| memchr::memchr(b'\\', rest))
                {
                    i += skip;
                    match escape_at(i) {
                        Some(high @ 0xD800..=0xDBFF)
                            if escape_at(i + 6)
                                .is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) =>
                        {
                            let _ = high;
                            i += 12;
                        }
                        Some(0xD800..=0xDFFF) => {
                            let copy = out.get_or_insert_with(|| bytes.to_vec());
                            copy[i..i + 6].copy_from_slice(b"\\ufffd");
                            i += 6;
                        }
                        _ => i += 2,
                    }
                }
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, at);
                // f64 reaches 1.8e308: a number without an exponent or 309 digits is finite, and
                // most numbers are, so only the others are parsed.
                let digits = &bytes[at..end];
                let may_overflow =
                    digits.len() > 308 || memchr::memchr2(b'e', b'E', digits).is_some();
                let overflows = may_overflow
                    && std::str::from_utf8(digits)
                        .ok()
                        .and_then(|s| s.parse::<f64>().ok())
                        .is_some_and(f64::is_infinite);
                if overflows && end - at >= 4 {
                    let copy = out.get_or_insert_with(|| bytes.to_vec());
                    copy[at..at + 4].copy_from_slice(b"null");
                    copy[at + 4..end].fill(b' ');
                }
                at = end;
            }
            _ => at += 1,
        }
    }
    out.map(|o| String::from_utf8(o).unwrap_or_default())
}

/// The next state of a xorshift64 generator, which is also its output: repeatable inputs for
/// the tests that compare a fast path with a plain reading (here and in `raw`).
#[cfg(test)]
pub(crate) fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minify_keeps_every_byte_but_whitespace() {
        assert_eq!(
            minify("{\n  \"a b\": [ 1E2 , 3e53 ],\r\n\t\"c\\\" d\": \"x\\u0041 \" }"),
            "{\"a b\":[1E2,3e53],\"c\\\" d\":\"x\\u0041 \"}"
        );
        assert_eq!(minify(" [ \"é \\ud83d\" ] "), "[\"é \\ud83d\"]");
        assert_eq!(
            minify("[1, 1234567890123456789012 ]"),
            "[1,1234567890123456789012]"
        );
    }

    /// Without a join, the text without whitespace reads as the text does.
    #[test]
    fn joined_tokens_are_found() {
        for (text, joins) in [
            ("[1 2]", true),
            ("[1, 2]", false),
            ("[tr ue]", true),
            ("{\"a\":\n -1 \n}", false),
            ("[1\t.5]", true),
            ("[1e \r\n5]", true),
            ("[- 1]", true),
            ("[\"a b\" \"c\"]", false),
            ("[true ,false ]", false),
            ("[null\nnull]", true),
            ("[1 \"a\"]", false),
            ("  {\"a\": [1 ,\"x y\", {\"b\" :null}] }  ", false),
        ] {
            let (minified, joined) = minify_joined(text);
            assert_eq!(joined, joins, "{text}");
            if !joins {
                let a = serde_json::from_str::<serde_json::Value>(text).ok();
                let b = serde_json::from_str::<serde_json::Value>(&minified).ok();
                assert_eq!(a, b, "{text}");
            }
        }
    }

    /// What `minify_joined` computes, one byte at a time: the reference its word-at-a-time
    /// copy is checked against.
    fn by_bytes(text: &str) -> (String, bool) {
        let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.');
        let bytes = text.as_bytes();
        let mut out = Vec::new();
        let mut joins = false;
        let mut at = 0;
        while at < bytes.len() {
            match bytes[at] {
                b'"' => {
                    let end = string_end(bytes, at + 1).min(bytes.len());
                    out.extend_from_slice(&bytes[at..end]);
                    at = end;
                }
                b' ' | b'\t' | b'\n' | b'\r' => {
                    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(at) {
                        at += 1;
                    }
                    let next = bytes.get(at).copied();
                    joins |= out.last().copied().is_some_and(word) && next.is_some_and(word);
                }
                b => {
                    out.push(b);
                    at += 1;
                }
            }
        }
        (String::from_utf8_lossy(&out).into_owned(), joins)
    }

    /// Generated texts of strings, whitespace runs (long indentation too) and other bytes:
    /// minified as the byte-at-a-time reading does, joins found as it finds them.
    #[test]
    fn minify_agrees_with_reading_byte_by_byte() {
        let pieces = [
            "\"",
            "\\",
            "\\\"",
            " ",
            "\n",
            "\t",
            "\r",
            "\n                  ",
            "        ",
            "1",
            "-2.5e3",
            "true",
            "null",
            ",",
            ":",
            "[",
            "}",
            "é",
            "😀",
            "\u{1}",
            "ab",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let len = next_random(&mut state) % 120;
            let text: String = (0..len)
                .map(|_| pieces[next_random(&mut state) as usize % pieces.len()])
                .collect();
            assert_eq!(minify_joined(&text), by_bytes(&text), "{text:?}");
        }
    }

    /// The word-at-a-time copy of strings reads them as `string_end` does, on any text.
    #[test]
    fn minify_reads_strings_as_string_end_does() {
        let long = "{\"a long key with spaces\": \"and a value \\\" with é, \\\\ and \\u0041\"}";
        let mut texts = vec![
            long.to_owned(),
            "[\"x\\\"\", \"unterminated  ".to_owned(),
            "[\"ends in a backslash \\".to_owned(),
            "\"\\".to_owned(),
            "{\"k\" : [ \"0123456789abcdef\" , \"\\\"\\\"\\\"\\\"\\\"\" ] }\n".to_owned(),
        ];
        // Every cut of the long one: escapes and quotes at every offset of a word.
        texts.extend(
            (0..long.len())
                .filter(|&i| long.is_char_boundary(i))
                .map(|i| long[i..].to_owned()),
        );
        for text in &texts {
            assert_eq!(minify(text), by_bytes(text).0, "{text:?}");
        }
    }

    #[test]
    fn lone_surrogates_and_infinite_numbers_become_readable() {
        assert_eq!(readable(r#"{"a": "ok \ud83d\ude00", "n": 1}"#), None);
        assert_eq!(
            readable(r#"{"a": "cut \ud83d", "b": "\udc00x", "n": 1e400}"#).as_deref(),
            Some(r#"{"a": "cut \ufffd", "b": "\ufffdx", "n": null }"#)
        );
        assert_eq!(readable(r#"["\\ud83d"]"#), None);
        // An unterminated string ending in a backslash or a cut escape: nothing to read past.
        assert_eq!(readable("[\"a\\"), None);
        assert_eq!(readable(r#"["\ud8"#), None);
        // 309 digits without an exponent can be beyond f64 (2e308); 308 cannot.
        let long = format!("[2{}]", "0".repeat(308));
        let fixed = readable(&long).unwrap();
        assert!(
            fixed.starts_with("[null ") && fixed.ends_with(" ]"),
            "{fixed}"
        );
        assert_eq!(readable(&format!("[{}]", "9".repeat(308))), None);
        assert_eq!(readable("[1.5, -2, 1e308, 0.1E-400]"), None);
        let fixed = readable(r#"{"s": "\ud83d\ud83d", "m": -1e999}"#).unwrap();
        assert!(
            serde_json::from_str::<serde_json::Value>(&fixed).is_ok(),
            "{fixed}"
        );
    }
}
