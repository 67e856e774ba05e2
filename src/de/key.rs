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
