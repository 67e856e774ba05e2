//! Value tokens: splitting on the active delimiter (§11.2), quoted strings and escapes (§7.1),
//! and the typing of unquoted tokens (§4).

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::swar::digits::{self, Short};
use crate::swar::{find_any, find_either};

/// A decoded primitive.
#[derive(Debug, PartialEq)]
pub(crate) enum ParsedPrimitive<'de> {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(Cow<'de, str>),
}

/// Trims U+0020 only (§12 token trimming). Nearly every token has no space at either end,
/// which two byte tests tell.
#[inline]
pub(crate) fn trim_spaces(s: &str) -> &str {
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(&b' '), _) | (_, Some(&b' ')) => trim_spaces_at_ends(s),
        _ => s,
    }
}

#[cold]
fn trim_spaces_at_ends(s: &str) -> &str {
    let bytes = s.as_bytes();
    let start = bytes.iter().position(|&b| b != b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |i| i + 1);
    &s[start..end]
}

/// The bytes of `s` from `from` on that lie outside quoted strings, with their positions.
/// Quotes toggle; inside quotes a backslash escapes the next byte (§7.1, Appendix B.3).
pub(crate) struct Unquoted<'s> {
    bytes: &'s [u8],
    at: usize,
    in_quotes: bool,
}

impl<'s> Unquoted<'s> {
    pub(crate) fn new(s: &'s str, from: usize) -> Self {
        Unquoted {
            bytes: s.as_bytes(),
            at: from,
            in_quotes: false,
        }
    }
}

impl Iterator for Unquoted<'_> {
    type Item = (usize, u8);

    fn next(&mut self) -> Option<(usize, u8)> {
        while let Some(&b) = self.bytes.get(self.at) {
            let at = self.at;
            self.at += 1;
            if self.in_quotes {
                if b == b'\\' && self.at < self.bytes.len() {
                    self.at += 1;
                } else if b == b'"' {
                    self.in_quotes = false;
                }
            } else if b == b'"' {
                self.in_quotes = true;
            } else {
                return Some((at, b));
            }
        }
        None
    }
}

/// Position of the first unquoted `ch` at or after `from` (which must be outside quotes).
/// Jumps with memchr between candidates and over quoted sections; the same positions as
/// [`Unquoted`] yields.
pub(crate) fn find_unquoted(s: &str, ch: u8, from: usize) -> Option<usize> {
    debug_assert_ne!(ch, b'"');
    let bytes = s.as_bytes();
    let mut at = from;
    loop {
        let i = at + memchr::memchr2(ch, b'"', bytes.get(at..)?)?;
        if bytes[i] == ch {
            return Some(i);
        }
        at = after_quoted(bytes, i)?;
    }
}

/// The index just past the quote closing the one at `open`; `None` if it never closes.
pub(crate) fn after_quoted(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    loop {
        let j = i + memchr::memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes[j] == b'"' {
            return Some(j + 1);
        }
        i = j + 2;
    }
}

/// Position of the quote closing the one at `open`.
pub(crate) fn find_closing_quote(s: &str, open: usize) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if i + 1 < bytes.len() => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Splits `s` on unquoted `delim` into space-trimmed tokens, appended to `out`. An empty `s`
/// has no tokens; otherwise empty tokens are kept (§11.2).
///
/// One pass over the bytes: cells are short, so a plain loop beats a search per cell.
pub(crate) fn split_delimited<'de>(s: &'de str, delim: u8, out: &mut Vec<&'de str>) {
    if s.is_empty() {
        return;
    }
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while let Some(found) = find_either(bytes, at, delim, b'"') {
        if bytes[found] == delim {
            out.push(trim_spaces(&s[start..found]));
            start = found + 1;
            at = found + 1;
        } else {
            // An unterminated quote runs to the end, as `find_unquoted` treats it.
            match after_quoted(bytes, found) {
                Some(next) => at = next,
                None => break,
            }
        }
    }
    out.push(trim_spaces(&s[start..]));
}

/// The first position at or after `from` holding a byte that ends an unquoted key on a field
/// line (§5.2): its colon, or a `[` or `"` that make the line something else (a header, a
/// quoted key), or the line's end. A word at a time ([`find_any`]), so that a key is found
/// with no branch that depends on its length.
#[inline]
pub(crate) fn key_end(bytes: &[u8], from: usize) -> Option<usize> {
    find_any(bytes, from, [b':', b'[', b'"', b'\n'])
}

/// A key-value line's plain key and the text after its colon (§5.2, §7.4): the first `:`,
/// `[` or `"` of `content` must be a colon after a non-empty key. `None` for a header, a
/// quoted key or a line without a colon. `content` starts with no space and ends with none,
/// as the scanner trims it.
#[inline]
pub(crate) fn split_plain_key(content: &str) -> Option<(&str, &str)> {
    let colon = key_end(content.as_bytes(), 0)?;
    (colon > 0 && content.as_bytes()[colon] == b':').then(|| split_at_colon(content, colon))
}

/// `content` split at the key's colon at `colon` (not its first byte) into the key and the
/// text after the colon, both space-trimmed.
#[inline]
pub(crate) fn split_at_colon(content: &str, colon: usize) -> (&str, &str) {
    let bytes = content.as_bytes();
    let mut key_end = colon;
    while bytes[key_end - 1] == b' ' {
        key_end -= 1;
    }
    let mut rest_start = colon + 1;
    while rest_start < bytes.len() && bytes[rest_start] == b' ' {
        rest_start += 1;
    }
    (content.split_at(key_end).0, content.split_at(rest_start).1)
}

/// The powers of ten a decimal's fraction digits divide by: all exact in an f64.
const POW10: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// A decimal without exponent whose digits fit the f64 mantissa exactly (at most 2^53 and
/// 15 fraction digits): one exact conversion and one correctly rounded division give the
/// same f64 as the full parse (the classic fast path). `None` for anything else, which the
/// caller then types in full. Integers are left to [`parse_integer`]. [`typed_number`] reads
/// a body of up to eight bytes a word at a time instead (`digits::short_number`).
pub(crate) fn parse_decimal(token: &str) -> Option<f64> {
    let bytes = token.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let body = &bytes[usize::from(negative)..];
    let dot = body.iter().position(|&b| b == b'.')?;
    let (int, frac) = (&body[..dot], &body[dot + 1..]);
    if int.is_empty() || (int[0] == b'0' && int.len() > 1) || frac.is_empty() || frac.len() > 15 {
        return None;
    }
    if int.len() + frac.len() > 16 {
        return None;
    }
    // Two plain loops: a chained iterator branches on its half at every digit.
    let mut mantissa = 0u64;
    for digits in [int, frac] {
        for &b in digits {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            mantissa = mantissa * 10 + u64::from(d);
        }
    }
    if mantissa > 1 << 53 {
        return None;
    }
    Some(decimal(negative, mantissa, POW10[frac.len()]))
}

/// `mantissa / scale` with its sign: one correctly rounded division of exact values.
#[inline]
fn decimal(negative: bool, mantissa: u64, scale: f64) -> f64 {
    let value = mantissa as f64 / scale;
    // §4: -0 decodes as 0.
    if negative && mantissa != 0 {
        -value
    } else {
        value
    }
}

/// Unescapes the body of a quoted string (§7.1); borrowed when there is nothing to unescape.
/// Runs between backslashes are copied whole.
pub(crate) fn unescape(body: &str) -> Result<Cow<'_, str>> {
    let Some(first) = memchr::memchr(b'\\', body.as_bytes()) else {
        return Ok(Cow::Borrowed(body));
    };
    let mut out = String::with_capacity(body.len());
    out.push_str(&body[..first]);
    let mut rest = &body[first..];
    while let Some(after) = rest.strip_prefix('\\') {
        let mut chars = after.chars();
        let escaped = chars.next();
        match escaped {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let Some(code) = hex_code(hex.as_bytes()) else {
                    return Err(Error::syntax(format!(
                        "invalid escape: \\u must be followed by 4 hex digits, found {hex:?}"
                    )));
                };
                match char::from_u32(code) {
                    Some(ch) => out.push(ch),
                    None => {
                        return Err(Error::syntax(format!(
                            "invalid escape: \\u{hex} is a lone surrogate; supplementary \
                             characters must appear as literal UTF-8"
                        )));
                    }
                }
            }
            Some(other) => {
                return Err(Error::syntax(format!("invalid escape sequence \\{other}")));
            }
            None => return Err(Error::syntax("invalid escape: backslash at end of string")),
        }
        rest = chars.as_str();
        let run = memchr::memchr(b'\\', rest.as_bytes()).unwrap_or(rest.len());
        out.push_str(&rest[..run]);
        rest = &rest[run..];
    }
    Ok(Cow::Owned(out))
}

/// A token that starts with `"`: exactly one quoted string, nothing after it.
///
/// Read by [`quoted_prefix`]; any error is reported by [`parse_quoted_plain`], which checks
/// the whole token first, so messages do not depend on the path.
pub(crate) fn parse_quoted(token: &str) -> Result<Cow<'_, str>> {
    // A token holds no newline: the search needs only quotes and backslashes.
    match quoted::<false>(token) {
        Some((value, len)) if len == token.len() => Ok(value),
        _ => parse_quoted_plain(token),
    }
}

/// The quoted string (§7.1) that `text` starts with: its value and the length of its quoted
/// form. `None` for an unterminated string, a line break before the closing quote or an
/// invalid escape; the caller then reads the token the plain way, which gives the error.
///
/// One pass: each search finds the next quote, backslash or newline; runs between escapes
/// are copied whole and the common escapes pushed as they are met. `text` may run past the
/// string's line (a value read at the cursor), so the newline ends the search.
#[inline]
pub(crate) fn quoted_prefix(text: &str) -> Option<(Cow<'_, str>, usize)> {
    quoted::<true>(text)
}

/// [`quoted_prefix`], searching for newlines too when `LINES` (text that may run past the
/// string's line).
fn quoted<const LINES: bool>(text: &str) -> Option<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    let mut at = 1;
    loop {
        let rest = bytes.get(at..)?;
        let found = if LINES {
            memchr::memchr3(b'"', b'\\', b'\n', rest)
        } else {
            memchr::memchr2(b'"', b'\\', rest)
        };
        let stop = at + found?;
        let run = text.split_at(stop).0.split_at(at).1;
        match bytes[stop] {
            b'"' => {
                let value = match out {
                    None => Cow::Borrowed(run),
                    Some(mut owned) => {
                        owned.push_str(run);
                        Cow::Owned(owned)
                    }
                };
                return Some((value, stop + 1));
            }
            b'\n' => return None,
            _ => {}
        }
        let owned = out.get_or_insert_with(|| {
            // The unescaped text is no longer than the rest of the line.
            String::with_capacity(memchr::memchr(b'\n', bytes).unwrap_or(bytes.len()))
        });
        owned.push_str(run);
        let escaped = match bytes.get(stop + 1)? {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'\\' => '\\',
            b'"' => '"',
            b'u' => {
                let ch = bytes
                    .get(stop + 2..stop + 6)
                    .and_then(hex_code)
                    .and_then(char::from_u32)?;
                owned.push(ch);
                at = stop + 6;
                continue;
            }
            _ => return None,
        };
        owned.push(escaped);
        at = stop + 2;
    }
}

/// The code of a `\\u` escape's four hex digits; `None` unless there are exactly four.
fn hex_code(digits: &[u8]) -> Option<u32> {
    if digits.len() != 4 {
        return None;
    }
    digits.iter().try_fold(0u32, |code, &b| {
        char::from(b).to_digit(16).map(|d| code * 16 + d)
    })
}

/// [`parse_quoted`] the plain way: find the closing quote, check nothing follows, then
/// unescape. It gives the errors.
fn parse_quoted_plain(token: &str) -> Result<Cow<'_, str>> {
    let close = find_closing_quote(token, 0)
        .ok_or_else(|| Error::syntax("unterminated string: missing closing quote"))?;
    if close != token.len() - 1 {
        return Err(Error::syntax("unexpected characters after closing quote"));
    }
    unescape(&token[1..close])
}

/// A key or field name token: quoted names are unescaped, others taken literally.
pub(crate) fn parse_name(token: &str) -> Result<Cow<'_, str>> {
    let token = trim_spaces(token);
    if token.starts_with('"') {
        parse_quoted(token)
    } else {
        Ok(Cow::Borrowed(token))
    }
}

/// Types one value token (§4).
pub(crate) fn parse_primitive(token: &str) -> Result<ParsedPrimitive<'_>> {
    let token = trim_spaces(token);
    match token.as_bytes().first() {
        None => return Ok(ParsedPrimitive::Str(Cow::Borrowed(""))),
        Some(b'"') => return parse_quoted(token).map(ParsedPrimitive::Str),
        Some(b't') if token == "true" => return Ok(ParsedPrimitive::Bool(true)),
        Some(b'f') if token == "false" => return Ok(ParsedPrimitive::Bool(false)),
        Some(b'n') if token == "null" => return Ok(ParsedPrimitive::Null),
        _ => {}
    }
    Ok(parse_number(token).unwrap_or(ParsedPrimitive::Str(Cow::Borrowed(token))))
}

/// An integer as [`parse_primitive`] types it: unsigned unless negative. A type of its own
/// so that visiting one is two arms, not the seven of a [`ParsedPrimitive`], in every typed hint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Integer {
    U64(u64),
    I64(i64),
}

impl From<Integer> for ParsedPrimitive<'_> {
    fn from(int: Integer) -> Self {
        match int {
            Integer::U64(v) => ParsedPrimitive::U64(v),
            Integer::I64(v) => ParsedPrimitive::I64(v),
        }
    }
}

/// A number as the typed hints read it: a decimal ([`parse_decimal`]) or an integer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum TypedNumber {
    F64(f64),
    Integer(Integer),
}

/// A token that is a decimal or an integer the fast paths type, as [`parse_primitive`]
/// would; `None` for anything else, which the caller then types in full.
#[inline]
pub(crate) fn typed_number(token: &str) -> Option<TypedNumber> {
    // Up to eight bytes after the sign, one word read tells both kinds apart.
    let bytes = token.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let body = &bytes[usize::from(negative)..];
    if body.len() <= 8 {
        return short_signed(negative, digits::short_number(body)?);
    }
    match parse_decimal(token) {
        Some(v) => Some(TypedNumber::F64(v)),
        None => parse_integer(token).map(TypedNumber::Integer),
    }
}

/// A token that is an integer of the §4 grammar and fits 64 bits, typed as [`parse_primitive`]
/// types it (`-0` is 0); `None` for anything else, which the caller then types in full. One
/// pass over the digits: the typed-hint path for integer targets.
pub(crate) fn parse_integer(token: &str) -> Option<Integer> {
    let bytes = token.as_bytes();
    let negative = bytes.first() == Some(&b'-');
    let digits = &bytes[usize::from(negative)..];
    // 19 digits always fit u64; longer ones (and leading zeros) take the full path.
    if digits.is_empty() || digits.len() > 19 || (digits[0] == b'0' && digits.len() > 1) {
        return None;
    }
    // A loop, not a word (`digits::short_number`): for the short integers of tables it runs
    // fewer instructions, and measured faster on this machine in spite of mispredicting its
    // exit (a word read is kept for decimals, whose loops were slower).
    let mut value = 0u64;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        value = value * 10 + u64::from(d);
    }
    signed(negative, value)
}

/// [`typed_number`] for a value that is the first `len` bytes (one to seven) of `word`,
/// eight bytes of input loaded as they lie: read from the word, not loaded again.
#[inline]
pub(crate) fn number_in_word(word: u64, len: usize) -> Option<TypedNumber> {
    let (negative, body, body_len) = digits::signed_in_word(word, len)?;
    short_signed(negative, digits::aligned_number(body, body_len)?)
}

/// A short number ([`digits::short_number`]) with its sign, typed.
#[inline(always)]
fn short_signed(negative: bool, short: Short) -> Option<TypedNumber> {
    match short {
        Short {
            digits,
            fraction: 0,
        } => signed(negative, digits).map(TypedNumber::Integer),
        Short { digits, fraction } => {
            Some(TypedNumber::F64(decimal(negative, digits, POW10[fraction])))
        }
    }
}

/// The value of an integer's digits with its sign: `-0` is 0, and below `i64::MIN` the
/// value is an f64 (the full path's).
#[inline]
fn signed(negative: bool, value: u64) -> Option<Integer> {
    if !negative || value == 0 {
        return Some(Integer::U64(value));
    }
    // -9223372036854775808 is the smallest i64.
    (value <= 1 << 63).then(|| Integer::I64((value as i64).wrapping_neg()))
}

/// The integer that `bytes` holds from `at` on, as [`parse_integer`] types it, and the end
/// of its digits, found as they are accumulated (a value read at the cursor, whose end is
/// not known); what follows them is the caller's to check. `None` without digits, with a
/// leading zero or with more than 19 digits (they take the full path), as `parse_integer`.
#[inline]
pub(crate) fn integer_prefix(bytes: &[u8], at: usize) -> Option<(Integer, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    let start = at + usize::from(negative);
    let mut end = start;
    let mut value = 0u64;
    while let Some(&b) = bytes.get(end) {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        // Wraps only past 19 digits, which are refused below.
        value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        end += 1;
    }
    let len = end - start;
    if len == 0 || len > 19 || (bytes[start] == b'0' && len > 1) {
        return None;
    }
    signed(negative, value).map(|prim| (prim, end))
}

/// Whether an unquoted token is a string by §4 (not a number, boolean or null), judged by
/// its first byte, the three literals and, for a first digit or `-` (a date, a version, a
/// phone number), the number grammar: the typed-hint path for string targets. `false`
/// means "maybe not"; the caller then types the token in full.
pub(crate) fn is_plain_string(token: &str) -> bool {
    match token.as_bytes().first() {
        Some(b'0'..=b'9' | b'-') => parse_number(token).is_none(),
        Some(b'"') | None => false,
        Some(b't' | b'f' | b'n') => !matches!(token, "true" | "false" | "null"),
        Some(_) => true,
    }
}

/// An integer in the §4 grammar: `-?(0|[1-9][0-9]*)`.
pub(crate) fn is_integer(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// §4 number grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`. Integers are exact in
/// i64/u64; integers beyond u64 and all fractions/exponents become f64; a token whose value
/// overflows f64 is not a number (it stays a string, as in the reference decoder).
fn parse_number(token: &str) -> Option<ParsedPrimitive<'_>> {
    let b = token.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_len = i - int_start;
    if int_len == 0 || (int_len > 1 && b[int_start] == b'0') {
        return None;
    }
    let mut integral = true;
    if i < b.len() && b[i] == b'.' {
        integral = false;
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        integral = false;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    if integral {
        if b[0] == b'-' {
            if let Ok(v) = token.parse::<i64>() {
                return Some(if v == 0 {
                    ParsedPrimitive::U64(0)
                } else {
                    ParsedPrimitive::I64(v)
                });
            }
        } else if let Ok(v) = token.parse::<u64>() {
            return Some(ParsedPrimitive::U64(v));
        }
    }
    let v: f64 = token.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some(ParsedPrimitive::F64(if v == 0.0 { 0.0 } else { v }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer read at a cursor is the one `parse_integer` reads from its digits, for
    /// runs of every length around the word's eight bytes, with a sign or leading zeros,
    /// followed by any byte or by the text's end, at any offset.
    #[test]
    fn integer_prefix_agrees_with_parse_integer() {
        let after: [&[u8]; 8] = [b"", b"\n", b" ", b",x", b".5", b"\xc3\xa9", b"/", b":"];
        let mut state = 0x8a5c_d789_635d_2dffu64;
        for _ in 0..40_000 {
            let mut next = |n: u64| (crate::test_rng::next(&mut state) % n) as usize;
            let mut text = b"key: ".repeat(next(2));
            let at = text.len();
            if next(3) == 0 {
                text.push(b'-');
            }
            let len = next(23);
            for i in 0..len {
                // Leading zeros now and then; any digit otherwise.
                let zero = i == 0 && next(4) == 0;
                text.push(if zero { b'0' } else { b'0' + next(10) as u8 });
            }
            text.extend_from_slice(after[next(after.len() as u64)]);
            let start = at + usize::from(text.get(at) == Some(&b'-'));
            let run = text[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let token = std::str::from_utf8(&text[at..start + run]).unwrap();
            let expected = parse_integer(token).map(|int| (int, start + run));
            assert_eq!(
                integer_prefix(&text, at),
                expected,
                "{:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    /// The word search finds the first key-ending byte that a byte-by-byte scan finds,
    /// wherever it stands (in a whole word, in the bytes after the last one, or nowhere) and
    /// from any start.
    #[test]
    fn key_end_agrees_with_a_byte_scan() {
        let alphabet = [
            b'a',
            b'Z',
            b'_',
            b':',
            b'[',
            b'"',
            b'\n',
            b' ',
            0x3a ^ 0x80,
            0xff,
            0x01,
        ];
        let mut state = 0x2545_f491_4f6c_dd1d;
        for _ in 0..60_000 {
            let bytes = crate::test_rng::sprinkled(&mut state, b'k', 40, 4, &alphabet);
            let len = bytes.len();
            for from in 0..=len + 1 {
                let plain = bytes
                    .get(from..)
                    .and_then(|tail| tail.iter().position(|b| b":[\"\n".contains(b)))
                    .map(|i| from + i);
                assert_eq!(key_end(&bytes, from), plain, "{bytes:?} from {from}");
            }
        }
    }

    /// Only U+0020 is trimmed, at either end, whatever the other end holds.
    #[test]
    fn trim_spaces_trims_spaces_only() {
        for text in [
            "", " ", "  ", "a", " a", "a ", " a ", "  a b  ", "\ta\t", " \ta", "a\t ", "é ", " é",
        ] {
            assert_eq!(trim_spaces(text), text.trim_matches(' '), "{text:?}");
        }
    }

    /// The memchr search must find exactly what the byte-by-byte quote tracker finds.
    #[test]
    fn find_unquoted_agrees_with_the_quote_tracker() {
        let alphabet = [b'a', b',', b'"', b'\\', b':', b' '];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            crate::test_rng::next(&mut state);
            let len = (state % 12) as usize;
            let text: String = (0..len)
                .map(|i| alphabet[((state >> (i * 4 + 8)) % 6) as usize] as char)
                .collect();
            for ch in [b',', b':'] {
                let expected = Unquoted::new(&text, 0)
                    .find(|&(_, b)| b == ch)
                    .map(|(at, _)| at);
                assert_eq!(
                    find_unquoted(&text, ch, 0),
                    expected,
                    "{text:?} {}",
                    ch as char
                );
            }
            let mut cells = Vec::new();
            split_delimited(&text, b',', &mut cells);
            let mut expected = Vec::new();
            let mut start = 0;
            for (at, _) in Unquoted::new(&text, 0).filter(|&(_, b)| b == b',') {
                expected.push(text[start..at].trim_matches(' '));
                start = at + 1;
            }
            if !text.is_empty() {
                expected.push(text[start..].trim_matches(' '));
            }
            assert_eq!(cells, expected, "{text:?}");
        }
    }

    #[test]
    fn number_grammar_of_section_4() {
        assert_eq!(parse_primitive("42").unwrap(), ParsedPrimitive::U64(42));
        assert_eq!(parse_primitive("-7").unwrap(), ParsedPrimitive::I64(-7));
        assert_eq!(parse_primitive("-0").unwrap(), ParsedPrimitive::U64(0));
        assert_eq!(
            parse_primitive("1.5000").unwrap(),
            ParsedPrimitive::F64(1.5)
        );
        assert_eq!(
            parse_primitive("-1E+03").unwrap(),
            ParsedPrimitive::F64(-1000.0)
        );
        assert_eq!(parse_primitive("0.5").unwrap(), ParsedPrimitive::F64(0.5));
        assert_eq!(
            parse_primitive("18446744073709551616").unwrap(),
            ParsedPrimitive::F64(18446744073709551616.0)
        );
        for s in [
            "05", "-05", ".5", "1.", "+5", "1e", "0x10", "1_000", "Infinity", "1e999",
        ] {
            assert_eq!(
                parse_primitive(s).unwrap(),
                ParsedPrimitive::Str(s.into()),
                "{s}"
            );
        }
    }

    /// The integer, number and plain-string hints agree with the full grammar on tokens at
    /// the edges of each: `i64`/`u64` bounds, leading zeros, literals and near-literals.
    fn hints_agree_at_the_edges() {
        for token in [
            "0",
            "-0",
            "7",
            "-7",
            "05",
            "-",
            "",
            "1.5",
            "1e3",
            "18446744073709551615",
            "18446744073709551616",
            "9223372036854775807",
            "-9223372036854775808",
            "-9223372036854775809",
            "9999999999999999999",
            "-9999999999999999999",
            "12a",
            "true",
            "false",
            "null",
            "truth",
            "nul",
            "abc",
            "-x",
            "\"q\"",
        ] {
            let full = parse_primitive(token).unwrap();
            if let Some(fast) = parse_integer(token) {
                assert_eq!(ParsedPrimitive::from(fast), full, "{token}");
            }
            match typed_number(token) {
                Some(TypedNumber::F64(v)) => assert_eq!(ParsedPrimitive::F64(v), full, "{token}"),
                Some(TypedNumber::Integer(int)) => {
                    assert_eq!(ParsedPrimitive::from(int), full, "{token}")
                }
                None => {}
            }
            if is_plain_string(token) {
                assert_eq!(full, ParsedPrimitive::Str(token.into()), "{token}");
            }
        }
        assert_eq!(
            parse_integer("-9223372036854775808"),
            Some(Integer::I64(i64::MIN))
        );
        assert_eq!(
            parse_integer("9999999999999999999"),
            Some(Integer::U64(9999999999999999999))
        );
        assert!(parse_integer("-9223372036854775809").is_none());
    }

    /// The decimal fast path agrees with the full grammar on generated decimals of up to 17
    /// digits, signed or not, with every split between integer and fraction digits.
    fn generated_decimals_agree() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50_000 {
            crate::test_rng::next(&mut state);
            let digits = (state % 17) as usize + 1;
            let frac = (state >> 8) as usize % (digits + 1);
            let number = (state >> 16) % 10u64.pow(digits as u32 - 1).max(1);
            let text = format!("{number:0>digits$}");
            let (int, fraction) = text.split_at(digits - frac);
            let int = int.trim_start_matches('0');
            let token = format!(
                "{}{}.{}",
                if state & 1 == 1 { "-" } else { "" },
                if int.is_empty() { "0" } else { int },
                if fraction.is_empty() { "5" } else { fraction }
            );
            if let Some(fast) = parse_decimal(&token) {
                assert_eq!(
                    ParsedPrimitive::F64(fast),
                    parse_primitive(&token).unwrap(),
                    "{token}"
                );
                assert_eq!(
                    typed_number(&token),
                    Some(TypedNumber::F64(fast)),
                    "{token}"
                );
            }
        }
    }

    /// The typed-hint paths agree with the full grammar wherever they answer.
    #[test]
    fn fast_paths_agree_with_parse_primitive() {
        hints_agree_at_the_edges();
        generated_decimals_agree();
        for token in [
            "3959.77",
            "0.67",
            "-0.0",
            "0.1",
            "9007199254740993.0",
            "1.",
            ".5",
            "01.5",
        ] {
            match parse_decimal(token) {
                Some(fast) => {
                    assert_eq!(ParsedPrimitive::F64(fast), parse_primitive(token).unwrap())
                }
                None => assert!(
                    !matches!(parse_primitive(token).unwrap(), ParsedPrimitive::F64(_))
                        || token.len() > 17,
                    "{token}"
                ),
            }
        }
        assert_eq!(parse_quoted(r#""plain""#).unwrap(), "plain");
        assert!(matches!(
            parse_quoted(r#""plain""#).unwrap(),
            Cow::Borrowed(_)
        ));
        assert!(parse_quoted(r#""plain"x"#).is_err());
        assert!(parse_quoted(r#""plain"#).is_err());
    }

    /// A token that starts like a number is a plain string exactly when the full path types
    /// it as one: dates, versions, ranges and every near-number built from number bytes.
    #[test]
    fn plain_strings_that_start_like_numbers() {
        const PARTS: [&str; 10] = ["0", "7", "12", "-", ".", "e", "E", "+", "x", "1e999"];
        let mut state = 0x51_7cc1_b727_220au64;
        for _ in 0..20_000 {
            let mut token =
                String::from(["1", "-", "0"][(crate::test_rng::next(&mut state) % 3) as usize]);
            for _ in 0..crate::test_rng::next(&mut state) % 6 {
                token.push_str(PARTS[(crate::test_rng::next(&mut state) % 10) as usize]);
            }
            let full = parse_primitive(&token).unwrap();
            let string = matches!(full, ParsedPrimitive::Str(_));
            assert_eq!(is_plain_string(&token), string, "{token}: {full:?}");
        }
        for token in [
            "2025-03-23",
            "1.2.3",
            "10-20",
            "-",
            "--1",
            "1e999",
            "0x1f",
            "1e+",
        ] {
            assert!(is_plain_string(token), "{token}");
        }
    }

    #[test]
    fn escapes() {
        assert_eq!(parse_quoted(r#""a\"b\\c\n\u00e9""#).unwrap(), "a\"b\\c\né");
        assert!(parse_quoted(r#""\x""#).is_err());
        assert!(parse_quoted(r#""\ud83d""#).is_err());
        assert!(parse_quoted(r#""\u12""#).is_err());
        assert!(parse_quoted(r#""abc" d"#).is_err());
        assert!(parse_quoted(r#""abc"#).is_err());
    }

    /// The one-pass quoted string agrees with the plain path (find the close, then unescape)
    /// on generated tokens: values, borrowed or not, and error messages.
    #[test]
    fn quoted_strings_one_pass_agree_with_the_plain_path() {
        const PARTS: [&str; 16] = [
            "a", "é", " ", "\"", "\\\"", "\\\\", "\\n", "\\t", "\\r", "\\u00e9", "\\u12",
            "\\uD83D", "\\x", "\\", "\\u004G", "xyz",
        ];
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut owned = 0;
        for _ in 0..20_000 {
            let mut token = String::from("\"");
            for _ in 0..crate::test_rng::next(&mut state) % 6 {
                token.push_str(PARTS[(crate::test_rng::next(&mut state) % 16) as usize]);
            }
            if !crate::test_rng::next(&mut state).is_multiple_of(4) {
                token.push('"');
            }
            match (parse_quoted(&token), parse_quoted_plain(&token)) {
                (Ok(fast), Ok(plain)) => {
                    assert_eq!(fast, plain, "{token:?}");
                    assert_eq!(
                        matches!(fast, Cow::Borrowed(_)),
                        matches!(plain, Cow::Borrowed(_)),
                        "{token:?}"
                    );
                    owned += usize::from(matches!(fast, Cow::Owned(_)));
                }
                (Err(fast), Err(plain)) => assert_eq!(fast.message(), plain.message()),
                other => panic!("{token:?}: {other:?}"),
            }
        }
        assert!(owned > 1000, "{owned}");
    }

    #[test]
    fn splitting_keeps_empty_tokens_and_quotes() {
        let mut out = Vec::new();
        split_delimited(r#"a, "b,c" ,,"d\",e""#, b',', &mut out);
        assert_eq!(out, ["a", "\"b,c\"", "", "\"d\\\",e\""]);
    }
}
