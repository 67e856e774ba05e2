//! Exact numbers: a number whose decimal text has more digits than `u64`/`i64`/`f64` carry
//! (`18446744073709551616`, `0.1000000000000000055511151231257827`, `1e400`), written with
//! every digit (§2 canonical form).
//!
//! serde's data model has no such number, so one travels as serde_json's arbitrary-precision
//! numbers do: a newtype struct with a private name ([`NUMBER`]) around its canonical text.
//! The places that write or record primitives (`emit::cell`, `tape::Recorder`, the root of
//! `Serializer`) recognise the name in `serialize_newtype_struct`, which ordinary data rarely
//! reaches, so no other value pays for it. Everywhere else (the probes, keys, other formats)
//! the newtype is transparent and the number is its text, a primitive like any other.

use serde::ser::{self, Impossible, Serialize};

/// The private newtype name of an exact number; its content is the number's §2 canonical
/// text ([`crate::json_text::canonical`]).
pub(crate) const NUMBER: &str = "$toon::private::Number";

/// Serializes an exact number: `text` (§2 canonical number text) under [`NUMBER`].
pub(crate) struct ExactNumber<'a, T: ?Sized>(pub(crate) &'a T);

impl<T: ?Sized + Serialize> Serialize for ExactNumber<'_, T> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(NUMBER, self.0)
    }
}

/// The text inside a [`NUMBER`] newtype, when it is a string of number characters; `None`
/// for anything else (someone else's newtype of that name), which is then written as the
/// value it is. Only number characters are ever written unquoted: whatever a caller puts
/// under the name cannot break the document's syntax.
pub(crate) fn text<T: ?Sized + Serialize>(value: &T) -> Option<String> {
    value.serialize(TextTaker).ok()
}

fn is_number_text(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e'))
}

/// Not the text of an exact number.
#[derive(Debug)]
struct NotText;

impl std::fmt::Display for NotText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not an exact number's text")
    }
}
impl std::error::Error for NotText {}
impl ser::Error for NotText {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotText
    }
}

/// Takes the string of a [`NUMBER`] newtype and nothing else.
struct TextTaker;

impl ser::Serializer for TextTaker {
    type Ok = String;
    type Error = NotText;
    type SerializeSeq = Impossible<String, NotText>;
    type SerializeTuple = Impossible<String, NotText>;
    type SerializeTupleStruct = Impossible<String, NotText>;
    type SerializeTupleVariant = Impossible<String, NotText>;
    type SerializeMap = Impossible<String, NotText>;
    type SerializeStruct = Impossible<String, NotText>;
    type SerializeStructVariant = Impossible<String, NotText>;

    fn serialize_str(self, v: &str) -> Result<String, NotText> {
        if is_number_text(v) {
            Ok(v.to_owned())
        } else {
            Err(NotText)
        }
    }

    refuse!(@typed NotText; serialize_bool(bool), serialize_i8(i8), serialize_i16(i16),
        serialize_i32(i32), serialize_i64(i64), serialize_i128(i128), serialize_u8(u8),
        serialize_u16(u16), serialize_u32(u32), serialize_u64(u64), serialize_u128(u128),
        serialize_f32(f32), serialize_f64(f64), serialize_char(char), serialize_none(),
        serialize_unit(), serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str));

    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<String, NotText> {
        Err(NotText)
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<String, NotText> {
        Err(NotText)
    }

    refuse!(NotText; serialize_bytes, serialize_newtype_variant, serialize_seq, serialize_tuple,
        serialize_tuple_struct, serialize_tuple_variant, serialize_map, serialize_struct,
        serialize_struct_variant);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_number_text_is_taken() {
        assert_eq!(text("1e+400").as_deref(), Some("1e+400"));
        assert_eq!(text("-0.5").as_deref(), Some("-0.5"));
        for other in ["", "a", "1,2", "1\n- x", "1e 4"] {
            assert_eq!(text(other), None, "{other:?}");
        }
        assert_eq!(text(&1u8), None);
        assert_eq!(text(&[1u8]), None);
    }
}
