//! Map keys as text, as serde_json has them: strings as they are; integers, floats, bools and
//! chars by their canonical text; anything else is an error.

use serde::ser::{self, Impossible, Serialize};

use crate::canonical;
use crate::error::{Error, Result};

/// Hands `key`'s text to `then` and returns what it returns. A string key is passed as it
/// is, with no copy (the encoder writes it straight out); other keys are formatted first.
/// The error type is the caller's (`then`'s), so that a serializer with an error of its own
/// gets its own back.
///
/// # Errors
///
/// A key that is not a string, number, bool or char, or `then`'s error.
#[inline]
pub(crate) fn with_key_text<T, R, E>(
    key: &T,
    then: impl FnOnce(&str) -> std::result::Result<R, E>,
) -> std::result::Result<R, E>
where
    T: ?Sized + Serialize,
    E: ser::Error + From<Error>,
{
    key.serialize(KeyText(then))
}

/// A map key's text as an owned `String`.
pub(crate) fn key_string<T: ?Sized + Serialize>(key: &T) -> Result<String> {
    with_key_text(key, |text| Ok(text.to_owned()))
}

/// The serializer behind [`with_key_text`].
struct KeyText<F>(F);

fn key_must_be_a_string<E: From<Error>>() -> E {
    Error::data("key must be a string, number, bool or char").into()
}

impl<F> KeyText<F> {
    /// Canonical number text (ASCII) formatted into a small buffer, then handed on.
    fn formatted<R, E: From<Error>>(
        self,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> std::result::Result<R, E>
    where
        F: FnOnce(&str) -> std::result::Result<R, E>,
    {
        let mut buf = Vec::with_capacity(24);
        write(&mut buf);
        let text = std::str::from_utf8(&buf).map_err(|_| key_must_be_a_string::<E>())?;
        (self.0)(text)
    }
}

macro_rules! int_key {
    ($($name:ident: $ty:ty => $conv:ident as $as:ty),*) => {$(
        fn $name(self, v: $ty) -> std::result::Result<R, E> {
            self.formatted(|buf| canonical::$conv(buf, v as $as))
        }
    )*};
}

impl<R, E, F> ser::Serializer for KeyText<F>
where
    E: ser::Error + From<Error>,
    F: FnOnce(&str) -> std::result::Result<R, E>,
{
    type Ok = R;
    type Error = E;
    type SerializeSeq = Impossible<R, E>;
    type SerializeTuple = Impossible<R, E>;
    type SerializeTupleStruct = Impossible<R, E>;
    type SerializeTupleVariant = Impossible<R, E>;
    type SerializeMap = Impossible<R, E>;
    type SerializeStruct = Impossible<R, E>;
    type SerializeStructVariant = Impossible<R, E>;

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

    fn serialize_i128(self, v: i128) -> std::result::Result<R, E> {
        (self.0)(&v.to_string())
    }
    fn serialize_u128(self, v: u128) -> std::result::Result<R, E> {
        (self.0)(&v.to_string())
    }
    fn serialize_f32(self, v: f32) -> std::result::Result<R, E> {
        self.formatted(|buf| canonical::write_f32(buf, v))
    }
    fn serialize_f64(self, v: f64) -> std::result::Result<R, E> {
        self.formatted(|buf| canonical::write_f64(buf, v))
    }
    fn serialize_bool(self, v: bool) -> std::result::Result<R, E> {
        (self.0)(if v { "true" } else { "false" })
    }
    fn serialize_char(self, v: char) -> std::result::Result<R, E> {
        (self.0)(v.encode_utf8(&mut [0u8; 4]))
    }
    fn serialize_str(self, v: &str) -> std::result::Result<R, E> {
        (self.0)(v)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> std::result::Result<R, E> {
        (self.0)(variant)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> std::result::Result<R, E> {
        value.serialize(self)
    }
    fn serialize_none(self) -> std::result::Result<R, E> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> std::result::Result<R, E> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> std::result::Result<R, E> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _: &'static str) -> std::result::Result<R, E> {
        Err(key_must_be_a_string())
    }

    refuse!(key_must_be_a_string(); serialize_bytes, serialize_seq, serialize_tuple_struct, serialize_map);

    refuse!(key_must_be_a_string(); serialize_newtype_variant, serialize_tuple, serialize_tuple_variant, serialize_struct, serialize_struct_variant);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_strings_or_the_canonical_text_of_primitives() {
        assert_eq!(key_string("a b").unwrap(), "a b");
        assert_eq!(key_string(&-7i32).unwrap(), "-7");
        assert_eq!(key_string(&u128::MAX).unwrap(), u128::MAX.to_string());
        assert_eq!(key_string(&1.5f64).unwrap(), "1.5");
        assert_eq!(key_string(&1e21f64).unwrap(), "1e+21");
        assert_eq!(key_string(&true).unwrap(), "true");
        assert_eq!(key_string(&'é').unwrap(), "é");
        assert!(key_string(&None::<u8>).is_err());
        assert!(key_string(&[1u8]).is_err());
    }

    #[test]
    fn the_callers_error_comes_back_unchanged() {
        let err = with_key_text("k", |_| Err::<(), _>(Error::data("from the caller"))).unwrap_err();
        assert!(err.to_string().contains("from the caller"), "{err}");
    }
}
