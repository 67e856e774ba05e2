//! JSON text read with serde_json, every float the nearest `f64` to its token
//! ([`crate::json::from_str`]).
//!
//! serde_json reads a float exactly only with its `float_roundtrip` feature, which a library
//! must not turn on: it would change how every other crate of the user's build reads floats.
//! Without it, a float of more than 15 significant digits or with an exponent can come out one
//! unit in the last place off (`0.1 + 0.2`'s `0.30000000000000004` reads right, a twelfth of
//! `i / 3.0` for `i < 200000` do not). So the reader counts the numbers serde_json visits: in
//! JSON a number is always a value, so the n-th number visited is the n-th number token of the
//! text ([`json_text::next_number`]), and a float whose token is not one serde_json reads
//! exactly ([`json_text::read_exactly`]) is visited as Rust's own (correctly rounded) reading
//! of that token instead. The tokens are scanned for only from the first float on; a document
//! without floats costs a count per number.
//!
//! Every value goes through the wrappers below, so that every number is counted: an ignored
//! value is read as any value (serde_json would skip it unvisited), and an enum's content is
//! wrapped too. Only a `RawValue` hides its numbers: after one, floats are left as serde_json
//! read them, never corrected from the wrong token.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, Visitor};

use crate::json_text;

/// serde_json's private newtype name of `RawValue`.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// [`crate::json::from_str`].
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let floats = NumberScan::new(text.as_bytes(), Vec::new());
    match parse(serde_json::Deserializer::from_str(text), &floats) {
        Err(e) if out_of_range(&e) => again(text.as_bytes(), e),
        read => read,
    }
}

/// [`crate::json::from_slice`].
pub(crate) fn from_slice<T: DeserializeOwned>(text: &[u8]) -> serde_json::Result<T> {
    let floats = NumberScan::new(text, Vec::new());
    match parse(serde_json::Deserializer::from_slice(text), &floats) {
        Err(e) if out_of_range(&e) => again(text, e),
        read => read,
    }
}

/// Whether serde_json refused a number as beyond `f64`.
fn out_of_range(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("number out of range")
}

/// A text that serde_json refused only because it read a float beyond `f64` whose nearest
/// `f64` is finite (`1.7976931348623158e308`, which `float_roundtrip` reads): read again with
/// such floats replaced by placeholders of the same length, visited as their nearest `f64`.
/// `refused`, when no float is.
fn again<T: DeserializeOwned>(text: &[u8], refused: serde_json::Error) -> serde_json::Result<T> {
    let (copy, due) = finite_placeholders(text);
    if due.is_empty() {
        return Err(refused);
    }
    parse(
        serde_json::Deserializer::from_slice(&copy),
        &NumberScan::new(text, due),
    )
}

fn parse<'de, R: serde_json::de::Read<'de>, T: de::Deserialize<'de>>(
    mut de: serde_json::Deserializer<R>,
    floats: &NumberScan<'_>,
) -> serde_json::Result<T> {
    let value = T::deserialize(Counted(&mut de, floats))?;
    de.end()?;
    Ok(value)
}

/// `text` with every float token whose nearest `f64` is finite, and that serde_json does not
/// read exactly, replaced by `0` and spaces; with (index of the number, its nearest `f64`).
/// Integers serde_json reads as `u64` or `i64` stay.
fn finite_placeholders(text: &[u8]) -> (Vec<u8>, Vec<(usize, f64)>) {
    let mut copy = text.to_vec();
    let mut due = Vec::new();
    let mut at = 0;
    let mut n = 0;
    while let Some(range) = json_text::next_number(text, &mut at) {
        let token = &text[range.clone()];
        if !json_text::read_exactly(token)
            && !json_text::reads_as_integer(token)
            && let Some(value) = json_text::nearest(token)
        {
            copy[range.start] = b'0';
            copy[range.start + 1..range.end].fill(b' ');
            due.push((n, value));
        }
        n += 1;
    }
    (copy, due)
}

/// The numbers visited so far, and where the scan for their tokens stands.
struct NumberScan<'t> {
    text: &'t [u8],
    /// Numbers visited.
    seen: Cell<usize>,
    /// Tokens found, and the byte after the last one.
    found: Cell<usize>,
    at: Cell<usize>,
    /// Numbers whose tokens were replaced by placeholders: (index, nearest `f64`), in order.
    due: Vec<(usize, f64)>,
    next_due: Cell<usize>,
    /// A `RawValue` hid its numbers: the count no longer matches the tokens.
    lost: Cell<bool>,
}

impl<'t> NumberScan<'t> {
    fn new(text: &'t [u8], due: Vec<(usize, f64)>) -> Self {
        NumberScan {
            text,
            seen: Cell::new(0),
            found: Cell::new(0),
            at: Cell::new(0),
            due,
            next_due: Cell::new(0),
            lost: Cell::new(false),
        }
    }

    /// Counts a number visited; its nearest `f64` when its token was replaced.
    fn count(&self) -> Option<f64> {
        let n = self.seen.get();
        self.seen.set(n + 1);
        match self.due.get(self.next_due.get()) {
            Some(&(at, value)) if at == n => {
                self.next_due.set(self.next_due.get() + 1);
                Some(value)
            }
            _ => None,
        }
    }

    /// A float visited as `v`: the nearest `f64` to its token.
    fn float(&self, v: f64) -> f64 {
        let n = self.seen.get();
        if let Some(value) = self.count() {
            return value;
        }
        if self.lost.get() {
            return v;
        }
        // Scan on to the n-th token (those of integers since the last float are passed here).
        let mut at = self.at.get();
        let mut token = None;
        for _ in self.found.get()..=n {
            token = json_text::next_number(self.text, &mut at);
        }
        self.found.set(n + 1);
        self.at.set(at);
        match token.map(|range| &self.text[range]) {
            Some(token) if !json_text::read_exactly(token) => {
                json_text::nearest(token).unwrap_or(v)
            }
            _ => v,
        }
    }
}

/// A serde_json deserializer (or one of its parts) whose numbers are counted.
struct Counted<'f, 't, D>(D, &'f NumberScan<'t>);

/// A visitor (or seed) whose numbers are counted, and whose floats are corrected.
struct Corrected<'f, 't, V>(V, &'f NumberScan<'t>);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
                self.0.$method($($arg,)* Corrected(visitor, self.1))
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Counted<'_, '_, D> {
    type Error = D::Error;

    forward! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        if name == RAW_VALUE {
            self.1.lost.set(true);
        }
        self.0
            .deserialize_newtype_struct(name, Corrected(visitor, self.1))
    }

    /// Read as any value: serde_json would skip it without visiting its numbers.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(Corrected(visitor, self.1))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

impl<'de, V: DeserializeSeed<'de>> DeserializeSeed<'de> for Corrected<'_, '_, V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.deserialize(Counted(d, self.1))
    }
}

impl<'de, V: Visitor<'de>> Corrected<'_, '_, V> {
    /// An integer visited: counted, and visited as it came unless its token was replaced by
    /// a placeholder (then as the float it stands for).
    fn integer<E: de::Error>(
        self,
        visit: impl FnOnce(V) -> Result<V::Value, E>,
    ) -> Result<V::Value, E> {
        match self.1.count() {
            Some(due) => self.0.visit_f64(due),
            None => visit(self.0),
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Corrected<'_, '_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.0.visit_bool(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.integer(|inner| inner.visit_i64(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.integer(|inner| inner.visit_u64(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        self.integer(|inner| inner.visit_i128(v))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        self.integer(|inner| inner.visit_u128(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.0.visit_f64(self.1.float(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<V::Value, E> {
        self.0.visit_char(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_str(v)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.visit_borrowed_str(v)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_string(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.0.visit_bytes(v)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.0.visit_borrowed_bytes(v)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.0.visit_byte_buf(v)
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Counted(d, self.1))
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Counted(d, self.1))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Counted(seq, self.1))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Counted(map, self.1))
    }
    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Counted(data, self.1))
    }
}

// serde_json's sequences and maps give no size hint: the wrappers give none either.

impl<'de, A: de::SeqAccess<'de>> de::SeqAccess<'de> for Counted<'_, '_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Corrected(seed, self.1))
    }
}

/// Values are counted; keys are strings in JSON and pass as they are (a key read as a number
/// is no number token).
impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for Counted<'_, '_, A> {
    type Error = A::Error;

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Corrected(seed, self.1))
    }

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }
}

impl<'f, 't, 'de, A: de::EnumAccess<'de>> de::EnumAccess<'de> for Counted<'f, 't, A> {
    type Error = A::Error;
    type Variant = Counted<'f, 't, A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Self::Variant), A::Error> {
        // The variant's name is a string (or a key): it passes as it is.
        let (value, variant) = self.0.variant_seed(seed)?;
        Ok((value, Counted(variant, self.1)))
    }
}

impl<'de, A: de::VariantAccess<'de>> de::VariantAccess<'de> for Counted<'_, '_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Corrected(seed, self.1))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Corrected(visitor, self.1))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Corrected(visitor, self.1))
    }
}
