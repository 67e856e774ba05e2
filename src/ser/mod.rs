//! Serialization: any `Serialize` value to TOON text ([`to_string`], [`to_writer`] and the
//! functions beside them, or [`Serializer`]).
//!
//! Layout needs lookahead: an array is tabular only if every element is a uniform object
//! (§9.3), an object is a keyed table only if every value is (§9.5). Because `Serialize` takes
//! `&self`, the encoder gets that lookahead by serializing a container twice: once to decide
//! its form, keeping only field names, and once more to write it in that form. Arrays whose
//! first elements already show the form are written at once and checked element by element.
//! Nothing else is buffered but one tabular row and the output itself, which is handed to
//! the writer in chunks. A [`Serializer`] driven through serde's trait sees the root's
//! contents only once, so it records them compactly first and lays the recording out.
//!
//! `ARCHITECTURE.md` in the repository names the file behind each of these steps.

mod emit;
pub(crate) mod key;
pub(crate) use key::{key_string, with_key_text};
pub(crate) mod number;
mod probe;
pub(crate) mod tape;

use std::io;

use serde::ser::{self, Serialize};

use crate::error::{Error, Result};
use crate::options::EncodeOptions;
use tape::{Open, Recorder, Tape, TapeValue};

/// A TOON serializer writing to any [`io::Write`], like `serde_json::Serializer`.
///
/// Prefer [`to_writer`] and friends: they can serialize containers twice and so stream every
/// value. A `Serializer` driven through serde's `Serializer` trait is handed the root's
/// contents only once, so it records the root value compactly before laying it out.
///
/// ```
/// use serde::Serialize;
/// #[derive(Serialize)]
/// struct User { id: u32, name: &'static str }
///
/// let mut out = Vec::new();
/// let mut ser = toon::Serializer::new(&mut out);
/// vec![User { id: 1, name: "Ada" }, User { id: 2, name: "Bob" }].serialize(&mut ser).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), "[2]{id,name}:\n  1,Ada\n  2,Bob");
/// ```
pub struct Serializer<W> {
    writer: W,
    options: EncodeOptions,
    tape: Tape,
}

impl<W: io::Write> Serializer<W> {
    /// A serializer with default options (comma delimiter, indent 2).
    pub fn new(writer: W) -> Self {
        Self::with_options(writer, &EncodeOptions::default())
    }

    /// A serializer with the given options.
    pub fn with_options(writer: W, options: &EncodeOptions) -> Self {
        Serializer {
            writer,
            options: options.clone(),
            tape: Tape::default(),
        }
    }

    /// Unwraps the writer.
    pub fn into_inner(self) -> W {
        self.writer
    }
}

/// Lays out the recorded root value and writes it.
fn write_recorded<W: io::Write>(
    writer: &mut W,
    options: &EncodeOptions,
    tape: &Tape,
) -> Result<()> {
    to_writer_with(writer, &TapeValue { tape, at: 0 }, options)
}

/// The compound serializer for the root value of a [`Serializer`].
pub struct Compound<'a, W> {
    open: Open<'a>,
    writer: &'a mut W,
    options: &'a EncodeOptions,
}

impl<'a, W: io::Write> Compound<'a, W> {
    fn new(ser: &'a mut Serializer<W>, object: bool, variant: Option<&str>) -> Result<Self> {
        ser.tape = Tape::default();
        let open = Recorder {
            tape: &mut ser.tape,
            left: ser.options.max_depth,
        }
        .open(object, variant)?;
        Ok(Compound {
            open,
            writer: &mut ser.writer,
            options: &ser.options,
        })
    }

    fn end(self) -> Result<()> {
        let tape = self.open.finish()?;
        write_recorded(self.writer, self.options, tape)
    }
}

macro_rules! direct {
    ($($name:ident($ty:ty)),*) => {$(
        fn $name(self, v: $ty) -> Result<()> {
            to_writer_with(&mut self.writer, &v, &self.options)
        }
    )*};
}

impl<'a, W: io::Write> ser::Serializer for &'a mut Serializer<W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, W>;
    type SerializeTuple = Compound<'a, W>;
    type SerializeTupleStruct = Compound<'a, W>;
    type SerializeTupleVariant = Compound<'a, W>;
    type SerializeMap = Compound<'a, W>;
    type SerializeStruct = Compound<'a, W>;
    type SerializeStructVariant = Compound<'a, W>;

    direct!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        // serde_json's model: bytes are an array of numbers, as `[u8]` serializes.
        serialize_bytes(&[u8])
    );

    fn serialize_none(self) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_unit(self) -> Result<()> {
        to_writer_with(&mut self.writer, &(), &self.options)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        to_writer_with(&mut self.writer, variant, &self.options)
    }

    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        to_writer_with(&mut self.writer, value, &self.options)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if name == number::NUMBER {
            return to_writer_with(&mut self.writer, &number::ExactNumber(value), &self.options);
        }
        to_writer_with(&mut self.writer, value, &self.options)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut object = Compound::new(self, true, None)?;
        ser::SerializeStruct::serialize_field(&mut object, variant, value)?;
        object.end()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a, W>> {
        Compound::new(self, false, None)
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a, W>> {
        Compound::new(self, false, None)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, W>> {
        Compound::new(self, false, None)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, W>> {
        Compound::new(self, false, Some(variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a, W>> {
        Compound::new(self, true, None)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, W>> {
        Compound::new(self, true, None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, W>> {
        Compound::new(self, true, Some(variant))
    }
}

elements! {
    impl[W: io::Write] for Compound<'_, W> {
        Ok = (), Error = Error;
        element(this, value) => this.open.element(value);
        end(this) => Compound::end(this);
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
}

impl<W: io::Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        ser::SerializeMap::serialize_key(&mut self.open, key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.open.element(value)
    }
    fn end(self) -> Result<()> {
        Compound::end(self)
    }
}

fields! {
    impl[W: io::Write] for Compound<'_, W> {
        Ok = (), Error = Error;
        field(this, key, value) => ser::SerializeStruct::serialize_field(&mut this.open, key, value);
        end(this) => Compound::end(this);
    }
}

/// Serializes `value` as TOON into `writer` with default options.
///
/// ```
/// let mut out = Vec::new();
/// toon::to_writer(&mut out, &serde_json::json!({"id": 1, "tags": ["a", "b"]})).unwrap();
/// assert_eq!(out, b"id: 1\ntags[2]: a,b");
/// ```
///
/// # Errors
///
/// The writer's I/O error, or what `value`'s `Serialize` implementation reports (a map key
/// that is not a string, number or boolean, a custom error).
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(writer: W, value: &T) -> Result<()> {
    to_writer_with(writer, value, &EncodeOptions::default())
}

/// Serializes `value` as TOON into `writer` with `options`.
///
/// ```
/// let opts = toon::EncodeOptions::new().delimiter(toon::Delimiter::Tab);
/// let mut out = Vec::new();
/// toon::to_writer_with(&mut out, &[1, 2, 3], &opts).unwrap();
/// assert_eq!(out, b"[3\t]: 1\t2\t3");
/// ```
///
/// # Errors
///
/// As [`to_writer`].
pub fn to_writer_with<W: io::Write, T: ?Sized + Serialize>(
    mut writer: W,
    value: &T,
    options: &EncodeOptions,
) -> Result<()> {
    let mut out = emit::Emitter::to_writer(&mut writer, options);
    emit::document(&mut out, value)?;
    out.finish().map(drop)
}

/// Serializes `value` as TOON bytes with default options.
///
/// ```
/// assert_eq!(toon::to_vec(&[1, 2]).unwrap(), b"[2]: 1,2");
/// ```
///
/// # Errors
///
/// What `value`'s `Serialize` implementation reports (a map key that is not a string, number
/// or boolean, a custom error).
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> Result<Vec<u8>> {
    to_vec_with(value, &EncodeOptions::default())
}

/// Serializes `value` as TOON bytes with `options`.
///
/// ```
/// let opts = toon::EncodeOptions::new().indent_size(4);
/// let out = toon::to_vec_with(&serde_json::json!({"a": {"b": 1}}), &opts).unwrap();
/// assert_eq!(out, b"a:\n    b: 1");
/// ```
///
/// # Errors
///
/// As [`to_vec`].
pub fn to_vec_with<T: ?Sized + Serialize>(value: &T, options: &EncodeOptions) -> Result<Vec<u8>> {
    let mut out = emit::Emitter::to_vec(options);
    emit::document(&mut out, value)?;
    out.finish()
}

/// Serializes `value` as a TOON string with default options.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Item { sku: &'static str, qty: u32 }
/// let items = vec![Item { sku: "A1", qty: 2 }, Item { sku: "B2", qty: 1 }];
/// assert_eq!(toon::to_string(&items).unwrap(), "[2]{sku,qty}:\n  A1,2\n  B2,1");
/// ```
///
/// # Errors
///
/// As [`to_vec`].
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> Result<String> {
    to_string_with(value, &EncodeOptions::default())
}

/// Serializes `value` as a TOON string with `options`.
///
/// ```
/// let opts = toon::EncodeOptions::new().delimiter(toon::Delimiter::Pipe);
/// assert_eq!(toon::to_string_with(&["a,b", "c"], &opts).unwrap(), "[2|]: a,b|c");
/// ```
///
/// # Errors
///
/// As [`to_vec`].
pub fn to_string_with<T: ?Sized + Serialize>(value: &T, options: &EncodeOptions) -> Result<String> {
    let bytes = to_vec_with(value, options)?;
    // The encoder writes only UTF-8: input `str`s, ASCII syntax and ASCII numbers.
    String::from_utf8(bytes).map_err(|e| Error::data(e.to_string()))
}
