//! JSON text as JavaScript's `JSON.stringify` writes it, for output that must match the
//! official TOON tools byte for byte.
//!
//! serde_json writes the `f64` one as `1.0` and one millionth as `1e-6`; JavaScript writes `1`
//! and `0.000001` (`Number::toString`, the same text TOON uses for numbers, §2). [`Formatter`]
//! is a serde_json [`Formatter`](serde_json::ser::Formatter) with JavaScript's number text and
//! `JSON.stringify(value, null, indent)`'s layout. Integers stay exact at any width: an `i64` or
//! `u64` beyond 2^53 keeps its digits, where JavaScript would round it to the nearest double.
//!
//! ```
//! let value = toon::toon!({"a": 1.0, "b": [0.000001, 1e21], "c": {}});
//! let text = toon::json::to_string_pretty(&value, 2).unwrap();
//! assert_eq!(text, "{\n  \"a\": 1,\n  \"b\": [\n    0.000001,\n    1e+21\n  ],\n  \"c\": {}\n}");
//! assert_eq!(toon::json::to_string_pretty(&value, 0).unwrap(), r#"{"a":1,"b":[0.000001,1e+21],"c":{}}"#);
//! ```
//!
//! [`transcode`] turns TOON into that JSON text directly, as it reads, without a tree.

use std::fmt;
use std::io;

use serde::Serialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::ser::{CompactFormatter, Formatter as _, PrettyFormatter};

use crate::canonical;
use crate::de::exact::EXACT_NUMBERS;
use crate::error::{Error, Result};

/// A serde_json formatter that writes numbers as JavaScript does and lays out objects and
/// arrays like `JSON.stringify(value, null, indent)` (indent 0: no whitespace at all).
///
/// ```
/// use serde::Serialize;
///
/// let mut out = Vec::new();
/// let mut ser = serde_json::Serializer::with_formatter(&mut out, toon::json::Formatter::new(4));
/// vec![1.5f64, 2.0].serialize(&mut ser).unwrap();
/// assert_eq!(out, b"[\n    1.5,\n    2\n]");
/// ```
#[derive(Clone, Debug)]
pub struct Formatter {
    layout: Layout,
}

#[derive(Clone, Debug)]
enum Layout {
    Compact(CompactFormatter),
    Pretty(PrettyFormatter<'static>),
}

impl Formatter {
    /// `indent` spaces per level (at most 32); 0 writes compact JSON.
    #[must_use]
    pub fn new(indent: usize) -> Self {
        const SPACES: &[u8; 32] = &[b' '; 32];
        let layout = match indent {
            0 => Layout::Compact(CompactFormatter),
            n => Layout::Pretty(PrettyFormatter::with_indent(&SPACES[..n.min(SPACES.len())])),
        };
        Formatter { layout }
    }
}

impl Default for Formatter {
    /// Two spaces, as the official CLI prints by default.
    fn default() -> Self {
        Formatter::new(2)
    }
}

/// Forwards the layout hooks to serde_json's own compact or pretty formatter.
macro_rules! layout {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        #[inline]
        fn $method<W: ?Sized + io::Write>(&mut self, writer: &mut W $(, $arg: $ty)*) -> io::Result<()> {
            match &mut self.layout {
                Layout::Compact(f) => f.$method(writer $(, $arg)*),
                Layout::Pretty(f) => f.$method(writer $(, $arg)*),
            }
        }
    )*};
}

impl serde_json::ser::Formatter for Formatter {
    layout!(
        begin_array(),
        end_array(),
        begin_array_value(first: bool),
        end_array_value(),
        begin_object(),
        end_object(),
        begin_object_key(first: bool),
        end_object_key(),
        begin_object_value(),
        end_object_value(),
    );

    // §2: JavaScript's `Number::toString` (NaN and ±∞, which JSON cannot hold, become null).
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        let mut text = Vec::with_capacity(24);
        canonical::write_f64(&mut text, value);
        writer.write_all(&text)
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        let mut text = Vec::with_capacity(16);
        canonical::write_f32(&mut text, value);
        writer.write_all(&text)
    }
}

/// Writes `value` as JSON in JavaScript's text, `indent` spaces per level (0: compact).
///
/// ```
/// let mut out = Vec::new();
/// toon::json::to_writer_pretty(&mut out, &toon::toon!([1.0, 2.5]), 0).unwrap();
/// assert_eq!(out, b"[1,2.5]");
/// ```
///
/// # Errors
///
/// The writer's I/O errors, and the errors `value`'s `Serialize` implementation reports (a map
/// whose keys are not strings, for instance).
pub fn to_writer_pretty<W: io::Write, T: ?Sized + Serialize>(
    writer: W,
    value: &T,
    indent: usize,
) -> serde_json::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(writer, Formatter::new(indent));
    value.serialize(&mut ser)
}

/// `value` as compact JSON in JavaScript's text (`JSON.stringify(value)`): the one JSON
/// number style the crate writes (`1`, `-0` → `0`, `1e-7`), where serde_json would write
/// `1.0`, `-0.0` and `1e-7`.
///
/// ```
/// assert_eq!(toon::json::to_string(&toon::toon!({"a": [1.0, -0.0, 0.000001]})).unwrap(), r#"{"a":[1,0,0.000001]}"#);
/// ```
///
/// # Errors
///
/// The errors `value`'s `Serialize` implementation reports.
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
    to_string_pretty(value, 0)
}

/// [`to_writer_pretty`] into a `String`.
///
/// ```
/// assert_eq!(toon::json::to_string_pretty(&1e-7, 2).unwrap(), "1e-7");
/// ```
///
/// # Errors
///
/// The errors `value`'s `Serialize` implementation reports.
pub fn to_string_pretty<T: ?Sized + Serialize>(
    value: &T,
    indent: usize,
) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer_pretty(&mut out, value, indent)?;
    // serde_json writes only UTF-8 (its strings are `str`, its escapes ASCII).
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// The byte ranges of the number tokens of JSON `text` whose exact decimal value a `u64`,
/// `i64` or `f64` cannot hold (`18446744073709551616`, `0.1000000000000000055511151231257827`,
/// `1e400`): what serde_json (and [`Value`](crate::Value)) would round. Empty for most
/// documents; [`Recording::from_json_slice`](crate::Recording::from_json_slice) keeps them
/// exact.
///
/// ```
/// let text = br#"{"a": 1, "b": 18446744073709551616, "c": 0.5}"#;
/// let ranges = toon::json::inexact_numbers(text);
/// assert_eq!(ranges.len(), 1);
/// assert_eq!(&text[ranges[0].clone()], b"18446744073709551616");
/// ```
#[must_use]
pub fn inexact_numbers(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    crate::json_text::numbers(text)
        .filter(|r| !crate::json_text::exact_in_f64(&text[r.clone()]))
        .collect()
}

/// The index just past the closing quote of the JSON string whose content starts at `at` (just
/// after its opening quote), escapes skipped; `text.len()` when it does not close. For well-formed
/// JSON text; on other text it stays in bounds, but its answer means nothing.
///
/// ```
/// let text = br#"{"a\"b": 1}"#;
/// assert_eq!(toon::json::string_end(text, 2), 7);
/// assert_eq!(&text[7..], b": 1}");
/// ```
#[must_use]
pub fn string_end(text: &[u8], at: usize) -> usize {
    crate::json_text::string_end(text, at)
}

/// The index just past the JSON number token that starts at `at` (its sign, digits, point and
/// exponent; the token is not checked).
///
/// ```
/// let text = b"[-1.5e3,2]";
/// assert_eq!(toon::json::number_end(text, 1), 7);
/// ```
#[must_use]
pub fn number_end(text: &[u8], at: usize) -> usize {
    crate::json_text::number_end(text, at)
}

/// The exact value of a JSON number token, written as TOON writes numbers (§2 canonical form:
/// no exponent when 1e-6 ≤ |n| < 1e21, else `1.5e+400`, as JavaScript lays numbers out), with
/// every digit of the token kept: no `u64`, `i64` or `f64` in between. Two tokens have the same
/// value exactly when their texts here are equal, so this compares numbers as sent (`1.0` and
/// `1`, `1E2` and `100`, `9007199254740993` and `9007199254740992` apart).
///
/// ```
/// assert_eq!(toon::json::canonical_number("1E2").as_deref(), Some("100"));
/// assert_eq!(toon::json::canonical_number("-0.0").as_deref(), Some("0"));
/// assert_eq!(toon::json::canonical_number("1e400").as_deref(), Some("1e+400"));
/// assert_eq!(
///     toon::json::canonical_number("0.1000000000000000055511151231257827").as_deref(),
///     Some("0.1000000000000000055511151231257827")
/// );
/// assert_eq!(toon::json::canonical_number("01"), None);
/// ```
///
/// `None` when `token` is not a JSON number (RFC 8259 §6: no sign `+`, no leading zeros, no
/// whitespace around it), or its exponent reaches ±2^40.
#[must_use]
pub fn canonical_number(token: &str) -> Option<String> {
    crate::json_text::canonical(token.as_bytes())
}

/// Reads a `T` from JSON text as `serde_json::from_str` does, except that every float is the
/// nearest `f64` to its token, as serde_json reads floats with its `float_roundtrip` feature.
/// This crate does not turn that feature on (it would change how every crate of your build
/// reads floats), and without it serde_json can read a float of more than 15 digits, or with
/// an exponent, one unit in the last place off: `2.9168327507216497e-10` as
/// `2.91683275072165e-10`. Integers are read as serde_json reads them (`u64`, `i64`, else the
/// nearest `f64`).
///
/// ```
/// let floats: Vec<f64> = toon::json::from_str("[2.9168327507216497e-10, 0.1, 7]").unwrap();
/// assert_eq!(floats, [2.9168327507216497e-10, 0.1, 7.0]);
/// let value: toon::Value = toon::json::from_str(r#"{"b": 1, "a": 2.9168327507216497e-10}"#)?;
/// assert_eq!(value.to_string(), "b: 1\na: 2.9168327507216497e-10");
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// # Errors
///
/// serde_json's: text that is not JSON, a number beyond `f64` (`1e400`), a value that does not
/// fit `T`.
pub fn from_str<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    crate::json_read::from_str(text)
}

/// [`from_str`] on bytes, as `serde_json::from_slice`.
///
/// ```
/// let floats: Vec<f64> = toon::json::from_slice(b"[1.7976931348623158e308]").unwrap();
/// assert_eq!(floats, [f64::MAX]);
/// ```
///
/// # Errors
///
/// As [`from_str`], and text that is not UTF-8.
pub fn from_slice<T: serde::de::DeserializeOwned>(text: &[u8]) -> serde_json::Result<T> {
    crate::json_read::from_slice(text)
}

/// Decodes TOON into JSON text as it reads it, with no value in memory: the `toon -d` of the
/// CLI. JSON is written as [`Formatter`] lays it out (`indent` spaces per level, 0 compact);
/// object keys keep their TOON order. The whole document is decoded, trailing content checked
/// ([`Deserializer::end`](crate::Deserializer::end)), and the writer flushed.
///
/// Duplicate keys are errors in strict mode (§14.3). In non-strict mode each one is written as
/// it comes, so the JSON may repeat a key; decode into a [`Value`](crate::Value) for
/// last-write-wins.
///
/// ```
/// let mut de = toon::Deserializer::from_str("users[2]{id,name}:\n  1,Ada\n  2,Bob");
/// let mut out = Vec::new();
/// toon::json::transcode(&mut de, &mut out, 0).unwrap();
/// assert_eq!(out, br#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#);
/// ```
///
/// # Errors
///
/// The decoding error, with its line and column, exactly as [`from_str`](crate::from_str)
/// reports it, or the writer's I/O error ([`Category::Io`](crate::Category::Io)). What was
/// written before the error stays written.
pub fn transcode<W: io::Write>(
    de: &mut crate::Deserializer<'_>,
    mut writer: W,
    indent: usize,
) -> Result<()> {
    let mut json = JsonWriter {
        out: &mut writer,
        format: Formatter::new(indent),
        failed: None,
    };
    // Any value, numbers with more digits than an `f64` keeps copied whole (`de::exact`).
    let decoded = de::Deserializer::deserialize_newtype_struct(&mut *de, EXACT_NUMBERS, &mut json);
    if let Some(io) = json.failed.take() {
        return Err(Error::io(io));
    }
    decoded?;
    de.end()?;
    writer.flush().map_err(Error::io)
}

/// Writes each value it is shown as JSON. An I/O error is kept aside (the deserializer's error
/// type cannot carry it) and reported once decoding unwinds.
struct JsonWriter<'w, W> {
    out: &'w mut W,
    format: Formatter,
    failed: Option<io::Error>,
}

impl<W: io::Write> JsonWriter<'_, W> {
    fn write<E: de::Error>(&mut self, result: io::Result<()>) -> std::result::Result<(), E> {
        result.map_err(|e| {
            let message = e.to_string();
            self.failed = Some(e);
            E::custom(message)
        })
    }

    fn scalar<E: de::Error, T: ?Sized + Serialize>(&mut self, v: &T) -> std::result::Result<(), E> {
        // A scalar's text does not depend on the layout: a compact formatter writes it.
        let mut ser = serde_json::Serializer::with_formatter(&mut *self.out, Formatter::new(0));
        let result = v.serialize(&mut ser).map_err(io::Error::from);
        self.write(result)
    }
}

impl<'de, W: io::Write> DeserializeSeed<'de> for &mut JsonWriter<'_, W> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_newtype_struct(EXACT_NUMBERS, self)
    }
}

impl<'de, W: io::Write> Visitor<'de> for &mut JsonWriter<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any TOON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<(), E> {
        self.scalar(&v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<(), E> {
        self.scalar(&v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<(), E> {
        self.scalar(&v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<(), E> {
        self.scalar(&v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<(), E> {
        self.scalar(v)
    }
    fn visit_unit<E: de::Error>(self) -> std::result::Result<(), E> {
        self.scalar(&())
    }
    fn visit_none<E: de::Error>(self) -> std::result::Result<(), E> {
        self.scalar(&())
    }

    /// A number with more digits than an `f64` keeps, as its §2 canonical text (`de::exact`):
    /// written as it is, a JSON number with all its digits.
    fn visit_newtype_struct<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<(), D::Error> {
        d.deserialize_str(NumberText(self))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        let begun = self.format.begin_array(self.out);
        self.write(begun)?;
        let mut first = true;
        while seq
            .next_element_seed(Element {
                json: &mut *self,
                first,
            })?
            .is_some()
        {
            let ended = self.format.end_array_value(self.out);
            self.write(ended)?;
            first = false;
        }
        let ended = self.format.end_array(self.out);
        self.write(ended)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let begun = self.format.begin_object(self.out);
        self.write(begun)?;
        let mut first = true;
        while map
            .next_key_seed(KeyWriter {
                json: &mut *self,
                first,
            })?
            .is_some()
        {
            map.next_value_seed(&mut *self)?;
            let ended = self.format.end_object_value(self.out);
            self.write(ended)?;
            first = false;
        }
        let ended = self.format.end_object(self.out);
        self.write(ended)
    }
}

/// The text of an exact number, written as it is.
struct NumberText<'j, 'w, W>(&'j mut JsonWriter<'w, W>);

impl<W: io::Write> Visitor<'_> for NumberText<'_, '_, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number's text")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<(), E> {
        let json = self.0;
        let written = json.out.write_all(text.as_bytes());
        json.write(written)
    }
}

/// An array element: its separator is written only once the element is known to exist.
struct Element<'j, 'w, W> {
    json: &'j mut JsonWriter<'w, W>,
    first: bool,
}

impl<'de, W: io::Write> DeserializeSeed<'de> for Element<'_, '_, W> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        let json = self.json;
        let sep = json.format.begin_array_value(json.out, self.first);
        json.write(sep)?;
        d.deserialize_newtype_struct(EXACT_NUMBERS, json)
    }
}

/// An object key, written with the separators around it.
struct KeyWriter<'j, 'w, W> {
    json: &'j mut JsonWriter<'w, W>,
    first: bool,
}

impl<'de, W: io::Write> DeserializeSeed<'de> for KeyWriter<'_, '_, W> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> std::result::Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<W: io::Write> Visitor<'_> for KeyWriter<'_, '_, W> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> std::result::Result<(), E> {
        let json = self.json;
        let written = json
            .format
            .begin_object_key(json.out, self.first)
            .and_then(|()| serde_json::to_writer(&mut *json.out, key).map_err(io::Error::from))
            .and_then(|()| json.format.end_object_key(json.out))
            .and_then(|()| json.format.begin_object_value(json.out));
        json.write(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_javascript_prints_them() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1"),
            (-0.0, "0"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (1e21, "1e+21"),
            (123.456, "123.456"),
            (f64::NAN, "null"),
        ];
        for (v, want) in cases {
            assert_eq!(to_string_pretty(v, 2).unwrap(), *want);
        }
        assert_eq!(to_string_pretty(&0.1f32, 0).unwrap(), "0.1");
        // Integers keep their digits, even past 2^53.
        assert_eq!(
            to_string_pretty(&[u64::MAX], 0).unwrap(),
            "[18446744073709551615]"
        );
    }

    #[test]
    fn transcoded_numbers_keep_every_digit() {
        let toon = "a: 18446744073709551616\nb[3]: 0.1000000000000000055511151231257827,1.5,-1e-400\n\
                    t[1]{x}:\n  1.2345678901234567890123456789e+29\nk[2:]{y}:\n  p: -9223372036854775809\n  \
                    q: 2\nl[1]:\n  - 1234567890123456789012\nbig: 1e+400\nplain: 1.5E3";
        let mut de = crate::Deserializer::from_str(toon);
        let mut out = Vec::new();
        transcode(&mut de, &mut out, 0).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":18446744073709551616,"b":[0.1000000000000000055511151231257827,1.5,-1e-400],"t":[{"x":1.2345678901234567890123456789e+29}],"k":{"p":{"y":-9223372036854775809},"q":{"y":2}},"l":[1.234567890123456789012e+21],"big":"1e+400","plain":1500}"#
        );
        // The root, and a value a typed target reads as ever.
        let mut out = Vec::new();
        transcode(
            &mut crate::Deserializer::from_str("18446744073709551616 "),
            &mut out,
            2,
        )
        .unwrap();
        assert_eq!(out, b"18446744073709551616");
        let v: f64 = crate::from_str("0.1000000000000000055511151231257827").unwrap();
        assert_eq!(v, 0.1);
    }

    #[test]
    fn layout_matches_json_stringify() {
        let v = crate::toon!({"a": [], "b": {}, "c": [1, {"d": null}], "e": "x\u{1f}\"y"});
        assert_eq!(
            to_string_pretty(&v, 2).unwrap(),
            "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    {\n      \"d\": null\n    }\n  ],\n  \"e\": \"x\\u001f\\\"y\"\n}"
        );
        assert_eq!(
            to_string_pretty(&v, 0).unwrap(),
            r#"{"a":[],"b":{},"c":[1,{"d":null}],"e":"x\u001f\"y"}"#
        );
    }
}
