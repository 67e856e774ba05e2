//! JSON text as it was sent: its number tokens, whether a number keeps its exact decimal value
//! through this crate's numbers, and the text without insignificant whitespace.
//!
//! serde_json (without `arbitrary_precision`, which would change every crate of a user's build)
//! reads a number into `u64`, `i64` or `f64`; a token with more digits than those carry
//! (`1234567890123456789012`, `0.1000000000000000055511151231257827`, `1e400`) comes out with
//! another decimal value. Callers that must not change what a reader sees scan the text for
//! such tokens first ([`exact_in_f64`], [`numbers`]).
//!
//! Every function expects well-formed JSON (the caller has parsed it or is about to): on other
//! text they stay in bounds and terminate, but their answer means nothing.

use std::ops::Range;

/// The byte ranges of the number tokens outside strings, in text order. In JSON a number is
/// always a value, never a key, so the n-th range is the n-th number a parser visits.
pub(crate) fn numbers(text: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < text.len() {
            match text[at] {
                b'"' => at = string_end(text, at + 1),
                b'-' | b'0'..=b'9' => {
                    let start = at;
                    at = number_end(text, at);
                    return Some(start..at);
                }
                _ => at += 1,
            }
        }
        None
    })
}

/// The index just past the closing quote of a string whose content starts at `at`.
pub(crate) fn string_end(text: &[u8], mut at: usize) -> usize {
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

/// Whether the number token keeps its exact decimal value when read as serde_json reads it
/// (`u64`/`i64` when it is an integer in range, else the nearest `f64`) and written as this
/// crate writes that (all digits of an integer, the shortest round-trip digits of a float).
/// `-0` counts as `0` (§2).
#[must_use]
pub(crate) fn exact_in_f64(token: &[u8]) -> bool {
    let Some(sent) = Decimal::parse(token) else {
        return false;
    };
    // Up to 15 significant digits a double round-trips (DBL_DIG), and an integer of up to 18
    // digits is a u64 or i64: nothing to compute for the common tokens.
    let plain_integer = !token.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
    let magnitude = sent.exponent + sent.digits.len() as i64;
    if sent.digits.len() <= 15 && (-290..=290).contains(&magnitude)
        || plain_integer && magnitude <= 18
    {
        return true;
    }
    if plain_integer {
        let text = std::str::from_utf8(token).unwrap_or_default();
        if text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok() {
            return true;
        }
    }
    let Some(value) = std::str::from_utf8(token)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .filter(|v| v.is_finite())
    else {
        return false;
    };
    let mut buf = zmij::Buffer::new();
    let written = buf.format_finite(value);
    Decimal::parse(written.as_bytes()).is_some_and(|w| w == sent)
}

/// A number's exact value: sign, significant digits without leading or trailing zeros, and
/// the power of ten of the last digit. Zero is no digits and exponent 0, of either sign's
/// token.
#[derive(Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    exponent: i64,
}

impl Decimal {
    /// `None` when the token is not a JSON number (RFC 8259 §6) or its exponent is absurd.
    fn parse(token: &[u8]) -> Option<Decimal> {
        let (negative, rest) = match token.split_first()? {
            (b'-', rest) => (true, rest),
            _ => (false, token),
        };
        let int_len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if int_len == 0 || int_len > 1 && rest[0] == b'0' {
            return None;
        }
        let (int, mut rest) = rest.split_at(int_len);
        let mut frac: &[u8] = &[];
        if let Some((b'.', after)) = rest.split_first() {
            let n = after.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            (frac, rest) = after.split_at(n);
        }
        let mut exponent: i64 = 0;
        if let Some((b'e' | b'E', after)) = rest.split_first() {
            let (sign, after) = match after.split_first()? {
                (b'-', a) => (-1, a),
                (b'+', a) => (1, a),
                _ => (1, after),
            };
            if after.is_empty() || !after.iter().all(u8::is_ascii_digit) {
                return None;
            }
            // Beyond any double and any text a reader would write out: a cap keeps the
            // arithmetic in range; such exponents compare as what they are.
            let digits = after.iter().skip_while(|&&b| b == b'0');
            let mut e: i64 = 0;
            for &d in digits {
                e = (e * 10 + i64::from(d - b'0')).min(1 << 40);
            }
            exponent = sign * e;
            rest = &[];
        }
        if !rest.is_empty() {
            return None;
        }
        let all: Vec<u8> = int.iter().chain(frac).copied().collect();
        let lead = all.iter().take_while(|&&b| b == b'0').count();
        let trail = all[lead..].iter().rev().take_while(|&&b| b == b'0').count();
        let digits = all[lead..all.len() - trail].to_vec();
        if digits.is_empty() {
            return Some(Decimal {
                negative: false,
                digits,
                exponent: 0,
            });
        }
        Some(Decimal {
            negative,
            digits,
            exponent: exponent - frac.len() as i64 + trail as i64,
        })
    }
}

/// `text` without the whitespace JSON allows between tokens (RFC 8259 §2); every other byte,
/// number tokens and string escapes included, as it was.
#[must_use]
pub(crate) fn minify(text: &str) -> String {
    minify_with(text, |_| {})
}

/// [`minify`], and whether every number token keeps its exact value ([`exact_in_f64`]): one
/// pass where the two would read the text twice.
#[must_use]
pub(crate) fn minify_exact(text: &str) -> (String, bool) {
    let mut exact = true;
    let out = minify_with(text, |token| exact = exact && exact_in_f64(token));
    (out, exact)
}

/// [`minify`], calling `number` with each number token.
fn minify_with(text: &str, mut number: impl FnMut(&[u8])) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                let end = string_end(bytes, at + 1).min(bytes.len());
                out.extend_from_slice(&bytes[at..end]);
                at = end;
            }
            b' ' | b'\t' | b'\n' | b'\r' => at += 1,
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, at);
                number(&bytes[at..end]);
                out.extend_from_slice(&bytes[at..end]);
                at = end;
            }
            b => {
                out.push(b);
                at += 1;
            }
        }
    }
    // Only ASCII whitespace outside strings was removed, so the bytes are still UTF-8; a
    // string cut short by a stray backslash at the very end is copied as it was.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<&str> {
        numbers(text.as_bytes()).map(|r| &text[r]).collect()
    }

    #[test]
    fn numbers_outside_strings_in_order() {
        assert_eq!(
            tokens(r#"{"a1": [1, -2.5e3, "3 \"4\" 5"], "b": 0.25, "6": true}"#),
            ["1", "-2.5e3", "0.25"]
        );
        assert_eq!(tokens(r#""unterminated \" 1"#), Vec::<&str>::new());
    }

    #[test]
    fn exact_values_survive_and_lost_digits_are_found() {
        for exact in [
            "0",
            "-0",
            "-0.0",
            "1",
            "1E2",
            "3e53",
            "0.1",
            "1e-7",
            "123.456",
            "18446744073709551615",
            "-9223372036854775808",
            "9007199254740993",
            "1e21",
            "5e-324",
            "1.7976931348623157e308",
            "100000000000000000000000",
        ] {
            assert!(exact_in_f64(exact.as_bytes()), "{exact}");
        }
        for lossy in [
            "18446744073709551616",
            "-9223372036854775809",
            "1234567890123456789012",
            "0.1000000000000000055511151231257827",
            "123456789012345678901234567890",
            "1e400",
            "-1e400",
            "1e-400",
            "9007199254740993.0",
            "1.00000000000000001",
            "999999999999999e300",
        ] {
            assert!(!exact_in_f64(lossy.as_bytes()), "{lossy}");
        }
        for not_json in ["", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x"] {
            assert!(!exact_in_f64(not_json.as_bytes()), "{not_json:?}");
        }
    }

    #[test]
    fn minify_keeps_every_byte_but_whitespace() {
        assert_eq!(
            minify("{\n  \"a b\": [ 1E2 , 3e53 ],\r\n\t\"c\\\" d\": \"x\\u0041 \" }"),
            "{\"a b\":[1E2,3e53],\"c\\\" d\":\"x\\u0041 \"}"
        );
        assert_eq!(minify(" [ \"é \\ud83d\" ] "), "[\"é \\ud83d\"]");
        let text = "{\"a\": [1E2, \"1234567890123456789012\"], \"b\": -0.5}";
        assert_eq!(minify_exact(text), (minify(text), true));
        let (out, exact) = minify_exact("[1, 1234567890123456789012 ]");
        assert_eq!((out.as_str(), exact), ("[1,1234567890123456789012]", false));
    }
}
