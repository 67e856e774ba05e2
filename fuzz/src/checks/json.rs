//! The JSON readers: `toon::json::from_slice` (every float its token's nearest `f64`),
//! `Recording::from_json_slice` (every number exact), and the token functions
//! (`canonical_number`, `inexact_numbers`, `string_end`, `number_end`).
//!
//! `from_slice` accepts what serde_json accepts, with the same error position and the same
//! value up to a few units in the last place of a float (and floats serde_json finds out of
//! range whose nearest `f64` is finite); each of its numbers is what
//! Rust's own (correctly rounded) `str::parse` makes of its token; its value goes through
//! JSON and TOON text unchanged. `from_json_slice` accepts the same texts, and numbers
//! beyond `f64` besides, and encodes to the same TOON where no number is inexact (a repeated
//! key kept once, at its first place, with its last value, as `JSON.parse` keeps it).

use serde::de::IgnoredAny;
use toon::{Number, Recording, Value};

/// Checks the readers on one input (the whole input is the text: no options byte).
pub fn check(data: &[u8]) {
    let ours = toon::json::from_slice::<Value>(data);
    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match (&ours, &theirs) {
        (Ok(value), Ok(json)) => {
            assert!(
                close(&serde_json::Value::from(value.clone()), json),
                "{value:?} is not serde_json's {json:?}"
            );
            let text = std::str::from_utf8(data).expect("JSON is UTF-8");
            numbers_are_nearest(text, value);
            goes_through_text(value);
        }
        // serde_json refuses a float beyond `f64` whose nearest `f64` is finite
        // (`1.7976931348623158e+308`): `from_slice` reads it, as `float_roundtrip` does.
        (Ok(value), Err(err)) if out_of_range(err) => {
            let text = std::str::from_utf8(data).expect("JSON is UTF-8");
            numbers_are_nearest(text, value);
            goes_through_text(value);
        }
        // Past such a float, `from_slice` may meet a later error.
        (Err(a), Err(b)) if !out_of_range(b) => assert_eq!(
            (a.line(), a.column(), a.classify()),
            (b.line(), b.column(), b.classify()),
            "errors {a} and {b}"
        ),
        (Err(a), Err(b)) => assert!(
            (a.line(), a.column()) >= (b.line(), b.column()),
            "error {a} before serde_json's {b}"
        ),
        (a, b) => panic!("toon::json says {a:?}, serde_json {b:?}"),
    }
    recording(data, &ours);
    tokens(data, ours.is_ok());
}

/// Numbers equal, floats within a few units in the last place (serde_json without
/// `float_roundtrip` may read one off: two units near `f64::MAX`; `numbers_are_nearest` checks
/// ours exactly), the rest equal.
fn close(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(p), Some(q), _, _) => p == q,
            (_, _, Some(p), Some(q)) => p == q,
            _ => {
                let (p, q) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                p == q || ((p - q) / p).abs() <= 1e-14
            }
        },
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| close(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && close(v1, v2))
        }
        _ => a == b,
    }
}

/// The number tokens of JSON text, in order (strings skipped), and how many keys it has.
fn number_tokens(text: &str) -> (Vec<&str>, usize) {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut keys = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
                let rest = bytes.get(at..).unwrap_or_default();
                keys += usize::from(rest.trim_ascii_start().starts_with(b":"));
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                while at < bytes.len()
                    && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    at += 1;
                }
                out.push(&text[start..at]);
            }
            _ => at += 1,
        }
    }
    (out, keys)
}

/// The value's numbers in order, and how many object entries it has.
fn numbers_in_order(value: &Value, out: &mut Vec<Number>) -> usize {
    match value {
        Value::Number(n) => {
            out.push(*n);
            0
        }
        Value::Array(items) => items.iter().map(|v| numbers_in_order(v, out)).sum(),
        Value::Object(map) => {
            map.len()
                + map
                    .values()
                    .map(|v| numbers_in_order(v, out))
                    .sum::<usize>()
        }
        _ => 0,
    }
}

/// Each number is its token's value: an integer exactly, a float the nearest `f64`, as
/// `str::parse` makes it. (A repeated key drops a value and moves another: then the text has
/// more keys than the value entries, and the check is skipped.)
fn numbers_are_nearest(text: &str, value: &Value) {
    let (tokens, keys) = number_tokens(text);
    let mut numbers = Vec::new();
    if numbers_in_order(value, &mut numbers) != keys {
        return;
    }
    assert_eq!(tokens.len(), numbers.len(), "numbers of {text:?}");
    for (token, number) in tokens.into_iter().zip(numbers) {
        let nearest: f64 = token.parse().expect("a JSON number parses as an f64");
        match token.parse::<i128>() {
            // `-0` is the float -0.0, as serde_json and `JSON.parse` read it.
            Ok(i) if token != "-0" && (i64::try_from(i).is_ok() || u64::try_from(i).is_ok()) => {
                assert_eq!(number.as_i128(), Some(i), "{token} read as {number:?}");
            }
            _ => assert_eq!(
                number.as_f64(),
                Some(nearest),
                "{token} read as {number:?}, not its nearest f64 {nearest:e}"
            ),
        }
    }
}

/// JSON text and TOON text written from the value read back as it.
fn goes_through_text(value: &Value) {
    let json = toon::json::to_string(value).expect("a Value writes as JSON");
    let back: Value = toon::json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert!(
        same(&back, value, true),
        "{json} reads back as {back:?}, not {value:?}"
    );
    // A table's rows take its first row's key order (§9.3): TOON keeps the keys, not
    // every row's order of them, so order aside here.
    let toon_text = toon::to_string(value).expect("a Value encodes");
    let back: Value = toon::from_str(&toon_text).unwrap_or_else(|e| panic!("{e}: {toon_text}"));
    assert!(
        same(&back, value, false),
        "{toon_text} decodes as {back:?}, not {value:?}"
    );
}

/// Equal (objects in the same key order when `ordered`); a float of 2^53 or more is written
/// with integer digits (`531320001666684500`, as JavaScript writes it) and reads back as that
/// integer, the same `f64`.
fn same(a: &Value, b: &Value, ordered: bool) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || ((x.is_f64() || y.is_f64()) && x.as_f64() == y.as_f64())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q, ordered))
        }
        (Value::Object(x), Value::Object(y)) if ordered => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2, ordered))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w, ordered)))
        }
        _ => a == b,
    }
}

/// A number serde_json cannot hold (`1e400`) or whose exponent the exact reader refuses.
fn out_of_range(err: &serde_json::Error) -> bool {
    let message = err.to_string();
    message.starts_with("number out of range") || message.contains("exponent beyond")
}

/// `Recording::from_json_slice` against `from_slice`.
fn recording(data: &[u8], ours: &serde_json::Result<Value>) {
    let exact = Recording::from_json_slice(data);
    match (&exact, ours) {
        (Ok(doc), Ok(value)) => {
            let text = toon::to_string(doc).expect("a recording encodes");
            if toon::json::inexact_numbers(data).is_empty() {
                assert_eq!(
                    text,
                    toon::to_string(value).unwrap(),
                    "the recording encodes otherwise"
                );
            } else {
                toon::from_str::<IgnoredAny>(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            }
        }
        (Ok(doc), Err(err)) => {
            assert!(
                out_of_range(err),
                "recorded {doc:?} from text serde_json refuses: {err}"
            );
            let text = toon::to_string(doc).expect("a recording encodes");
            toon::from_str::<IgnoredAny>(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        }
        (Err(err), Ok(value)) => {
            assert!(out_of_range(err), "no recording ({err}) of {value:?}");
        }
        (Err(a), Err(b)) => {
            if !out_of_range(a) && !out_of_range(b) {
                assert_eq!(
                    (a.line(), a.column()),
                    (b.line(), b.column()),
                    "errors {a} and {b}"
                );
            }
        }
    }
}

/// The token functions on any text: in bounds, and, on JSON, each inexact range a number
/// whose canonical text is itself canonical and the same `f64`.
fn tokens(data: &[u8], is_json: bool) {
    let mut end = 0;
    for range in toon::json::inexact_numbers(data) {
        assert!(end <= range.start && range.start < range.end && range.end <= data.len());
        end = range.end;
        if is_json {
            let token = std::str::from_utf8(&data[range]).unwrap();
            canonical(token);
        }
    }
    for (at, &b) in data.iter().enumerate().take(4096) {
        if b == b'"' {
            let end = toon::json::string_end(data, at + 1);
            assert!(at < end && end <= data.len(), "string_end {end} from {at}");
        }
        if b == b'-' || b.is_ascii_digit() {
            let end = toon::json::number_end(data, at);
            assert!(at < end && end <= data.len(), "number_end {end} from {at}");
        }
    }
    if let Ok(token) = std::str::from_utf8(data) {
        canonical(token);
    }
}

/// `canonical_number`: `Some` for every JSON number (but an exponent of 13 digits or more),
/// a text that is its own canonical form, the same `f64` as the token.
fn canonical(token: &str) {
    let is_number = token.starts_with(['-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
        && token.ends_with(|c: char| c.is_ascii_digit())
        && serde_json::from_str::<IgnoredAny>(token).is_ok();
    let Some(text) = toon::json::canonical_number(token) else {
        let exponent = token.find(['e', 'E']).map_or("", |at| &token[at + 1..]);
        let digits = exponent
            .trim_start_matches(['+', '-'])
            .trim_start_matches('0')
            .len();
        assert!(
            !is_number || digits >= 12,
            "{token} is a JSON number without canonical text"
        );
        return;
    };
    assert!(
        is_number,
        "{token} is not a JSON number, yet canonical {text}"
    );
    assert_eq!(
        toon::json::canonical_number(&text).as_deref(),
        Some(text.as_str()),
        "{token}"
    );
    let (a, b): (f64, f64) = (token.parse().unwrap(), text.parse().unwrap());
    assert!(a == b, "{token} is {a:e}, its canonical {text} is {b:e}");
}
