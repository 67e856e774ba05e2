//! # toon: TOON for Rust
//!
//! [TOON](https://github.com/toon-format/spec) (Token-Oriented Object Notation) is a compact,
//! lossless text encoding of the JSON data model for LLM prompts: indentation instead of
//! braces, minimal quoting, and tables whose field names appear once.
//!
//! This crate is a serde `Serializer`/`Deserializer` pair implementing spec **v4.4** (toon-spec
//! 4.4), with output byte-identical to the reference encoder `@toon-format/toon` 4.4.0.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize, Debug, PartialEq)]
//! struct Item { sku: String, qty: u32, price: f64 }
//!
//! let items = vec![
//!     Item { sku: "A1".into(), qty: 2, price: 9.99 },
//!     Item { sku: "B2".into(), qty: 1, price: 14.5 },
//! ];
//! let text = toon::encode(&items).unwrap();
//! assert_eq!(text, "[2]{sku,qty,price}:\n  A1,2,9.99\n  B2,1,14.5");
//! let back: Vec<Item> = toon::decode(&text).unwrap();
//! assert_eq!(back, items);
//! ```
//!
//! ## Data model mapping (§3)
//! Rust types map as in serde_json: structs are objects in field order, `None` and `()` are
//! `null`, enums are externally tagged (`"Unit"`, `{Variant: content}`), bytes are arrays of
//! numbers, integer/bool map keys become strings, NaN and ±∞ become `null`, `f32` prints its own
//! shortest digits. Integers are exact at any width (`i128`/`u128` included).
//!
//! ## Numbers when decoding (§4)
//! Integer tokens that fit `i64`/`u64` decode exactly; other integers and all fractions and
//! exponents decode as `f64` (nearest value). A token whose value overflows `f64` (`1e999`) is
//! not a number in TOON's grammar as the reference implements it and decodes as a string.
//! A float of magnitude 2^53 or more prints as integer digits (as JavaScript prints it, e.g.
//! `1.8635765633576333e18` → `1863576563357633300`); decoded untyped, those digits are that exact
//! integer, which converts back to the same `f64`.
//!
//! ## Key order
//! TOON objects keep their key order, and so does [`Value`]. Decoding into
//! `serde_json::Value` works too, but serde_json **sorts the keys** unless its
//! `preserve_order` feature is enabled somewhere in your build; decode into [`Value`] (or
//! enable that feature) to keep the document's order.
//!
//! ## Events and validation
//! [`stream`] reads TOON as the reference's events (`StartObject`, `Key`, `Primitive`, …):
//! borrowing from a `&str`, from any reader a line at a time (memory bounded by the longest
//! line), or pushed in pieces as a model writes it. [`validate`] reports every problem of a
//! document at once, each with its line and column, for telling that model what to fix.
//!
//! ```
//! let found = toon::validate("rows[2]{a,b}:\n  1,2,3\n  4");
//! assert_eq!(found.len(), 2); // one per bad row
//! let events = toon::stream::from_str("a: 1").count();
//! assert_eq!(events, 4);
//! ```
//!
//! ## Non-strict decoding
//! [`DecodeOptions::strict`]`(false)` recovers from exactly the five conditions of v4.4 and
//! errors on everything else. Tab policy: in non-strict mode each tab of indentation counts as
//! one level and spaces are floored to whole levels.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]

#[macro_use]
mod macros;
mod canonical;
pub mod de;
mod error;
pub mod json;
mod json_read;
// JSON text as sent: its number tokens and their exact values (`json::inexact_numbers`,
// `Recording`'s and the readers' exact numbers).
mod json_text;
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub mod mcp;
mod options;
pub mod project;
mod quote;
pub mod render;
pub mod ser;
mod stack;
pub mod stream;
mod swar;
pub mod table;
#[cfg(test)]
mod test_rng;
pub mod tokens;
mod validate;
mod value;

pub use de::{
    Deserializer, from_reader, from_reader_with, from_slice, from_slice_with, from_str,
    from_str_with,
};
pub use error::{Category, Error, Result};
pub use options::{DecodeOptions, Delimiter, EncodeOptions, MAX_DEPTH_CEILING};
pub use ser::{
    Serializer, to_string, to_string_with, to_vec, to_vec_with, to_writer, to_writer_with,
};
pub use validate::{Diagnostic, Severity, validate, validate_with};
pub use value::{Index, Map, Number, Recording, RecordingSample, Value, from_value, map, to_value};

/// The README's examples, compiled and run as doctests so they cannot drift from the API.
/// They are written as a reader would paste them (no hidden lines), so they need the features
/// they use: the README's test command (`--all-features`) runs them.
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/proxy.md` (the `toon::mcp` library), run as the README's are.
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../docs/proxy.md")]
pub struct ProxyDocDoctests;

/// Encodes any `Serialize` value as TOON with default options (the same as [`to_string`]).
///
/// ```
/// assert_eq!(toon::encode(&serde_json::json!({"a": 1})).unwrap(), "a: 1");
/// ```
///
/// # Errors
///
/// As [`to_string`].
pub fn encode<T: ?Sized + serde::Serialize>(value: &T) -> Result<String> {
    to_string(value)
}

/// Decodes TOON text with default options (strict; the same as [`from_str`]).
///
/// Into `serde_json::Value`, object keys come out sorted unless serde_json's `preserve_order`
/// feature is on; [`Value`] keeps TOON's order (see [Key order](crate#key-order)).
///
/// ```
/// let v: serde_json::Value = toon::decode("a: 1").unwrap();
/// assert_eq!(v, serde_json::json!({"a": 1}));
/// ```
///
/// # Errors
///
/// As [`from_str`].
pub fn decode<'de, T: serde::Deserialize<'de>>(text: &'de str) -> Result<T> {
    from_str(text)
}
