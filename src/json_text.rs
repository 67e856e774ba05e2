//! JSON text as it was sent: its number tokens, and whether a number keeps its exact decimal
//! value through this crate's numbers.
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
    std::iter::from_fn(move || next_number(text, &mut at))
}

/// The byte range of the first number token outside strings at or after `*at`, with `*at`
/// moved past it: one step of [`numbers`].
pub(crate) fn next_number(text: &[u8], at: &mut usize) -> Option<Range<usize>> {
    while *at < text.len() {
        match text[*at] {
            b'"' => *at = string_end(text, *at + 1),
            b'-' | b'0'..=b'9' => {
                let start = *at;
                *at = number_end(text, start);
                return Some(start..*at);
            }
            _ => *at += 1,
        }
    }
    None
}

/// The index just past the closing quote of a string whose content starts at `at`.
pub(crate) fn string_end(text: &[u8], mut at: usize) -> usize {
    // Most of a document's bytes are in its strings: skipped to the next quote or backslash
    // with memchr's SIMD search rather than one byte at a time.
    while let Some(i) = text
        .get(at..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        at += i;
        if text[at] == b'"' {
            return at + 1;
        }
        at += 2;
    }
    text.len()
}

/// The index just past the number token that starts at `at`.
pub(crate) fn number_end(text: &[u8], mut at: usize) -> usize {
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
    short_plain(token) || exact_in_f64_general(token)
}

/// [`exact_in_f64`] for any token, the path its fast one must agree with.
fn exact_in_f64_general(token: &[u8]) -> bool {
    general(token).is_some()
}

/// [`exact_in_f64_general`]: `None` when the token loses digits, else the nearest `f64` to it
/// when that was computed on the way (tokens of more than 15 significant digits, or beyond
/// 10^±290), `Some(None)` when it was not needed.
fn general(token: &[u8]) -> Option<Option<f64>> {
    let sent = NumberParts::parse(token)?;
    // Up to 15 significant digits a double round-trips (DBL_DIG), and an integer of up to 18
    // digits is a u64 or i64: nothing to compute (or allocate) for the common tokens.
    let plain_integer = sent.frac.is_empty() && !sent.has_exponent;
    let (digits, last) = sent.significant();
    let magnitude = last + digits as i64;
    if digits <= 15 && (-290..=290).contains(&magnitude) || plain_integer && magnitude <= 18 {
        return Some(None);
    }
    if plain_integer {
        let text = std::str::from_utf8(token).unwrap_or_default();
        if text.parse::<u64>().is_ok() || text.parse::<i64>().is_ok() {
            return Some(None);
        }
    }
    let value = nearest(token)?;
    let mut buf = zmij::Buffer::new();
    let written = buf.format_finite(value);
    Decimal::parse(written.as_bytes())
        .is_some_and(|w| w == Decimal::from(&sent))
        .then_some(Some(value))
}

/// The nearest finite `f64` to a number token (Rust's reading, correctly rounded, as
/// serde_json's with `float_roundtrip`); `None` beyond `f64` or for what is not a number.
pub(crate) fn nearest(token: &[u8]) -> Option<f64> {
    std::str::from_utf8(token)
        .ok()?
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
}

/// Whether serde_json's default float reading (without `float_roundtrip`) reads the token as
/// its nearest `f64`: its digits make a significand of at most 2^53 and its power of ten is
/// within ±22, so both are exact in an `f64` and one multiplication or division rounds
/// (serde_json's `f64_from_parts`). Every [`short_plain`] token is one; `1e21` and `2.50` are
/// too, `0.30000000000000004` (a significand past 2^53) and `1.5e-300` are not.
pub(crate) fn read_exactly(token: &[u8]) -> bool {
    if short_plain(token) {
        return true;
    }
    let Some(parts) = NumberParts::parse(token) else {
        return false;
    };
    let mut significand: u64 = 0;
    for d in parts.all() {
        match significand
            .checked_mul(10)
            .and_then(|s| s.checked_add(u64::from(d - b'0')))
        {
            Some(s) => significand = s,
            None => return false,
        }
    }
    significand <= 1 << 53 && (parts.exponent - parts.frac.len() as i64).abs() <= 22
}

/// Whether the token is an integer serde_json reads as a `u64` or an `i64` (not as a float).
pub(crate) fn reads_as_integer(token: &[u8]) -> bool {
    !token.iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
        && std::str::from_utf8(token)
            .is_ok_and(|t| t.parse::<u64>().is_ok() || t.parse::<i64>().is_ok())
}

/// What a number token comes to read as serde_json reads it without `float_roundtrip`
/// ([`number_kept`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum NumberKept {
    /// A [`short_plain`] token: serde_json reads it exactly, and it keeps its value.
    Plain,
    /// It keeps its value ([`exact_in_f64`]) in this `f64`, its nearest; serde_json may have
    /// read it one unit in the last place off.
    Nearest(f64),
    /// It loses digits ([`exact_in_f64`] is false), or is no number.
    Lost,
}

/// Whether the token is `-?(0|[1-9][0-9]*)(\.[0-9]+)?` (no exponent) with at most 15 digits,
/// or without a fraction at most 18: the common token, which keeps its value without anything
/// computed. The fast path of [`exact_in_f64`] (which comes to the same answer for it: up to 15
/// significant digits within 10^±15, or an integer a `u64` holds); `false` says only "not
/// this shape".
///
/// Also the tokens serde_json's default float reading (without `float_roundtrip`) reads as
/// their nearest `f64`: a fraction of at most 15 digits is an exact significand and an exact
/// power of ten, divided with one rounding (`json_read`, `value/exact_json.rs`).
pub(crate) fn short_plain(token: &[u8]) -> bool {
    let unsigned = token.strip_prefix(b"-").unwrap_or(token);
    // 18 digits, or 15 and a point: longer is never this shape's exact case.
    if unsigned.len() > 18 {
        return false;
    }
    let (int, frac) = match unsigned.iter().position(|&b| b == b'.') {
        Some(dot) => (&unsigned[..dot], Some(&unsigned[dot + 1..])),
        None => (unsigned, None),
    };
    let well_formed = match int {
        [] => false,
        [b'0', _, ..] => false,
        _ => int.iter().all(u8::is_ascii_digit),
    };
    well_formed
        && match frac {
            None => true,
            Some(frac) => {
                !frac.is_empty()
                    && int.len() + frac.len() <= 15
                    && frac.iter().all(u8::is_ascii_digit)
            }
        }
}

/// The end of the number token that starts at `at`, and what it comes to ([`NumberKept`]): one pass
/// over the common token (`-?(0|[1-9][0-9]*)(\.[0-9]+)?`, no exponent, the [`short_plain`]
/// case), the general path for any other (a float's `NumberKept::Nearest` is its nearest `f64`;
/// an integer's is its value as an `f64`, unused: serde_json reads integers exactly).
pub(crate) fn number_kept(text: &[u8], at: usize) -> (usize, NumberKept) {
    let digits_from = |mut i: usize| {
        while text.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    let int = at + usize::from(text.get(at) == Some(&b'-'));
    let mut end = digits_from(int);
    let int_len = end - int;
    let mut digits = int_len;
    let mut fraction = false;
    if text.get(end) == Some(&b'.') {
        let frac = end + 1;
        end = digits_from(frac);
        digits += end - frac;
        fraction = end > frac;
    }
    let plain = !matches!(text.get(end), Some(b'-' | b'+' | b'.' | b'e' | b'E'))
        && (int_len == 1 || int_len > 1 && text[int] != b'0')
        && (text.get(int + int_len) != Some(&b'.') || fraction);
    if plain && (digits <= 15 || !fraction && digits <= 18) {
        return (end, NumberKept::Plain);
    }
    let end = number_end(text, at);
    let token = &text[at..end];
    let kept = match general(token) {
        None => NumberKept::Lost,
        Some(Some(value)) => NumberKept::Nearest(value),
        Some(None) => nearest(token).map_or(NumberKept::Lost, NumberKept::Nearest),
    };
    (end, kept)
}

/// The number token's exact value in §2 canonical form, as the reference encoder lays out a
/// number (no exponent when 1e-6 ≤ |n| < 1e21, else `1.5e+400`), every digit of the token
/// kept: `"1E400"` → `1e+400`, `"-0.0"` → `0`, `"0.1000000000000000055511151231257827"` as it
/// is. `None` when the token is not a JSON number, or its exponent reaches ±2^40.
#[must_use]
pub(crate) fn canonical(token: &[u8]) -> Option<String> {
    let parts = NumberParts::parse(token)?;
    let exact = Decimal::from(&parts);
    if !exact.digits.is_empty() && parts.exponent.unsigned_abs() >= EXPONENT_CAP {
        return None;
    }
    let mut out = Vec::with_capacity(token.len() + 4);
    let n = exact.exponent + exact.digits.len() as i64;
    crate::canonical::write_decimal(&mut out, exact.negative, &exact.digits, n);
    // ASCII digits, signs, a point and an `e`.
    String::from_utf8(out).ok()
}

/// Whether the token is a JSON number (RFC 8259 §6).
#[must_use]
pub(crate) fn is_number(token: &[u8]) -> bool {
    NumberParts::parse(token).is_some()
}

/// Exponents beyond any double and any text a reader would write out are capped here, which
/// keeps the arithmetic in range; such exponents compare as what they are.
const EXPONENT_CAP: u64 = 1 << 40;

/// A number token's parts (RFC 8259 §6), borrowed: read without allocating.
struct NumberParts<'t> {
    negative: bool,
    int: &'t [u8],
    frac: &'t [u8],
    has_exponent: bool,
    /// The written exponent, capped at ±[`EXPONENT_CAP`].
    exponent: i64,
}

impl<'t> NumberParts<'t> {
    /// `None` when the token is not a JSON number.
    fn parse(token: &'t [u8]) -> Option<NumberParts<'t>> {
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
        let has_exponent = matches!(rest.first(), Some(b'e' | b'E'));
        if has_exponent {
            let after = &rest[1..];
            let (sign, after) = match after.split_first()? {
                (b'-', a) => (-1, a),
                (b'+', a) => (1, a),
                _ => (1, after),
            };
            if after.is_empty() || !after.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let mut e: i64 = 0;
            for &d in after.iter().skip_while(|&&b| b == b'0') {
                e = (e * 10 + i64::from(d - b'0')).min(EXPONENT_CAP as i64);
            }
            exponent = sign * e;
            rest = &[];
        }
        if !rest.is_empty() {
            return None;
        }
        Some(NumberParts {
            negative,
            int,
            frac,
            has_exponent,
            exponent,
        })
    }

    /// The digits of `int` then `frac`.
    fn all(&self) -> impl DoubleEndedIterator<Item = u8> + '_ {
        self.int.iter().chain(self.frac).copied()
    }

    /// How many significant digits (no leading or trailing zeros) there are, and the power
    /// of ten of the last one (0 for zero).
    fn significant(&self) -> (usize, i64) {
        let total = self.int.len() + self.frac.len();
        let lead = self.all().take_while(|&b| b == b'0').count();
        if lead == total {
            return (0, 0);
        }
        let trail = self.all().rev().take_while(|&b| b == b'0').count();
        let last = self.exponent - self.frac.len() as i64 + trail as i64;
        (total - lead - trail, last)
    }
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
    /// `None` when the token is not a JSON number (RFC 8259 §6).
    fn parse(token: &[u8]) -> Option<Decimal> {
        NumberParts::parse(token).map(|parts| Decimal::from(&parts))
    }
}

impl From<&NumberParts<'_>> for Decimal {
    fn from(parts: &NumberParts<'_>) -> Decimal {
        let (len, exponent) = parts.significant();
        let lead = parts.all().take_while(|&b| b == b'0').count();
        Decimal {
            negative: parts.negative && len > 0,
            digits: parts.all().skip(lead).take(len).collect(),
            exponent,
        }
    }
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

    /// Number tokens around the fast paths' edges: 14 to 21 digits in every position of the
    /// point, exponents, signs, zeros, and tokens that are not JSON numbers.
    fn edge_tokens() -> Vec<String> {
        let mut tokens: Vec<String> = [
            "0",
            "-0",
            "-0.0",
            "0.0",
            "0e0",
            "-0E-0",
            "1",
            "-1",
            "1.5",
            "1E2",
            "1e-7",
            "1.5e+3",
            "01",
            "-01",
            "00",
            "1.",
            "-",
            ".5",
            "1e",
            "1e+",
            "+1",
            "1x",
            "1.2.3",
            "1-2",
            "0.",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "9007199254740993",
            "9007199254740993.0",
            "0.1000000000000000055511151231257827",
            "1e400",
            "1e-400",
        ]
        .map(String::from)
        .to_vec();
        for digits in 14..=21 {
            let nines = "9".repeat(digits);
            let ones = "1".repeat(digits);
            for body in [nines, ones, format!("1{}", "0".repeat(digits - 1))] {
                for point in [0, 1, digits / 2, digits - 1] {
                    let token = if point == 0 {
                        body.clone()
                    } else {
                        format!("{}.{}", &body[..point], &body[point..])
                    };
                    tokens.push(format!("-{token}"));
                    tokens.push(format!("{token}e5"));
                    tokens.push(format!("0.{token}"));
                    tokens.push(token);
                }
            }
        }
        tokens
    }

    #[test]
    fn short_plain_agrees_with_the_general_path() {
        for token in edge_tokens() {
            let token = token.as_bytes();
            if short_plain(token) {
                assert!(exact_in_f64_general(token), "{token:?}");
            }
        }
        // The common shapes do take the fast path.
        for token in [
            "0",
            "-0",
            "123",
            "-45.5",
            "999999999999999999",
            "0.12345678901234",
        ] {
            assert!(short_plain(token.as_bytes()), "{token}");
        }
    }

    #[test]
    fn number_kept_agrees_with_number_end_and_exact_in_f64() {
        for token in edge_tokens() {
            // At the end of the text, before a delimiter, and after a string with escapes.
            for (before, after) in [("", ""), ("[", ","), (r#"["\"\\", "#, "]"), ("", " ")] {
                let text = format!("{before}{token}{after}");
                let at = before.len();
                let end = number_end(text.as_bytes(), at);
                let bytes = &text.as_bytes()[at..end];
                let (kept_end, kept) = number_kept(text.as_bytes(), at);
                assert_eq!(kept_end, end, "{text}");
                match kept {
                    NumberKept::Plain => assert!(short_plain(bytes), "{text}"),
                    NumberKept::Nearest(v) => {
                        assert!(exact_in_f64(bytes), "{text}");
                        assert_eq!(Some(v), nearest(bytes), "{text}");
                    }
                    NumberKept::Lost => assert!(!exact_in_f64(bytes), "{text}"),
                }
            }
        }
    }

    #[test]
    fn canonical_text_keeps_every_digit_in_javascripts_layout() {
        for (token, want) in [
            ("0", "0"),
            ("-0", "0"),
            ("-0.000e5", "0"),
            ("0e99999999999999999999999", "0"),
            ("1.50", "1.5"),
            ("1E2", "100"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            ("123e-9", "1.23e-7"),
            ("18446744073709551616", "18446744073709551616"),
            ("-9223372036854775809", "-9223372036854775809"),
            ("100000000000000000000", "100000000000000000000"),
            ("999999999999999999999", "999999999999999999999"),
            ("1000000000000000000000", "1e+21"),
            ("1234567890123456789012", "1.234567890123456789012e+21"),
            (
                "0.1000000000000000055511151231257827",
                "0.1000000000000000055511151231257827",
            ),
            ("1e400", "1e+400"),
            ("-1E+400", "-1e+400"),
            ("-1e-400", "-1e-400"),
            ("15e-401", "1.5e-400"),
            ("0.00015e-396", "1.5e-400"),
            (
                "123456789012345678901234567890",
                "1.2345678901234567890123456789e+29",
            ),
        ] {
            assert_eq!(
                canonical(token.as_bytes()).as_deref(),
                Some(want),
                "{token}"
            );
        }
        for refused in [
            "01",
            "1.",
            "-",
            "1e",
            "+1",
            "1e99999999999999999999",
            "1e1099511627776",
        ] {
            assert_eq!(canonical(refused.as_bytes()), None, "{refused}");
        }
    }

    /// Where a token keeps its value through `f64`, its canonical text is what this crate
    /// writes for that `f64`: the two paths never disagree on the same number.
    #[test]
    fn canonical_text_agrees_with_the_f64_writer() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let v = f64::from_bits(crate::test_rng::next(&mut state));
            if !v.is_finite() {
                continue;
            }
            let mut written = Vec::new();
            crate::canonical::write_f64(&mut written, v);
            let mut buf = zmij::Buffer::new();
            let shortest = buf.format_finite(v);
            assert!(exact_in_f64(shortest.as_bytes()), "{shortest}");
            assert_eq!(
                canonical(shortest.as_bytes()).unwrap().as_bytes(),
                written,
                "{shortest}"
            );
        }
    }
}
