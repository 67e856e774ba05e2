//! A compact recording of one serialized value, for the one path that cannot serialize a value
//! twice: [`crate::Serializer`] used as a serde `Serializer` sees the root's elements once, as
//! serde hands them over. It records them here (one 16-byte event per scalar, container or key,
//! all text in one arena) and then lays the recording out through [`TapeValue`], its `Serialize`
//! view. `to_string`/`to_writer` never record: they probe and emit the value directly.

use serde::ser::{self, Serialize};

use super::key::with_key_text;
use super::number;
use crate::error::{Error, Result};

/// One recorded item. Containers store their length and the index one past their last event,
/// so siblings are found in O(1).
#[derive(Copy, Clone, Debug)]
pub(crate) enum Ev {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    F32(f32),
    /// A string in the arena (start, len).
    Str(u32, u32),
    /// An integer beyond 64 bits, its exact decimal digits in the arena.
    Big(u32, u32),
    /// An exact number (`ser::number`), its §2 canonical text in the arena.
    Num(u32, u32),
    /// An object key in the arena; the value follows.
    Key(u32, u32),
    Arr {
        len: u32,
        end: u32,
    },
    Obj {
        len: u32,
        end: u32,
    },
}

#[derive(Default, Debug, Clone)]
pub(crate) struct Tape {
    pub(crate) ev: Vec<Ev>,
    pub(crate) text: String,
}

impl Tape {
    fn push_text(&mut self, s: &str) -> Result<(u32, u32)> {
        let start = u32::try_from(self.text.len()).map_err(|_| too_large())?;
        let len = u32::try_from(s.len()).map_err(|_| too_large())?;
        start.checked_add(len).ok_or_else(too_large)?;
        self.text.push_str(s);
        Ok((start, len))
    }

    pub(crate) fn push_key(&mut self, key: &str) -> Result<()> {
        let (s, l) = self.push_text(key)?;
        self.ev.push(Ev::Key(s, l));
        Ok(())
    }

    pub(crate) fn push_str(&mut self, v: &str) -> Result<()> {
        let (s, l) = self.push_text(v)?;
        self.ev.push(Ev::Str(s, l));
        Ok(())
    }

    pub(crate) fn push_i128(&mut self, v: i128) -> Result<()> {
        match i64::try_from(v) {
            Ok(small) => self.ev.push(Ev::I64(small)),
            Err(_) => self.push_big(&v.to_string())?,
        }
        Ok(())
    }

    pub(crate) fn push_u128(&mut self, v: u128) -> Result<()> {
        match u64::try_from(v) {
            Ok(small) => self.ev.push(Ev::U64(small)),
            Err(_) => self.push_big(&v.to_string())?,
        }
        Ok(())
    }

    /// serde_json's model: bytes are an array of numbers.
    pub(crate) fn push_bytes(&mut self, v: &[u8]) -> Result<()> {
        let at = self.open(false);
        self.ev.extend(v.iter().map(|&b| Ev::U64(b.into())));
        let len = u32::try_from(v.len()).map_err(|_| too_large())?;
        self.close(at, len)
    }

    /// An exact number, as its §2 canonical text (`ser::number`).
    pub(crate) fn push_number(&mut self, text: &str) -> Result<()> {
        let (s, l) = self.push_text(text)?;
        self.ev.push(Ev::Num(s, l));
        Ok(())
    }

    /// An integer beyond 64 bits, as its decimal digits.
    pub(crate) fn push_big(&mut self, digits: &str) -> Result<()> {
        let (s, l) = self.push_text(digits)?;
        self.ev.push(Ev::Big(s, l));
        Ok(())
    }

    pub(crate) fn str_at(&self, start: u32, len: u32) -> &str {
        &self.text[start as usize..(start + len) as usize]
    }

    /// Index of the event after the value at `i` (its next sibling).
    pub(crate) fn next(&self, i: usize) -> usize {
        match self.ev[i] {
            Ev::Arr { end, .. } | Ev::Obj { end, .. } => end as usize,
            _ => i + 1,
        }
    }

    pub(crate) fn len(&self, i: usize) -> usize {
        match self.ev[i] {
            Ev::Arr { len, .. } | Ev::Obj { len, .. } => len as usize,
            _ => 0,
        }
    }

    /// Element indices of the array at `i`.
    pub(crate) fn elements(&self, i: usize) -> TapeElements<'_> {
        TapeElements {
            tape: self,
            at: i + 1,
            left: self.len(i),
        }
    }

    /// `(key, value index)` pairs of the object at `i`.
    pub(crate) fn entries(&self, i: usize) -> TapeEntries<'_> {
        TapeEntries {
            tape: self,
            at: i + 1,
            left: self.len(i),
        }
    }

    pub(crate) fn open(&mut self, object: bool) -> usize {
        let at = self.ev.len();
        self.ev.push(if object {
            Ev::Obj { len: 0, end: 0 }
        } else {
            Ev::Arr { len: 0, end: 0 }
        });
        at
    }

    pub(crate) fn close(&mut self, at: usize, count: u32) -> Result<()> {
        let end = u32::try_from(self.ev.len()).map_err(|_| too_large())?;
        match &mut self.ev[at] {
            Ev::Arr { len, end: e } | Ev::Obj { len, end: e } => {
                *len = count;
                *e = end;
            }
            _ => unreachable!("close() is only called on an index returned by open()"),
        }
        Ok(())
    }
}

fn too_large() -> Error {
    Error::data("value too large to encode: an array or object exceeds 4 GiB of text")
}

pub(crate) struct TapeElements<'t> {
    tape: &'t Tape,
    at: usize,
    left: usize,
}

impl Iterator for TapeElements<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let i = self.at;
        self.at = self.tape.next(i);
        Some(i)
    }
}

pub(crate) struct TapeEntries<'t> {
    tape: &'t Tape,
    at: usize,
    left: usize,
}

impl<'t> Iterator for TapeEntries<'t> {
    type Item = (&'t str, usize);
    fn next(&mut self) -> Option<(&'t str, usize)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let Ev::Key(s, l) = self.tape.ev[self.at] else {
            unreachable!("object entries start with a key")
        };
        let v = self.at + 1;
        self.at = self.tape.next(v);
        Some((self.tape.str_at(s, l), v))
    }
}

/// A recorded value, serializable again (as many times as layout needs).
pub(crate) struct TapeValue<'t> {
    pub(crate) tape: &'t Tape,
    pub(crate) at: usize,
}

impl Serialize for TapeValue<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::{SerializeMap, SerializeSeq};
        let tape = self.tape;
        match tape.ev[self.at] {
            Ev::Null => s.serialize_unit(),
            Ev::Bool(v) => s.serialize_bool(v),
            Ev::I64(v) => s.serialize_i64(v),
            Ev::U64(v) => s.serialize_u64(v),
            Ev::F64(v) => s.serialize_f64(v),
            Ev::F32(v) => s.serialize_f32(v),
            Ev::Str(st, l) | Ev::Key(st, l) => s.serialize_str(tape.str_at(st, l)),
            Ev::Big(st, l) => {
                let digits = tape.str_at(st, l);
                match digits.parse::<i128>() {
                    Ok(v) => s.serialize_i128(v),
                    Err(_) => match digits.parse::<u128>() {
                        Ok(v) => s.serialize_u128(v),
                        Err(_) => s.serialize_str(digits),
                    },
                }
            }
            Ev::Num(st, l) => number::ExactNumber(tape.str_at(st, l)).serialize(s),
            Ev::Arr { len, .. } => {
                let mut seq = s.serialize_seq(Some(len as usize))?;
                for at in tape.elements(self.at) {
                    seq.serialize_element(&TapeValue { tape, at })?;
                }
                seq.end()
            }
            Ev::Obj { len, .. } => {
                let mut map = s.serialize_map(Some(len as usize))?;
                for (key, at) in tape.entries(self.at) {
                    map.serialize_entry(key, &TapeValue { tape, at })?;
                }
                map.end()
            }
        }
    }
}

/// The serde `Serializer` that records into a [`Tape`], following serde_json's data model.
pub(crate) struct Recorder<'t> {
    pub(crate) tape: &'t mut Tape,
    /// Nesting levels still allowed: recording recurses once per level.
    pub(crate) left: usize,
}

/// An open array or object being recorded.
pub(crate) struct Open<'t> {
    tape: &'t mut Tape,
    at: usize,
    count: u32,
    /// For enum variants with content: the outer `{variant: …}` object to close too.
    variant_at: Option<usize>,
    /// Nesting levels left for the elements or values.
    left: usize,
}

impl<'t> Open<'t> {
    pub(crate) fn element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.count = self.count.checked_add(1).ok_or_else(too_large)?;
        let recorder = Recorder {
            tape: &mut *self.tape,
            left: self.left,
        };
        crate::stack::nested(|| value.serialize(recorder))
    }

    /// Closes the container and hands the tape back.
    pub(crate) fn finish(self) -> Result<&'t mut Tape> {
        self.tape.close(self.at, self.count)?;
        if let Some(outer) = self.variant_at {
            self.tape.close(outer, 1)?;
        }
        Ok(self.tape)
    }
}

impl<'t> Recorder<'t> {
    fn scalar(self, ev: Ev) -> Result<()> {
        self.tape.ev.push(ev);
        Ok(())
    }

    /// Takes one level of nesting, or fails past the limit.
    fn nest(left: usize) -> Result<usize> {
        left.checked_sub(1)
            .ok_or_else(|| Error::data("nesting deeper than the limit (EncodeOptions::max_depth)"))
    }

    pub(crate) fn open(self, object: bool, variant: Option<&str>) -> Result<Open<'t>> {
        let mut left = Self::nest(self.left)?;
        let variant_at = match variant {
            Some(name) => {
                left = Self::nest(left)?;
                let outer = self.tape.open(true);
                self.tape.push_key(name)?;
                Some(outer)
            }
            None => None,
        };
        let at = self.tape.open(object);
        Ok(Open {
            tape: self.tape,
            at,
            count: 0,
            variant_at,
            left,
        })
    }
}

impl<'t> ser::Serializer for Recorder<'t> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Open<'t>;
    type SerializeTuple = Open<'t>;
    type SerializeTupleStruct = Open<'t>;
    type SerializeTupleVariant = Open<'t>;
    type SerializeMap = Open<'t>;
    type SerializeStruct = Open<'t>;
    type SerializeStructVariant = Open<'t>;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.scalar(Ev::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.scalar(Ev::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.scalar(Ev::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.scalar(Ev::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.scalar(Ev::I64(v))
    }
    fn serialize_i128(self, v: i128) -> Result<()> {
        self.tape.push_i128(v)
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.scalar(Ev::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.scalar(Ev::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.scalar(Ev::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.scalar(Ev::U64(v))
    }
    fn serialize_u128(self, v: u128) -> Result<()> {
        self.tape.push_u128(v)
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.scalar(Ev::F32(v))
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.scalar(Ev::F64(v))
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0u8; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.tape.push_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.tape.push_bytes(v)
    }
    fn serialize_none(self) -> Result<()> {
        self.scalar(Ev::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<()> {
        if name == number::NUMBER
            && let Some(text) = number::text(value)
        {
            return self.tape.push_number(&text);
        }
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.scalar(Ev::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.scalar(Ev::Null)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<()> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let left = Self::nest(self.left)?;
        let at = self.tape.open(true);
        self.tape.push_key(variant)?;
        let recorder = Recorder {
            tape: &mut *self.tape,
            left,
        };
        crate::stack::nested(|| value.serialize(recorder))?;
        self.tape.close(at, 1)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Open<'t>> {
        self.open(false, None)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Open<'t>> {
        self.open(false, None)
    }
    fn serialize_tuple_struct(self, _: &'static str, _len: usize) -> Result<Open<'t>> {
        self.open(false, None)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Open<'t>> {
        self.open(false, Some(variant))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Open<'t>> {
        self.open(true, None)
    }
    fn serialize_struct(self, _: &'static str, _len: usize) -> Result<Open<'t>> {
        self.open(true, None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Open<'t>> {
        self.open(true, Some(variant))
    }
}

elements! {
    impl[] for Open<'_> {
        Ok = (), Error = Error;
        element(this, value) => this.element(value);
        end(this) => this.finish().map(drop);
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
}

impl ser::SerializeMap for Open<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        let tape = &mut *self.tape;
        let (start, len) = with_key_text(key, |text| tape.push_text(text))?;
        tape.ev.push(Ev::Key(start, len));
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }
    fn end(self) -> Result<()> {
        self.finish().map(drop)
    }
}

fields! {
    impl[] for Open<'_> {
        Ok = (), Error = Error;
        field(this, key, value) => {
            this.tape.push_key(key)?;
            this.element(value)
        };
        end(this) => this.finish().map(drop);
    }
}
