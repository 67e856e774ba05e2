//! Quoting and escaping rules for string values and keys (§7.1–§7.3).
//!
//! Decisions are made with a byte table so the common case (a short ASCII word) costs one table
//! lookup per byte; strings of 16 bytes or more are checked 16 bytes at a time
//! (`swar::clean_lanes`), and string values of 4 to 15 bytes as one such lane
//! (`swar::short_lane`).

use crate::swar::{LANES, clean_lanes, short_lane};

/// Bytes that force quoting anywhere in a string value (§7.2): `:`, `"`, `\`, brackets, braces
/// and the C0 controls. Delimiters are checked separately because they depend on scope (§11.1).
const FORCES_QUOTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b':' as usize] = true;
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table[b'[' as usize] = true;
    table[b']' as usize] = true;
    table[b'{' as usize] = true;
    table[b'}' as usize] = true;
    table
};

/// [`FORCES_QUOTES`] plus the active delimiter (§11.1), one table per delimiter, so that the
/// check is one load per byte.
const FORCES_QUOTES_WITH: [[bool; 256]; 3] = {
    let delimiters = [b',', b'\t', b'|'];
    let mut tables = [FORCES_QUOTES; 3];
    let mut i = 0;
    while i < 3 {
        tables[i][delimiters[i] as usize] = true;
        i += 1;
    }
    tables
};

/// The quoting table for `delimiter` (`,`, tab or `|`); any other byte is checked on its own.
fn forces_quotes(delimiter: u8) -> Option<&'static [bool; 256]> {
    match delimiter {
        b',' => Some(&FORCES_QUOTES_WITH[0]),
        b'\t' => Some(&FORCES_QUOTES_WITH[1]),
        b'|' => Some(&FORCES_QUOTES_WITH[2]),
        _ => None,
    }
}

/// Bytes that need an escape inside a quoted string (§7.1), and the bytes that end a run of
/// plain bytes in a JSON string literal (its quote, an escape, a control character).
pub(crate) const NEEDS_ESCAPE: [bool; 256] = {
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

/// [`FORCES_QUOTES`] or `delimiter` in a lane ([`clean_lanes`]), as comparisons the compiler
/// checks 16 bytes at a time (kept as one mark per byte: an or-reduction of these seven
/// comparisons is not vectorized). Clearing bit 5 folds `{` onto `[` and `}` onto `]`.
#[inline(always)]
fn lane_forces_quotes(lane: &[u8; LANES], delimiter: u8) -> bool {
    let mut marks = [0u8; LANES];
    for (mark, &b) in marks.iter_mut().zip(lane) {
        let folded = b & !0x20;
        *mark = u8::from(
            (b < 0x20)
                | (b == b':')
                | (b == b'"')
                | (b == b'\\')
                | (folded == b'[')
                | (folded == b']')
                | (b == delimiter),
        );
    }
    u128::from_ne_bytes(marks) != 0
}

/// [`NEEDS_ESCAPE`] in a lane ([`clean_lanes`]), as comparisons the compiler checks 16 bytes
/// at a time (as an or-reduction: one mark per byte is not vectorized for these three).
#[inline(always)]
fn lane_needs_escape(lane: &[u8; LANES]) -> bool {
    let mut any = 0u8;
    for &b in lane {
        any |= u8::from((b < 0x20) | (b == b'"') | (b == b'\\'));
    }
    any != 0
}

/// The first byte at or after `from` that needs an escape (§7.1).
#[inline]
fn next_escape(bytes: &[u8], from: usize) -> Option<usize> {
    let from = if bytes.len() >= LANES {
        clean_lanes(bytes, from, lane_needs_escape)
    } else {
        from
    };
    let rest = bytes.get(from..)?;
    rest.iter()
        .position(|&b| NEEDS_ESCAPE[b as usize])
        .map(|i| from + i)
}

/// §7.2: may `s` appear unquoted where `delimiter` is the relevant delimiter? `Ok` if so;
/// when `s` must be quoted, how long a prefix of it the check
/// found free of every byte that forces quotes, and so of every byte that needs an escape
/// ([`NEEDS_ESCAPE`] is within [`FORCES_QUOTES`]): the escaping scan starts there.
fn unquoted_or_clean(s: &str, delimiter: u8) -> Result<(), usize> {
    let bytes = s.as_bytes();
    let (Some(&first), Some(&last)) = (bytes.first(), bytes.last()) else {
        return Err(0); // empty
    };
    if matches!(first, b' ' | b'\t' | b'-' | b'#') || matches!(last, b' ' | b'\t') {
        return Err(0);
    }
    // A short string is tested as one lane too; only one that has such a byte is searched
    // byte by byte, for the clean prefix. `a` forces no quotes (with any delimiter but `a`,
    // for which the byte search decides).
    let clean = if bytes.len() >= LANES {
        clean_lanes(bytes, 0, |lane| lane_forces_quotes(lane, delimiter))
    } else {
        match short_lane(bytes, b'a') {
            Some(lane) if !lane_forces_quotes(&lane, delimiter) => bytes.len(),
            _ => 0,
        }
    };
    let rest = &bytes[clean..];
    let forced = match forces_quotes(delimiter) {
        Some(table) => rest.iter().position(|&b| table[b as usize]),
        None => rest
            .iter()
            .position(|&b| FORCES_QUOTES[b as usize] || b == delimiter),
    };
    if let Some(at) = forced {
        return Err(clean + at);
    }
    if matches!(s, "true" | "false" | "null") || is_numeric_like(bytes) {
        return Err(bytes.len());
    }
    Ok(())
}

/// §7.2 numeric-like: `/^[+-]?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?$/i`.
pub(crate) fn is_numeric_like(bytes: &[u8]) -> bool {
    let mut i = 0;
    if matches!(bytes.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return false;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        i += 1;
        if i < bytes.len() && matches!(bytes[i], b'+' | b'-') {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == bytes.len()
}

/// §7.3 key bytes: `KEY_START` may begin an unquoted key, `KEY_REST` may follow.
const KEY_START: u8 = 2;
const KEY_REST: u8 = 1;

/// The class of every byte for §7.3, one table load per byte (this runs for every key of
/// every line the encoder writes).
const KEY_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = if c.is_ascii_alphabetic() || c == b'_' {
            KEY_START | KEY_REST
        } else if c.is_ascii_digit() || c == b'.' {
            KEY_REST
        } else {
            0
        };
        b += 1;
    }
    table
};

/// §7.3: keys matching `^[A-Za-z_][A-Za-z0-9_.]*$` may be unquoted.
pub(crate) fn is_unquoted_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    match bytes.first() {
        Some(&b) if KEY_CLASS[b as usize] & KEY_START != 0 => {}
        _ => return false,
    }
    bytes[1..]
        .iter()
        .fold(KEY_REST, |all, &b| all & KEY_CLASS[b as usize])
        != 0
}

/// §7.3: may `b` stand in an unquoted key after its first byte (a letter, digit, `_` or `.`)?
#[inline]
pub(crate) fn is_key_byte(b: u8) -> bool {
    KEY_CLASS[b as usize] & KEY_REST != 0
}

/// Writes `s` as a quoted, escaped string (§7.1).
pub(crate) fn write_quoted(out: &mut Vec<u8>, s: &str) {
    write_quoted_after(out, s, 0);
}

/// [`write_quoted`] for a string whose first `clean` bytes need no escape.
fn write_quoted_after(out: &mut Vec<u8>, s: &str, clean: usize) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    // The clean prefix needs no search; after an escape, the search goes on past it.
    while let Some(i) = next_escape(bytes, start.max(clean)) {
        out.extend_from_slice(&bytes[start..i]);
        match bytes[i] {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 0xf) as usize]);
            }
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Writes a string value, quoted only when §7.2 requires it for `delimiter`.
pub(crate) fn write_string(out: &mut Vec<u8>, s: &str, delimiter: u8) {
    match unquoted_or_clean(s, delimiter) {
        Ok(()) => out.extend_from_slice(s.as_bytes()),
        Err(clean) => write_quoted_after(out, s, clean),
    }
}

/// Writes a key or field name, quoted only when §7.3 requires it.
pub(crate) fn write_key(out: &mut Vec<u8>, key: &str) {
    if is_unquoted_key(key) {
        out.extend_from_slice(key.as_bytes());
    } else {
        write_quoted(out, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_safe_unquoted(s: &str, delimiter: u8) -> bool {
        unquoted_or_clean(s, delimiter).is_ok()
    }

    /// The lane tests find the byte a plain table scan finds, for strings around and past a
    /// lane's length with the byte anywhere, alone or after others.
    #[test]
    fn lanes_find_what_a_byte_scan_finds() {
        // Every byte that forces quotes or needs an escape, their neighbours, the bytes that
        // differ from `[`, `]`, `{` and `}` only in bit 7 (not folded onto them), and UTF-8.
        let special: Vec<u8> = (0u8..0x20)
            .chain(*b":\"\\[]{},|\t;ZzKk@`\x7f ")
            .chain([0xc3, 0xa9, 0xdb, 0xdd, 0xfb, 0xfd])
            .collect();
        let mut state = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..40_000 {
            let bytes = crate::test_rng::sprinkled(&mut state, b'a', 70, 3, &special);
            let len = bytes.len();
            for delimiter in [b',', b'|', b'\t', b';'] {
                let forced = bytes
                    .iter()
                    .position(|&b| FORCES_QUOTES[b as usize] || b == delimiter);
                let lanes = match bytes.len() {
                    n if n >= LANES => {
                        clean_lanes(&bytes, 0, |lane| lane_forces_quotes(lane, delimiter))
                    }
                    _ => 0,
                };
                assert!(lanes <= forced.unwrap_or(len), "{bytes:?} {delimiter}");
                if forced.is_none() && len >= LANES {
                    assert_eq!(lanes, len, "{bytes:?} {delimiter}");
                }
            }
            for from in 0..=len {
                let escape = bytes[from..]
                    .iter()
                    .position(|&b| NEEDS_ESCAPE[b as usize])
                    .map(|i| from + i);
                assert_eq!(next_escape(&bytes, from), escape, "{bytes:?} from {from}");
            }
            if let Ok(s) = std::str::from_utf8(&bytes) {
                for delimiter in [b',', b'|', b'\t'] {
                    let plain = s
                        .bytes()
                        .position(|b| FORCES_QUOTES[b as usize] || b == delimiter);
                    let edge = s.starts_with([' ', '\t', '-', '#']) || s.ends_with([' ', '\t']);
                    let expected = match plain {
                        _ if s.is_empty() || edge => Err(0),
                        Some(at) => Err(at),
                        None if matches!(s, "true" | "false" | "null") => Err(len),
                        None if is_numeric_like(s.as_bytes()) => Err(len),
                        None => Ok(()),
                    };
                    assert_eq!(unquoted_or_clean(s, delimiter), expected, "{s:?}");
                }
            }
        }
    }

    /// The escaping scan that starts after the clean prefix writes what a scan of the whole
    /// string writes.
    #[test]
    fn quoting_after_the_clean_prefix_is_quoting_the_whole() {
        const PARTS: [&str; 12] = [
            "a", "-", " ", ":", "\"", "\\", "\n", "\u{1}", "é", ",", "|", "1",
        ];
        let mut state = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..crate::test_rng::next(&mut state) % 8 {
                s.push_str(PARTS[(crate::test_rng::next(&mut state) % 12) as usize]);
            }
            for delimiter in [b',', b'|', b'\t'] {
                let mut fast = Vec::new();
                write_string(&mut fast, &s, delimiter);
                let mut plain = Vec::new();
                if is_safe_unquoted(&s, delimiter) {
                    plain.extend_from_slice(s.as_bytes());
                } else {
                    write_quoted(&mut plain, &s);
                }
                assert_eq!(fast, plain, "{s:?}");
            }
        }
    }

    #[test]
    fn delimiter_tables_add_only_their_delimiter() {
        for delimiter in [b',', b'\t', b'|'] {
            let table = forces_quotes(delimiter).unwrap();
            for b in 0..=255u8 {
                assert_eq!(
                    table[b as usize],
                    FORCES_QUOTES[b as usize] || b == delimiter
                );
            }
        }
    }

    #[test]
    fn key_table_matches_the_pattern_of_7_3() {
        for first in 0..=255u8 {
            for second in [b'a', b'0', b'.', b'-', b' ', 0x80] {
                let key = [first, second];
                let Ok(key) = std::str::from_utf8(&key) else {
                    continue;
                };
                let pattern = |b: u8, start: bool| {
                    b.is_ascii_alphabetic()
                        || b == b'_'
                        || (!start && (b.is_ascii_digit() || b == b'.'))
                };
                let expected = pattern(first, true) && pattern(second, false);
                assert_eq!(is_unquoted_key(key), expected, "{key:?}");
            }
        }
        assert!(is_unquoted_key("a") && is_unquoted_key("_x.y_9") && !is_unquoted_key(""));
    }

    #[test]
    fn quoting_rules_of_7_2() {
        for s in [
            "", " a", "a ", "\ta", "true", "null", "42", "-3.14", "05", "+1", "1e-6", "1E+9",
            "a:b", "a\"b", "a\\b", "[x", "x}", "a\nb", "-", "-x", "#", "#x", "a,b",
        ] {
            assert!(!is_safe_unquoted(s, b','), "{s:?} must be quoted");
        }
        for s in [
            "hello world",
            "True",
            "1.",
            ".5",
            "1e",
            "a|b",
            "x-y",
            "x#y",
            "日本",
        ] {
            assert!(is_safe_unquoted(s, b','), "{s:?} may stay bare");
        }
        assert!(!is_safe_unquoted("a\tb", b','), "controls force quotes");
        assert!(!is_safe_unquoted("a|b", b'|'));
    }

    #[test]
    fn keys_of_7_3() {
        assert!(is_unquoted_key("user.name_2"));
        assert!(is_unquoted_key("_x"));
        for k in ["", "2key", "my-key", "a b", "é"] {
            assert!(!is_unquoted_key(k), "{k:?}");
        }
    }

    #[test]
    fn escapes_of_7_1() {
        let mut out = Vec::new();
        write_quoted(&mut out, "a\"b\\c\nd\re\tf\u{1}g\u{7f}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\u{7f}\""
        );
    }
}
