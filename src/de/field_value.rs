//! The value after an object field's colon (§8), read where it stands: the cursor is left
//! just after `key: ` ([`Scanner::next_key_at`](super::scanner::Scanner::next_key_at)) and
//! the target's type hint reads the value there. An integer, a number, a boolean or a quoted
//! string that ends its line is parsed in the one pass that finds its end; everything else
//! (an unquoted string, a nested block, `[]`, trailing spaces, a CR, `deserialize_any`)
//! finds the line's end first and takes the same path as any other slot ([`ValueDe`]), so
//! both read every value alike.

use std::borrow::Cow;

use serde::de::{self, Deserializer as _, Visitor};

use super::exact;
use super::token::{self, ParsedPrimitive, TypedNumber};
use super::{Deserializer, Slot, ValueDe, at_text, visit_integer, visit_number, visit_primitive};
use crate::error::{Error, Result};

/// The value of a `key:` line whose key has been handed to serde, starting at byte `at` of
/// the input; its line is consumed by whichever method reads it.
pub(crate) struct FieldValue<'a, 'de> {
    pub(crate) de: &'a mut Deserializer<'de>,
    pub(crate) at: usize,
    /// The depth of the field's key (§8: a nested block is one deeper).
    pub(crate) depth: usize,
}

impl<'a, 'de> FieldValue<'a, 'de> {
    /// The value as a slot, its line consumed: the general path.
    #[inline]
    fn settle(self) -> ValueDe<'a, 'de> {
        let rest = self.de.scan.finish_value(self.at);
        ValueDe {
            de: self.de,
            slot: Slot::after_colon(rest, self.depth),
        }
    }

    /// The value settled, its line consumed; a plain unquoted string (§7.2: nothing the
    /// general path would read as a number, a literal or `[]`) is visited at once, anything
    /// else read as a slot by `then`.
    #[inline]
    fn settle_string<V: Visitor<'de>>(
        self,
        visitor: V,
        then: impl FnOnce(ValueDe<'a, 'de>, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let FieldValue { de, at, depth } = self;
        let text = de.scan.finish_value(at);
        if text != "[]" && token::is_plain_string(text) {
            return visitor
                .visit_borrowed_str(text)
                .map_err(|e| at_text(text, e));
        }
        let slot = Slot::after_colon(text, depth);
        then(ValueDe { de, slot }, visitor)
    }

    /// The bytes from `at` on that `part` accepts, as text.
    #[inline]
    fn run(&self, part: impl Fn(u8) -> bool) -> &'de str {
        let text = self.de.scan.text();
        let bytes = text.as_bytes();
        let mut end = self.at;
        while bytes.get(end).is_some_and(|&b| part(b)) {
            end += 1;
        }
        // `at` follows an ASCII colon or space and `end` an ASCII byte: char boundaries.
        text.get(self.at..end).unwrap_or_default()
    }

    /// Visits a value read from the word at the cursor (`short_value`) whose `len` bytes
    /// end their line, and consumes the line.
    #[inline]
    fn visit_short<T, V: Visitor<'de>>(
        self,
        len: usize,
        read: T,
        visitor: V,
        visit: impl FnOnce(T, V) -> Result<V::Value>,
    ) -> Result<V::Value> {
        let (at, text) = (self.at, self.de.scan.text());
        self.de.scan.end_value(at + len);
        // `at` follows an ASCII colon or space, and a newline ends the value: char boundaries.
        let value = text.get(at..at + len).unwrap_or_default();
        visit(read, visitor).map_err(|e| at_text(value, e))
    }

    /// Visits `read` with `visit`, when it was read from the whole of the value `text` and
    /// nothing follows it on its line.
    #[inline]
    fn whole<T, V: Visitor<'de>>(
        self,
        text: &'de str,
        read: Option<T>,
        visitor: V,
        visit: impl FnOnce(T, V) -> Result<V::Value>,
    ) -> CursorRead<'a, 'de, V> {
        match read {
            Some(read) if self.de.scan.end_value(self.at + text.len()) => {
                Ok(visit(read, visitor).map_err(|e| at_text(text, e)))
            }
            _ => Err((self, visitor)),
        }
    }

    /// An integer, accumulated as its digits are found (for integers, fewer instructions
    /// than reading a word, `number`'s way, and no slower: measured).
    #[inline]
    fn integer<V: Visitor<'de>>(self, visitor: V) -> CursorRead<'a, 'de, V> {
        let text = self.de.scan.text();
        match token::integer_prefix(text.as_bytes(), self.at) {
            Some((int, end)) if self.de.scan.end_value(end) => {
                let at = text.split_at(self.at).1;
                Ok(visit_integer(int, visitor).map_err(|e| at_text(at, e)))
            }
            _ => Err((self, visitor)),
        }
    }

    /// A number: a short one read from one word ([`token::number_in_word`]); else the §4
    /// number bytes, typed as the general path types them.
    #[inline]
    fn number<V: Visitor<'de>>(self, visitor: V) -> CursorRead<'a, 'de, V> {
        if let Some((word, len)) = self.de.scan.short_value(self.at)
            && let Some(number) = token::number_in_word(word, len)
        {
            return Ok(self.visit_short(len, number, visitor, visit_number));
        }
        let text = self.run(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'));
        self.whole(text, token::typed_number(text), visitor, visit_number)
    }

    /// `deserialize_any` for [`exact::EXACT_NUMBERS`]: a number that an `f64` would change
    /// is settled, and the slot visits it with its exact text.
    fn exact_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let read = match self.de.scan.text().as_bytes().get(self.at) {
            Some(b'"') => self.quoted(visitor),
            Some(b'0'..=b'9' | b'-') => self.exact_number(visitor),
            Some(b't' | b'f' | b'n') => self.literal(visitor),
            _ => Err((self, visitor)),
        };
        match read {
            Ok(visited) => visited,
            Err((value, visitor)) => value.settle_string(visitor, |de, v| {
                de.deserialize_newtype_struct(exact::EXACT_NUMBERS, v)
            }),
        }
    }

    /// [`Self::number`], for a number whose value an `f64` keeps: a short one (up to eight
    /// bytes, no exponent: at most eight digits) always does.
    fn exact_number<V: Visitor<'de>>(self, visitor: V) -> CursorRead<'a, 'de, V> {
        if let Some((word, len)) = self.de.scan.short_value(self.at)
            && let Some(number) = token::number_in_word(word, len)
        {
            return Ok(self.visit_short(len, number, visitor, visit_number));
        }
        let text = self.run(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'));
        match token::typed_number(text) {
            Some(TypedNumber::F64(_)) if exact::exact_text(text).is_some() => Err((self, visitor)),
            number => self.whole(text, number, visitor, visit_number),
        }
    }

    /// `true`, `false` or `null`.
    #[inline]
    fn literal<V: Visitor<'de>>(self, visitor: V) -> CursorRead<'a, 'de, V> {
        let text = self.run(|b| b.is_ascii_lowercase());
        let prim = match text {
            "true" => Some(ParsedPrimitive::Bool(true)),
            "false" => Some(ParsedPrimitive::Bool(false)),
            "null" => Some(ParsedPrimitive::Null),
            _ => None,
        };
        self.whole(text, prim, visitor, visit_primitive)
    }

    /// A quoted string, found, unescaped and its line ended in one pass.
    #[inline]
    fn quoted<V: Visitor<'de>>(self, visitor: V) -> CursorRead<'a, 'de, V> {
        let text = self.de.scan.text();
        if text.as_bytes().get(self.at) == Some(&b'"')
            && let Some(rest) = text.get(self.at..)
            && let Some((value, len)) = token::quoted_prefix(rest)
            && self.de.scan.end_value(self.at + len)
        {
            let quoted = rest.split_at(len).0;
            let visited = match value {
                Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
                Cow::Owned(s) => visitor.visit_string(s),
            };
            return Ok(visited.map_err(|e| at_text(quoted, e)));
        }
        Err((self, visitor))
    }
}

/// A value read where it stands, or the value and visitor handed back for the general path.
type CursorRead<'a, 'de, V> =
    std::result::Result<Result<<V as Visitor<'de>>::Value>, (FieldValue<'a, 'de>, V)>;

/// Methods with no reading of their own: the value is settled into a slot and read there.
macro_rules! settled {
    ($($method:ident $(($($arg:ident: $ty:ty),*))?),* $(,)?) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($($arg: $ty,)*)? visitor: V) -> Result<V::Value> {
            self.settle().$method($($($arg,)*)? visitor)
        }
    )*};
}

/// Hinted methods: read the value where it stands with `$read`, else settle it and read it
/// there with the same method.
macro_rules! at_cursor {
    ($($read:ident: $($method:ident)*;)*) => {$($(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.$read(visitor) {
                Ok(visited) => visited,
                Err((value, visitor)) => value.settle().$method(visitor),
            }
        }
    )*)*};
}

impl<'de> de::Deserializer<'de> for FieldValue<'_, 'de> {
    type Error = Error;

    at_cursor! {
        integer: deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
            deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64;
        number: deserialize_f32 deserialize_f64;
        literal: deserialize_bool;
    }

    #[inline]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.quoted(visitor) {
            Ok(visited) => visited,
            Err((value, visitor)) => value.settle_string(visitor, |de, v| de.deserialize_str(v)),
        }
    }

    #[inline]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.quoted(visitor) {
            Ok(visited) => visited,
            Err((value, visitor)) => value.settle_string(visitor, |de, v| de.deserialize_string(v)),
        }
    }

    /// Self-describing targets: the value's first byte says which reading to try.
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let read = match self.de.scan.text().as_bytes().get(self.at) {
            Some(b'"') => self.quoted(visitor),
            Some(b'0'..=b'9' | b'-') => self.number(visitor),
            Some(b't' | b'f' | b'n') => self.literal(visitor),
            _ => Err((self, visitor)),
        };
        match read {
            Ok(visited) => visited,
            Err((value, visitor)) => value.settle_string(visitor, |de, v| de.deserialize_any(v)),
        }
    }

    /// `null` that ends its line is `None`; any other value is `Some`, still read at the
    /// cursor; anything unusual is settled.
    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let text = self.run(|b| b.is_ascii_lowercase());
        if text != "null" {
            return visitor.visit_some(self);
        }
        if self.de.scan.end_value(self.at + text.len()) {
            return visitor.visit_none().map_err(|e| at_text(text, e));
        }
        self.settle().deserialize_option(visitor)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == exact::EXACT_NUMBERS {
            return self.exact_any(visitor);
        }
        visitor.visit_newtype_struct(self)
    }

    settled!(
        deserialize_i128, deserialize_u128, deserialize_char,
        deserialize_bytes, deserialize_byte_buf, deserialize_unit,
        deserialize_seq, deserialize_map, deserialize_identifier, deserialize_ignored_any,
        deserialize_unit_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    );
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use serde::Deserialize;
    use serde::de::DeserializeOwned;

    use crate::Value;

    #[derive(Deserialize, Debug, PartialEq)]
    struct One<T> {
        a: T,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    struct Wrapped(u32);

    const VALUES: [&str; 51] = [
        // Numbers whose newline falls within the word at the cursor, or just past it.
        "1234.56",
        "-123.45",
        "12345.6",
        "1234567",
        "-123456",
        "12345678",
        "-1234.5",
        "-0.0",
        "0.001",
        "00.5",
        "-.5",
        "1.2e3",
        "1",
        "-0",
        "0",
        "007",
        "-",
        "-5",
        "255",
        "256",
        "12345678901234567890",
        "99999999999999999999999",
        "-9223372036854775809",
        "-9223372036854775808",
        "9999999999999999999",
        "18446744073709551615",
        "1.5",
        "-1.50",
        "1e5",
        "1.",
        ".5",
        "1.5.2",
        "2025-03-23",
        "true",
        "false",
        "null",
        "nul",
        "truex",
        "\"s\"",
        "\"a\\nb\"",
        "\"a\\u00e9\\\"\"",
        "\"bad\\x\"",
        "\"open",
        "\"a\" b",
        "\"\"",
        "\"a: b\"",
        "x y",
        "",
        "[]",
        "é",
        "\"\\ud800\"",
    ];
    const ENDS: [&str; 5] = ["\n", " \n", "\r\n", "  \r\n", ""];

    /// One value read at the cursor (the third field of an object: the root's first line is
    /// read, and its second peeked, by the general path) and by the general path (the first
    /// field): the same value, or errors alike.
    fn agree<T: DeserializeOwned + PartialEq + Debug>(value: &str, end: &str) {
        let tail = if end.is_empty() { "" } else { "b: 1" };
        let cursor = format!("z: 0\ny: 0\na: {value}{end}{tail}");
        let general = format!("a: {value}{end}{tail}");
        let ours = crate::from_str::<One<T>>(&cursor);
        let reference = crate::from_str::<One<T>>(&general);
        match (&ours, &reference) {
            (Ok(a), Ok(b)) => assert_eq!(a, b, "{cursor:?}"),
            (Err(a), Err(b)) => {
                assert_eq!(
                    (a.classify(), a.message(), a.line()),
                    (b.classify(), b.message(), b.line() + 2),
                    "{cursor:?}"
                );
            }
            _ => panic!("{cursor:?}: {ours:?} vs {reference:?}"),
        }
    }

    #[test]
    fn values_at_the_cursor_read_as_the_general_path_reads_them() {
        for value in VALUES {
            for end in ENDS {
                agree::<u8>(value, end);
                agree::<i64>(value, end);
                agree::<u64>(value, end);
                agree::<f64>(value, end);
                agree::<f32>(value, end);
                agree::<String>(value, end);
                agree::<bool>(value, end);
                agree::<Option<u32>>(value, end);
                agree::<Option<String>>(value, end);
                agree::<Option<bool>>(value, end);
                agree::<Wrapped>(value, end);
                agree::<Value>(value, end);
                agree::<serde_json::Value>(value, end);
                agree::<i128>(value, end);
            }
        }
    }

    /// A value its visitor never asks for still has its line consumed before the next key.
    #[test]
    fn a_value_never_asked_for_is_consumed() {
        struct Keys(Vec<String>);
        struct KeysVisitor;
        impl<'de> serde::de::Visitor<'de> for KeysVisitor {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key()? {
                    keys.push(key);
                }
                Ok(Keys(keys))
            }
        }
        impl<'de> Deserialize<'de> for Keys {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_map(KeysVisitor)
            }
        }
        let keys: Keys = crate::from_str("b: 1\nc: 2\nd: \"x: y\"\ne: z\nf: 1.5\nh: 2").unwrap();
        assert_eq!(keys.0, ["b", "c", "d", "e", "f", "h"]);
    }

    /// A visitor error on a value read at the cursor is placed at the value.
    #[test]
    fn errors_point_at_the_value() {
        let err = crate::from_str::<One<u8>>("z: 0\ny: 0\na: 300").unwrap_err();
        assert_eq!((err.line(), err.column()), (3, 4), "{err}");
        let err = crate::from_str::<One<bool>>("z: 0\ny: 0\na:  \"yes\"").unwrap_err();
        assert_eq!((err.line(), err.column()), (3, 5), "{err}");
    }
}
