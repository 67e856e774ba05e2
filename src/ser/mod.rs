//! Serialization: any `Serialize` value to TOON text.
//!
//! The root object is streamed field by field. Values whose layout needs lookahead (arrays, for
//! §9.3 tabular detection; objects, for §9.5 keyed detection) are recorded into a compact
//! [`tape::Tape`] one root field at a time, laid out, written, and the tape reused. Output is
//! handed to the writer in chunks, so a large document never sits in memory twice.

mod key;
mod layout;
mod table;
mod tape;

use std::io;

use serde::ser::{self, Serialize};

use crate::error::{Error, Result};
use crate::options::EncodeOptions;
use key::KeySerializer;
use layout::Lines;
use tape::{Open, Recorder, Tape};

/// Output is passed to the writer whenever this much has accumulated.
const CHUNK: usize = 64 * 1024;

/// A TOON serializer writing to any [`io::Write`], like `serde_json::Serializer`.
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
    lines: Lines,
    tape: Tape,
    key: String,
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
            lines: Lines::new(options, Vec::new()),
            tape: Tape::default(),
            key: String::new(),
        }
    }

    /// Unwraps the writer.
    pub fn into_inner(self) -> W {
        self.writer
    }

    /// Lays out a whole recorded value as the document and writes it.
    fn root_recorded(&mut self) -> Result<()> {
        self.lines.root(&self.tape, 0);
        self.tape.clear();
        drain(&mut self.lines, &mut self.writer, true)
    }

    fn record_root<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.tape.clear();
        self.tape.record(value)?;
        self.root_recorded()
    }
}

/// Hands buffered output to the writer when it is large, or always when `all`.
fn drain<W: io::Write>(lines: &mut Lines, writer: &mut W, all: bool) -> Result<()> {
    if all || lines.out.len() >= CHUNK {
        writer.write_all(&lines.out).map_err(Error::io)?;
        lines.out.clear();
    }
    if all {
        writer.flush().map_err(Error::io)?;
    }
    Ok(())
}

/// The compound serializer for the root value (returned by [`Serializer`]'s
/// `serialize_seq`, `serialize_map`, `serialize_struct`, …).
pub struct Compound<'a, W>(State<'a, W>);

enum State<'a, W> {
    /// An array or enum variant, recorded whole and laid out at `end`.
    Recorded {
        open: Open<'a>,
        lines: &'a mut Lines,
        writer: &'a mut W,
    },
    /// The root object, streamed (see [`RootObject`]).
    Object(RootObject<'a, W>),
}

/// Streams the root object's fields. While every value so far is a non-empty object the fields
/// are held back, because the whole root may still take the keyless keyed form (§9.5); the
/// first other value settles it and everything from then on is written as it comes.
struct RootObject<'a, W> {
    tape: &'a mut Tape,
    lines: &'a mut Lines,
    writer: &'a mut W,
    key: &'a mut String,
    /// `Some((object start, entries))` while fields are held back.
    held: Option<(usize, u32)>,
}

impl<W: io::Write> RootObject<'_, W> {
    fn field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match &mut self.held {
            Some((at, count)) => {
                self.tape.push_key(self.key)?;
                let v = self.tape.record(value)?;
                *count += 1;
                if self.tape.is_nonempty_object(v) {
                    return Ok(());
                }
                let (at, count) = (*at, *count);
                self.tape.close(at, count)?;
                self.lines.fields(self.tape, at, 0);
                self.held = None;
            }
            None => {
                let v = self.tape.record(value)?;
                self.lines.field(self.tape, self.key, v, 0);
            }
        }
        self.tape.clear();
        drain(self.lines, self.writer, false)
    }

    fn end(self) -> Result<()> {
        if let Some((at, count)) = self.held {
            self.tape.close(at, count)?;
            self.lines.object_root(self.tape, at);
            self.tape.clear();
        }
        drain(self.lines, self.writer, true)
    }
}

impl<'a, W: io::Write> State<'a, W> {
    fn recorded(ser: &'a mut Serializer<W>, object: bool, variant: Option<&str>) -> Result<Self> {
        ser.tape.clear();
        let open = Recorder {
            tape: &mut ser.tape,
        }
        .open(object, variant)?;
        Ok(State::Recorded {
            open,
            lines: &mut ser.lines,
            writer: &mut ser.writer,
        })
    }

    fn object(ser: &'a mut Serializer<W>) -> Self {
        ser.tape.clear();
        let at = ser.tape.open(true);
        State::Object(RootObject {
            tape: &mut ser.tape,
            lines: &mut ser.lines,
            writer: &mut ser.writer,
            key: &mut ser.key,
            held: Some((at, 0)),
        })
    }

    fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self {
            State::Recorded { open, .. } => open.element(value),
            State::Object(_) => Err(Error::data("a value without a key inside an object")),
        }
    }

    fn set_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        match self {
            State::Recorded { open, .. } => ser::SerializeMap::serialize_key(open, key),
            State::Object(root) => {
                root.key.clear();
                key.serialize(KeySerializer { out: root.key }).map(drop)
            }
        }
    }

    fn static_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<()> {
        match self {
            State::Recorded { open, .. } => ser::SerializeStruct::serialize_field(open, key, value),
            State::Object(root) => {
                root.key.clear();
                root.key.push_str(key);
                root.field(value)
            }
        }
    }

    fn value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        match self {
            State::Recorded { open, .. } => open.element(value),
            State::Object(root) => root.field(value),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            State::Recorded {
                open,
                lines,
                writer,
            } => {
                let tape = open.finish()?;
                lines.root(tape, 0);
                tape.clear();
                drain(lines, writer, true)
            }
            State::Object(root) => root.end(),
        }
    }
}

macro_rules! record_scalar {
    ($($name:ident($ty:ty)),*) => {$(
        fn $name(self, v: $ty) -> Result<()> {
            self.record_root(&v)
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

    record_scalar!(
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
        serialize_str(&str)
    );

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.tape.clear();
        Recorder {
            tape: &mut self.tape,
        }
        .serialize_bytes_into(v)?;
        self.root_recorded()
    }
    fn serialize_none(self) -> Result<()> {
        self.record_root(&())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.record_root(&())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.record_root(&())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.record_root(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let mut object = State::object(self);
        object.static_field(variant, value)?;
        object.finish()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a, W>> {
        State::recorded(self, false, None).map(Compound)
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a, W>> {
        State::recorded(self, false, None).map(Compound)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, W>> {
        State::recorded(self, false, None).map(Compound)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, W>> {
        State::recorded(self, false, Some(variant)).map(Compound)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a, W>> {
        Ok(Compound(State::object(self)))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a, W>> {
        Ok(Compound(State::object(self)))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a, W>> {
        State::recorded(self, true, Some(variant)).map(Compound)
    }
}

impl<W: io::Write> ser::SerializeSeq for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.element(value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeTuple for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.element(value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeTupleStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.element(value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeTupleVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.element(value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeMap for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.0.set_key(key)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.0.value(value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeStruct for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.0.static_field(key, value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

impl<W: io::Write> ser::SerializeStructVariant for Compound<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.0.static_field(key, value)
    }
    fn end(self) -> Result<()> {
        self.0.finish()
    }
}

/// Serializes `value` as TOON into `writer` with default options.
///
/// ```
/// let mut out = Vec::new();
/// toon::to_writer(&mut out, &serde_json::json!({"id": 1, "tags": ["a", "b"]})).unwrap();
/// assert_eq!(out, b"id: 1\ntags[2]: a,b");
/// ```
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
pub fn to_writer_with<W: io::Write, T: ?Sized + Serialize>(
    writer: W,
    value: &T,
    options: &EncodeOptions,
) -> Result<()> {
    let mut ser = Serializer::with_options(writer, options);
    value.serialize(&mut ser)
}

/// Serializes `value` as TOON bytes with default options.
///
/// ```
/// assert_eq!(toon::to_vec(&[1, 2]).unwrap(), b"[2]: 1,2");
/// ```
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
pub fn to_vec_with<T: ?Sized + Serialize>(value: &T, options: &EncodeOptions) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(128);
    to_writer_with(&mut out, value, options)?;
    Ok(out)
}

/// Serializes `value` as a TOON string with default options.
///
/// ```
/// #[derive(serde::Serialize)]
/// struct Item { sku: &'static str, qty: u32 }
/// let items = vec![Item { sku: "A1", qty: 2 }, Item { sku: "B2", qty: 1 }];
/// assert_eq!(toon::to_string(&items).unwrap(), "[2]{sku,qty}:\n  A1,2\n  B2,1");
/// ```
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> Result<String> {
    to_string_with(value, &EncodeOptions::default())
}

/// Serializes `value` as a TOON string with `options`.
///
/// ```
/// let opts = toon::EncodeOptions::new().delimiter(toon::Delimiter::Pipe);
/// assert_eq!(toon::to_string_with(&["a,b", "c"], &opts).unwrap(), "[2|]: a,b|c");
/// ```
pub fn to_string_with<T: ?Sized + Serialize>(value: &T, options: &EncodeOptions) -> Result<String> {
    let bytes = to_vec_with(value, options)?;
    // The encoder writes only UTF-8: input `str`s, ASCII syntax and ASCII numbers.
    String::from_utf8(bytes).map_err(|e| Error::data(e.to_string()))
}
