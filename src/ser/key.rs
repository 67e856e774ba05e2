//! Serializes map keys to text, as serde_json does: strings as they are; integers, floats,
//! bools and chars by their canonical text; anything else is an error.

use serde::ser::{self, Impossible, Serialize};

use crate::canonical;
use crate::error::{Error, Result};

/// Appends a key's text to `out` and returns its `(start, len)` there.
pub(crate) struct KeySerializer<'a> {
    pub(crate) out: &'a mut String,
}

fn key_must_be_a_string() -> Error {
    Error::data("key must be a string, number, bool or char")
}

impl KeySerializer<'_> {
    fn push(self, s: &str) -> Result<(u32, u32)> {
        let start = u32::try_from(self.out.len()).map_err(|_| key_too_large())?;
        let len = u32::try_from(s.len()).map_err(|_| key_too_large())?;
        self.out.push_str(s);
        Ok((start, len))
    }

    fn push_bytes(self, bytes: Vec<u8>) -> Result<(u32, u32)> {
        // Canonical number text is ASCII.
        let text = String::from_utf8(bytes).map_err(|_| key_must_be_a_string())?;
        self.push(&text)
    }
}

fn key_too_large() -> Error {
    Error::data("key too large to encode")
}

macro_rules! int_key {
    ($($name:ident: $ty:ty => $conv:ident as $as:ty),*) => {$(
        fn $name(self, v: $ty) -> Result<(u32, u32)> {
            let mut buf = Vec::new();
            canonical::$conv(&mut buf, v as $as);
            self.push_bytes(buf)
        }
    )*};
}

impl ser::Serializer for KeySerializer<'_> {
    type Ok = (u32, u32);
    type Error = Error;
    type SerializeSeq = Impossible<(u32, u32), Error>;
    type SerializeTuple = Impossible<(u32, u32), Error>;
    type SerializeTupleStruct = Impossible<(u32, u32), Error>;
    type SerializeTupleVariant = Impossible<(u32, u32), Error>;
    type SerializeMap = Impossible<(u32, u32), Error>;
    type SerializeStruct = Impossible<(u32, u32), Error>;
    type SerializeStructVariant = Impossible<(u32, u32), Error>;

    int_key!(
        serialize_i8: i8 => write_int as i64,
        serialize_i16: i16 => write_int as i64,
        serialize_i32: i32 => write_int as i64,
        serialize_i64: i64 => write_int as i64,
        serialize_u8: u8 => write_uint as u64,
        serialize_u16: u16 => write_uint as u64,
        serialize_u32: u32 => write_uint as u64,
        serialize_u64: u64 => write_uint as u64
    );

    fn serialize_i128(self, v: i128) -> Result<(u32, u32)> {
        self.push(&v.to_string())
    }
    fn serialize_u128(self, v: u128) -> Result<(u32, u32)> {
        self.push(&v.to_string())
    }
    fn serialize_f32(self, v: f32) -> Result<(u32, u32)> {
        let mut buf = Vec::new();
        canonical::write_f32(&mut buf, v);
        self.push_bytes(buf)
    }
    fn serialize_f64(self, v: f64) -> Result<(u32, u32)> {
        let mut buf = Vec::new();
        canonical::write_f64(&mut buf, v);
        self.push_bytes(buf)
    }
    fn serialize_bool(self, v: bool) -> Result<(u32, u32)> {
        self.push(if v { "true" } else { "false" })
    }
    fn serialize_char(self, v: char) -> Result<(u32, u32)> {
        self.push(v.encode_utf8(&mut [0u8; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(u32, u32)> {
        self.push(v)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(u32, u32)> {
        self.push(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(u32, u32)> {
        value.serialize(self)
    }
    fn serialize_none(self) -> Result<(u32, u32)> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(u32, u32)> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(u32, u32)> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(u32, u32)> {
        Err(key_must_be_a_string())
    }

    refuse!(key_must_be_a_string(); serialize_bytes, serialize_seq, serialize_tuple_struct, serialize_map);

    refuse!(key_must_be_a_string(); serialize_newtype_variant, serialize_tuple, serialize_tuple_variant, serialize_struct, serialize_struct_variant);
}
