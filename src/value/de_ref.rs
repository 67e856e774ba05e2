//! A borrowed `&Value` as a serde `Deserializer`, as serde_json's `&Value` is:
//! `T::deserialize(&value)` reads the value in place, and `&str` fields borrow from it.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::{Map, Value};
use crate::de::KeyDe;
use crate::error::{Error, Result};

/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str, id: u32 }
/// let value = toon::toon!({"name": "Ada", "id": 1});
/// let user = <User as serde::Deserialize>::deserialize(&value).unwrap();
/// assert_eq!(user, User { name: "Ada", id: 1 });
/// ```
impl<'de> de::Deserializer<'de> for &'de Value {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => visitor.visit_u64(u),
                (None, Some(i)) => visitor.visit_i64(i),
                _ => visitor.visit_f64(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                let mut seq = SeqRefDeserializer { iter: items.iter() };
                let value = visitor.visit_seq(&mut seq)?;
                match seq.iter.len() {
                    0 => Ok(value),
                    left => Err(Error::data(format!(
                        "the target type took fewer elements: {left} left over"
                    ))),
                }
            }
            Value::Object(map) => visitor.visit_map(MapRefDeserializer::new(map)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// Externally tagged, as serde_json: `"Unit"` or `{Variant: content}`.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self {
            Value::String(s) => visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s)),
            Value::Object(map) if map.len() == 1 => {
                let (variant, content) = map.iter().next().expect("one entry");
                visitor.visit_enum(VariantRef { variant, content })
            }
            other => Err(Error::data(format!(
                "invalid type: {}, expected an enum as a variant name or an object with one key",
                other.kind()
            ))),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

impl<'de> IntoDeserializer<'de, Error> for &'de Value {
    type Deserializer = &'de Value;
    fn into_deserializer(self) -> &'de Value {
        self
    }
}

struct SeqRefDeserializer<'de> {
    iter: std::slice::Iter<'de, Value>,
}

impl<'de> SeqAccess<'de> for SeqRefDeserializer<'de> {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.iter.next().map(|v| seed.deserialize(v)).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapRefDeserializer<'de> {
    iter: super::map::Iter<'de>,
    value: Option<&'de Value>,
}

impl<'de> MapRefDeserializer<'de> {
    fn new(map: &'de Map) -> Self {
        MapRefDeserializer {
            iter: map.iter(),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for MapRefDeserializer<'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        // Keys parse as integers or bools when the target's key type asks for them.
        seed.deserialize(KeyDe(key.into())).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let value = self
            .value
            .take()
            .ok_or_else(|| Error::data("a value was requested before its key"))?;
        seed.deserialize(value)
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct VariantRef<'de> {
    variant: &'de str,
    content: &'de Value,
}

impl<'de> de::EnumAccess<'de> for VariantRef<'de> {
    type Error = Error;
    type Variant = &'de Value;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, &'de Value)> {
        let variant = seed.deserialize(KeyDe(self.variant.into()))?;
        Ok((variant, self.content))
    }
}

impl<'de> de::VariantAccess<'de> for &'de Value {
    type Error = Error;
    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self)
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_map(self, visitor)
    }
}
