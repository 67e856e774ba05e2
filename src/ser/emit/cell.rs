//! One primitive value, quoted for its delimiter (§7.2, §11.1), or a signal that the value is
//! a container.

use serde::ser;

use crate::canonical;
use crate::error::Error;
use crate::quote;
use crate::ser::number;

/// Why a value position could not take a value as a primitive.
#[derive(Debug)]
pub(super) enum Fail {
    /// The value is an array, or an object that is an enum variant.
    Container,
    /// The value is a plain object (a map or struct).
    Object,
    Error(Error),
}

impl std::fmt::Display for Fail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fail::Container | Fail::Object => f.write_str("container"),
            Fail::Error(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for Fail {}
impl ser::Error for Fail {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Fail::Error(Error::data(msg.to_string()))
    }
}

/// Writes a primitive with quoting for `delim` (§7.2, §11.1); containers fail with
/// [`Fail::Object`] or [`Fail::Container`] before writing anything.
pub(super) struct Cell<'b> {
    pub(super) out: &'b mut Vec<u8>,
    pub(super) delim: u8,
    /// The document root: a string with a leading BOM is quoted so decoders keep it.
    pub(super) root: bool,
}

impl Cell<'_> {
    #[inline]
    fn str(self, v: &str) -> std::result::Result<(), Fail> {
        if self.root && v.starts_with('\u{feff}') {
            quote::write_quoted(self.out, v);
        } else {
            quote::write_string(self.out, v, self.delim);
        }
        Ok(())
    }
}

impl ser::Serializer for Cell<'_> {
    type Ok = ();
    type Error = Fail;
    type SerializeSeq = ser::Impossible<(), Fail>;
    type SerializeTuple = ser::Impossible<(), Fail>;
    type SerializeTupleStruct = ser::Impossible<(), Fail>;
    type SerializeTupleVariant = ser::Impossible<(), Fail>;
    type SerializeMap = ser::Impossible<(), Fail>;
    type SerializeStruct = ser::Impossible<(), Fail>;
    type SerializeStructVariant = ser::Impossible<(), Fail>;

    #[inline]
    fn serialize_bool(self, v: bool) -> std::result::Result<(), Fail> {
        self.out
            .extend_from_slice(if v { b"true" } else { b"false" });
        Ok(())
    }
    #[inline]
    fn serialize_i8(self, v: i8) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    #[inline]
    fn serialize_i16(self, v: i16) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    #[inline]
    fn serialize_i32(self, v: i32) -> std::result::Result<(), Fail> {
        self.serialize_i64(v.into())
    }
    #[inline]
    fn serialize_i64(self, v: i64) -> std::result::Result<(), Fail> {
        canonical::write_int(self.out, v);
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> std::result::Result<(), Fail> {
        match i64::try_from(v) {
            Ok(v) => canonical::write_int(self.out, v),
            Err(_) => self.out.extend_from_slice(v.to_string().as_bytes()),
        }
        Ok(())
    }
    #[inline]
    fn serialize_u8(self, v: u8) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    #[inline]
    fn serialize_u16(self, v: u16) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    #[inline]
    fn serialize_u32(self, v: u32) -> std::result::Result<(), Fail> {
        self.serialize_u64(v.into())
    }
    #[inline]
    fn serialize_u64(self, v: u64) -> std::result::Result<(), Fail> {
        canonical::write_uint(self.out, v);
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> std::result::Result<(), Fail> {
        match u64::try_from(v) {
            Ok(v) => canonical::write_uint(self.out, v),
            Err(_) => self.out.extend_from_slice(v.to_string().as_bytes()),
        }
        Ok(())
    }
    #[inline]
    fn serialize_f32(self, v: f32) -> std::result::Result<(), Fail> {
        canonical::write_f32(self.out, v);
        Ok(())
    }
    #[inline]
    fn serialize_f64(self, v: f64) -> std::result::Result<(), Fail> {
        canonical::write_f64(self.out, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> std::result::Result<(), Fail> {
        self.str(v.encode_utf8(&mut [0u8; 4]))
    }
    #[inline]
    fn serialize_str(self, v: &str) -> std::result::Result<(), Fail> {
        self.str(v)
    }
    #[inline]
    fn serialize_none(self) -> std::result::Result<(), Fail> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }
    fn serialize_some<T: ?Sized + ser::Serialize>(
        self,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: ?Sized + ser::Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> std::result::Result<(), Fail> {
        // §2 canonical numbers with all their digits: written as they are, never quoted.
        if name == number::NUMBER
            && let Some(text) = number::text(value)
        {
            self.out.extend_from_slice(text.as_bytes());
            return Ok(());
        }
        value.serialize(self)
    }
    #[inline]
    fn serialize_unit(self) -> std::result::Result<(), Fail> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<(), Fail> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<(), Fail> {
        self.str(variant)
    }

    refuse!(Fail::Container; serialize_bytes, serialize_newtype_variant, serialize_seq, serialize_tuple, serialize_tuple_struct, serialize_tuple_variant, serialize_struct_variant);
    refuse!(Fail::Object; serialize_map, serialize_struct);
}
