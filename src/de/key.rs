//! Keys: splitting a key-value line at its key (§7.4) and handing the key to serde.

use std::borrow::Cow;

use serde::de::{self, Visitor};

use super::token::{find_closing_quote, find_unquoted, trim_spaces, unescape};
use crate::error::{Error, Result};

/// Splits `content` into its key and the text after the key's colon.
pub(crate) fn split_key(content: &str) -> Result<(Cow<'_, str>, &str)> {
    if content.starts_with('"') {
        let close = find_closing_quote(content, 0)
            .ok_or_else(|| Error::syntax("unterminated quoted key"))?;
        let key = unescape(&content[1..close])?;
        let after = content[close + 1..].trim_start_matches(' ');
        return match after.strip_prefix(':') {
            Some(rest) => Ok((key, rest)),
            None => Err(Error::syntax("missing colon after key")),
        };
    }
    let colon = find_unquoted(content, b':', 0).ok_or_else(|| {
        Error::syntax("missing colon after key (a line in an object must be `key: value`)")
    })?;
    Ok((
        Cow::Borrowed(trim_spaces(&content[..colon])),
        &content[colon + 1..],
    ))
}

/// The key of an object line, whether it is a key-value line or a keyed array header
/// (`key[N]…:`), for the last-write-wins lookahead.
pub(crate) fn split_field_key(content: &str) -> Result<(Cow<'_, str>, &str)> {
    if let Some(bracket) = find_unquoted(content, b'[', 0) {
        let colon = find_unquoted(content, b':', 0);
        let quoted_end = content
            .starts_with('"')
            .then(|| find_closing_quote(content, 0))
            .flatten();
        let key_end = match quoted_end {
            Some(close) if content.as_bytes().get(close + 1) == Some(&b'[') => Some(close + 1),
            Some(_) => None,
            None if colon.is_some_and(|c| c > bracket) => Some(bracket),
            None => None,
        };
        if let Some(end) = key_end {
            return Ok((super::token::parse_name(&content[..end])?, &content[end..]));
        }
    }
    split_key(content)
}

/// A key for serde: borrowed when it had no escapes; map keys of integer or bool type are
/// parsed from the text, as serde_json does.
pub(crate) struct KeyDe<'de>(pub(crate) Cow<'de, str>);

macro_rules! parse_key {
    ($($method:ident => $visit:ident: $ty:ty),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.0.parse::<$ty>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
        }
    }

    parse_key!(
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_i128 => visit_i128: i128,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_u128 => visit_u128: u128,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.0 {
            Cow::Borrowed(s) => {
                visitor.visit_enum(de::value::BorrowedStrDeserializer::<Error>::new(s))
            }
            Cow::Owned(s) => visitor.visit_enum(de::value::StringDeserializer::<Error>::new(s)),
        }
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// The newtype name under which `toon::Value` asks for a map key it will share rather than
/// copy (a private protocol between the decoder and `Value`, as serde_json has for its
/// `RawValue`); any other deserializer treats it as a plain newtype around the key.
pub(crate) const SHARED_KEY: &str = "$toon::private::SharedKey";

/// A tabular field name handed to serde as the key of one row's object (§9.3). The header
/// holds the name once; a target that owns its keys (`String`, `serde_json::Value`) copies it
/// for every row, so such requests are charged to the decoder's expansion limit
/// ([`crate::DecodeOptions::max_expansion`]). Only requests known not to copy are free: struct
/// field identifiers, and `toon::Value`'s [`SHARED_KEY`], whose rows share one name.
pub(crate) struct FieldKeyDe<'a, 'de> {
    pub(crate) name: &'a Cow<'de, str>,
    pub(crate) de: &'a mut super::Deserializer<'de>,
}

impl<'de> FieldKeyDe<'_, 'de> {
    fn shared<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.name {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_str(s),
        }
    }

    fn shared_newtype<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.name {
            Cow::Borrowed(s) => {
                visitor.visit_newtype_struct(de::value::BorrowedStrDeserializer::<Error>::new(s))
            }
            Cow::Owned(s) => {
                visitor.visit_newtype_struct(de::value::StrDeserializer::<Error>::new(s))
            }
        }
    }

    /// Charges the copy, then hands the name over as [`KeyDe`] does.
    fn copied(self) -> Result<KeyDe<'de>> {
        self.de.expand(self.name.len())?;
        Ok(KeyDe(self.name.clone()))
    }
}

macro_rules! copied_key {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.copied()?.$method(visitor)
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FieldKeyDe<'_, 'de> {
    type Error = Error;

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.shared(visitor)
    }

    copied_key!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_ignored_any
    );

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.copied()?.deserialize_unit_struct(name, visitor)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == SHARED_KEY {
            return self.shared_newtype(visitor);
        }
        self.copied()?.deserialize_newtype_struct(name, visitor)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        self.copied()?.deserialize_tuple(len, visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.copied()?.deserialize_tuple_struct(name, len, visitor)
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.copied()?.deserialize_struct(name, fields, visitor)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.copied()?.deserialize_enum(name, variants, visitor)
    }
}
