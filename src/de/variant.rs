//! Enums (serde's externally tagged form, as serde_json): a string is a unit variant, a
//! one-key object a variant with content.

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};

use super::keyed::KeyedAccess;
use super::object::ObjectAccess;
use super::row::RowMap;
use super::{Slot, ValueDe};
use crate::error::{Error, Result};

/// Any object-shaped access, for enums written as one-key objects.
enum AnyMap<'a, 'de> {
    Object(ObjectAccess<'a, 'de>),
    Row(RowMap<'a, 'de>),
    Keyed(KeyedAccess<'a, 'de>),
}

impl<'de> MapAccess<'de> for AnyMap<'_, 'de> {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self {
            AnyMap::Object(m) => m.next_key_seed(seed),
            AnyMap::Row(m) => m.next_key_seed(seed),
            AnyMap::Keyed(m) => m.next_key_seed(seed),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self {
            AnyMap::Object(m) => m.next_value_seed(seed),
            AnyMap::Row(m) => m.next_value_seed(seed),
            AnyMap::Keyed(m) => m.next_value_seed(seed),
        }
    }
}

impl AnyMap<'_, '_> {
    fn finish(self) -> Result<()> {
        match self {
            AnyMap::Object(m) => m.finish(),
            AnyMap::Row(_) => Ok(()),
            AnyMap::Keyed(m) => m.finish(),
        }
    }
}

/// An externally tagged enum variant with content: `{variant: content}`.
pub(crate) struct EnumFromMap<'m, 'a, 'de> {
    map: &'m mut AnyMap<'a, 'de>,
}

fn not_an_enum() -> Error {
    Error::data("invalid type: expected an enum as a variant name or an object with one key")
}

impl EnumFromMap<'_, '_, '_> {
    pub(crate) fn visit<'de, V: Visitor<'de>>(
        value: ValueDe<'_, 'de>,
        visitor: V,
    ) -> Result<V::Value> {
        let ValueDe { de, slot } = value;
        let mut map = match slot {
            Slot::Block { parent } => {
                let located = de.scan.last;
                match ObjectAccess::block(de, parent)? {
                    Some(access) => AnyMap::Object(access),
                    None => {
                        return Err(match located {
                            Some(line) => line.error_at(0, not_an_enum()),
                            None => not_an_enum(),
                        });
                    }
                }
            }
            Slot::Object { first, depth } => AnyMap::Object(ObjectAccess::inline(de, first, depth)),
            Slot::Row {
                fields,
                cells,
                cursor,
                line,
            } => AnyMap::Row(RowMap::new(de, fields, cells, cursor, line)),
            Slot::Header { header, base, line } if header.keyed => {
                let header = de.unbox(header);
                AnyMap::Keyed(KeyedAccess::new(de, header, base, line)?)
            }
            _ => return Err(de.locate(not_an_enum())),
        };
        let value = visitor.visit_enum(EnumFromMap { map: &mut map })?;
        if map.next_key::<IgnoredAny>()?.is_some() {
            return Err(Error::data("an enum object must have exactly one key"));
        }
        map.finish()?;
        Ok(value)
    }
}

impl<'de> de::EnumAccess<'de> for EnumFromMap<'_, '_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        match self.map.next_key_seed(seed)? {
            Some(variant) => Ok((variant, self)),
            None => Err(not_an_enum()),
        }
    }
}

struct SeqSeed<V>(V);
impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for SeqSeed<V> {
    type Value = V::Value;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<V::Value, D::Error> {
        d.deserialize_seq(self.0)
    }
}

struct MapSeed<V>(V);
impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for MapSeed<V> {
    type Value = V::Value;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<V::Value, D::Error> {
        d.deserialize_map(self.0)
    }
}

impl<'de> de::VariantAccess<'de> for EnumFromMap<'_, '_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        self.map.next_value::<()>()
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        self.map.next_value_seed(seed)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.map.next_value_seed(SeqSeed(visitor))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.map.next_value_seed(MapSeed(visitor))
    }
}
