//! `Value` and serde's data model, the decoding way: deserializing any format into a `Value`
//! (sharing the keys of sibling objects, so that a table's names are held once), and a `Value`
//! as a `Deserializer` (`from_value`, without a detour through text or JSON).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess,
    Visitor,
};

use super::{Map, Number, Value};
use crate::de::KeyDe;
use crate::error::{Error, Result};

/// An object, as serde_json's `Map` deserializes: anything else is an invalid type.
impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Map, D::Error> {
        match Value::deserialize(d)? {
            Value::Object(map) => Ok(map),
            other => {
                use serde::de::Unexpected;
                let unexpected = match &other {
                    Value::Null => Unexpected::Unit,
                    Value::Bool(b) => Unexpected::Bool(*b),
                    Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                        (Some(u), _) => Unexpected::Unsigned(u),
                        (None, Some(i)) => Unexpected::Signed(i),
                        _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
                    },
                    Value::String(s) => Unexpected::Str(s),
                    Value::Array(_) => Unexpected::Seq,
                    Value::Object(_) => Unexpected::Map,
                };
                Err(serde::de::Error::invalid_type(unexpected, &"an object"))
            }
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor {
            siblings: &mut SiblingKeys::default(),
            recent: &mut RecentKeys::new(),
            record: false,
        })
    }
}

/// Slots of [`RecentKeys`].
const RECENT_KEYS: usize = 64;

/// Keys met anywhere in the document, one per slot picked by a cheap hash of the key: a key
/// equal to the one in its slot shares that allocation. Documents repeat a few names at every
/// level (`type`, `name`, `id`), where no sibling at the same position has them. Fixed in
/// size, so no input grows it, and it holds only keys the result holds anyway.
struct RecentKeys([Option<Arc<str>>; RECENT_KEYS]);

impl RecentKeys {
    fn new() -> Self {
        RecentKeys([const { None }; RECENT_KEYS])
    }

    /// `key` as a shared string: the one in its slot when equal, else a new one, which
    /// takes the slot.
    fn share(&mut self, key: &str) -> Arc<str> {
        let slot = &mut self.0[recent_slot(key)];
        match slot {
            Some(known) if **known == *key => Arc::clone(known),
            _ => Arc::clone(slot.insert(Arc::from(key))),
        }
    }
}

/// A key's slot in [`RecentKeys`]: its length and first and last bytes, mixed.
fn recent_slot(key: &str) -> usize {
    let bytes = key.as_bytes();
    let first = u32::from(bytes.first().copied().unwrap_or(0));
    let last = u32::from(bytes.last().copied().unwrap_or(0));
    let mixed = (bytes.len() as u32) ^ (first << 8) ^ (last << 16);
    (mixed.wrapping_mul(0x9E37_79B9) >> 26) as usize % RECENT_KEYS
}

/// The keys of the last object seen at one level of nesting, and the same for the level
/// below. Objects at one level are siblings (the rows of a table, §9.3; the entries of a keyed
/// table, §9.5; their nested groups): a key equal to the one a sibling had at the same position
/// shares that sibling's allocation, so a header's names are held once, not once per row.
///
/// The keys also size a new object at the level when the decoder declares no size (an
/// object's fields are not counted ahead): it gets room for as many entries as the widest
/// sibling had, so that its entries are not regrown (objects in a list mostly have their
/// neighbours' fields), up to [`SIBLING_CAPACITY`].
#[derive(Default)]
struct SiblingKeys {
    keys: Vec<Arc<str>>,
    below: Option<Box<SiblingKeys>>,
}

/// The most entries a map gets room for from its siblings (`Map`'s small vector at most): a
/// wide sibling does not make every small one after it wide.
const SIBLING_CAPACITY: usize = 8;

impl SiblingKeys {
    fn below(&mut self) -> &mut SiblingKeys {
        self.below.get_or_insert_with(Box::default)
    }
}

struct ValueVisitor<'s> {
    siblings: &'s mut SiblingKeys,
    recent: &'s mut RecentKeys,
    /// False for the root, which has no siblings to share with.
    record: bool,
}

struct ValueSeed<'s> {
    siblings: &'s mut SiblingKeys,
    recent: &'s mut RecentKeys,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor {
            siblings: self.siblings,
            recent: self.recent,
            record: true,
        })
    }
}

/// A map key, shared with `hint` (a sibling's key at the same position) when equal, or else
/// with an equal key met lately.
struct KeySeed<'s> {
    hint: Option<&'s Arc<str>>,
    recent: &'s mut RecentKeys,
}

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = Arc<str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Arc<str>, D::Error> {
        // Tells the TOON decoder this key is shared, not copied per row, so it is not charged
        // to the expansion limit; other deserializers see a newtype around a string.
        d.deserialize_newtype_struct(crate::de::key::SHARED_KEY, self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = Arc<str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Arc<str>, D::Error> {
        d.deserialize_str(self)
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Arc<str>, E> {
        Ok(match self.hint {
            Some(hint) if **hint == *v => Arc::clone(hint),
            _ => self.recent.share(v),
        })
    }
}

impl<'de> Visitor<'de> for ValueVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any TOON value")
    }
    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let below = self.siblings.below();
        while let Some(v) = seq.next_element_seed(ValueSeed {
            siblings: &mut *below,
            recent: &mut *self.recent,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Value, A::Error> {
        let SiblingKeys { keys, below } = self.siblings;
        let recent = self.recent;
        let below = below.get_or_insert_with(Box::default);
        let capacity = match map.size_hint() {
            Some(declared) => declared.min(4096),
            None => keys.len().min(SIBLING_CAPACITY),
        };
        let mut out = Map::with_capacity(capacity);
        let mut i = 0;
        while let Some(key) = map.next_key_seed(KeySeed {
            hint: keys.get(i),
            recent: &mut *recent,
        })? {
            if self.record {
                match keys.get_mut(i) {
                    Some(known) if Arc::ptr_eq(known, &key) => {}
                    Some(known) => *known = Arc::clone(&key),
                    None => keys.push(Arc::clone(&key)),
                }
            }
            let v = map.next_value_seed(ValueSeed {
                siblings: below,
                recent: &mut *recent,
            })?;
            out.insert_shared(key, v);
            i += 1;
        }
        Ok(Value::Object(out))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> std::result::Result<Value, E> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Number(b.into())).collect(),
        ))
    }
}

// A `Value` as a `Deserializer`, owned (`from_value`: strings move out) and borrowed
// (`T::deserialize(&value)`: `&str` fields borrow), as serde_json's two. They differ only in
// how a string, an array's elements and an object's entries are handed over; the rest is
// written once, below and in `value_deserializer_common!`.

/// A number as serde's visitors take it: the exact integer where there is one.
fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => visitor.visit_u64(u),
        (None, Some(i)) => visitor.visit_i64(i),
        _ => visitor.visit_f64(n.as_f64().unwrap_or(0.0)),
    }
}

/// An array's elements, all of which the target must take.
fn visit_array<'de, V, I>(iter: I, visitor: V) -> Result<V::Value>
where
    V: Visitor<'de>,
    I: ExactSizeIterator,
    I::Item: de::Deserializer<'de, Error = Error>,
{
    let mut seq = SeqDeserializer { iter };
    let value = visitor.visit_seq(&mut seq)?;
    match seq.iter.len() {
        0 => Ok(value),
        left => Err(Error::data(format!(
            "the target type took fewer elements: {left} left over"
        ))),
    }
}

fn not_an_enum(value: &Value) -> Error {
    Error::data(format!(
        "invalid type: {}, expected an enum as a variant name or an object with one key",
        value.kind()
    ))
}

/// The methods both deserializers share, and their `VariantAccess`.
macro_rules! value_deserializer_common {
    ($ty:ty) => {
        impl<'de> de::Deserializer<'de> for $ty {
            type Error = Error;

            fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
                ValueSource::any(self, visitor)
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
                ValueSource::variant(self, visitor)
            }

            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
                byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
                ignored_any
            }
        }

        impl<'de> IntoDeserializer<'de, Error> for $ty {
            type Deserializer = $ty;
            fn into_deserializer(self) -> $ty {
                self
            }
        }

        impl<'de> de::VariantAccess<'de> for $ty {
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
    };
}

value_deserializer_common!(Value);
value_deserializer_common!(&'de Value);

/// What the owned and the borrowed deserializer do differently: how a value's string,
/// elements and entries are handed to the visitor.
trait ValueSource<'de> {
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value>;
    fn variant<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value>;
}

impl<'de> ValueSource<'de> for Value {
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => visit_number(&n, visitor),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items.into_iter(), visitor),
            Value::Object(map) => visitor.visit_map(MapDeserializer::new(map.into_iter())),
        }
    }

    fn variant<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::String(s) => visitor.visit_enum(s.into_deserializer()),
            Value::Object(map) if map.len() == 1 => {
                let (variant, content) = map.into_iter().next().expect("one entry");
                visitor.visit_enum(Variant { variant, content })
            }
            other => Err(not_an_enum(&other)),
        }
    }
}

/// `T::deserialize(&value)` reads the value in place; `&str` fields borrow from it.
///
/// ```
/// #[derive(serde::Deserialize, Debug, PartialEq)]
/// struct User<'a> { name: &'a str, id: u32 }
/// let value = toon::toon!({"name": "Ada", "id": 1});
/// let user = <User as serde::Deserialize>::deserialize(&value).unwrap();
/// assert_eq!(user, User { name: "Ada", id: 1 });
/// ```
impl<'de> ValueSource<'de> for &'de Value {
    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visit_array(items.iter(), visitor),
            Value::Object(map) => visitor.visit_map(MapDeserializer::new(map.iter())),
        }
    }

    fn variant<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self {
            Value::String(s) => visitor.visit_enum(BorrowedStrDeserializer::<Error>::new(s)),
            Value::Object(map) if map.len() == 1 => {
                let (variant, content) = map.iter().next().expect("one entry");
                visitor.visit_enum(Variant { variant, content })
            }
            other => Err(not_an_enum(other)),
        }
    }
}

/// An array's elements, owned or borrowed.
struct SeqDeserializer<I> {
    iter: I,
}

impl<'de, I> SeqAccess<'de> for SeqDeserializer<I>
where
    I: ExactSizeIterator,
    I::Item: de::Deserializer<'de, Error = Error>,
{
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.iter.next().map(|v| seed.deserialize(v)).transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An object's entries, owned (`String`, `Value`) or borrowed (`&str`, `&Value`).
struct MapDeserializer<I, V> {
    iter: I,
    value: Option<V>,
}

impl<I, V> MapDeserializer<I, V> {
    fn new(iter: I) -> Self {
        MapDeserializer { iter, value: None }
    }
}

impl<'de, I, K, V> MapAccess<'de> for MapDeserializer<I, V>
where
    I: ExactSizeIterator<Item = (K, V)>,
    K: Into<Cow<'de, str>>,
    V: de::Deserializer<'de, Error = Error>,
{
    type Error = Error;
    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        // Keys parse as integers or bools when the target's key type asks for them.
        seed.deserialize(KeyDe(key.into())).map(Some)
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
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

/// `{Variant: content}`: the variant's name as a key, its content as a value.
struct Variant<K, V> {
    variant: K,
    content: V,
}

impl<'de, K, V> de::EnumAccess<'de> for Variant<K, V>
where
    K: Into<Cow<'de, str>>,
    V: de::VariantAccess<'de, Error = Error>,
{
    type Error = Error;
    type Variant = V;
    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, V)> {
        let variant = seed.deserialize(KeyDe(self.variant.into()))?;
        Ok((variant, self.content))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{Map, Value};

    fn shared_named<'v>(value: &'v Value, name: &str, out: &mut Vec<&'v Arc<str>>) {
        match value {
            Value::Object(map) => {
                for (key, value) in map.shared_keys().zip(map.values()) {
                    if &**key == name {
                        out.push(key);
                    }
                    shared_named(value, name, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| shared_named(v, name, out)),
            _ => {}
        }
    }

    /// An object whose size the text does not declare gets room for its widest sibling's
    /// entries (at most eight), so that a list of like objects is not regrown object by
    /// object; the first has no sibling to go by.
    #[test]
    fn objects_get_room_for_their_siblings_entries() {
        fn room(items: Vec<Value>) -> Vec<usize> {
            // Written as a list (§9.4): the item of one key keeps it from being a table.
            let text = crate::to_string(&Value::Array(items)).unwrap();
            assert!(text.contains("- a: 1"), "{text}");
            let Value::Array(items) = crate::from_str::<Value>(&text).unwrap() else {
                panic!("an array: {text}");
            };
            let room = |item: &Value| item.as_object().unwrap().capacity();
            items.iter().map(room).collect()
        }
        let abc = crate::toon!({"a": 1, "b": 2, "c": 3});
        let a = crate::toon!({"a": 1});
        let rooms = room(vec![abc.clone(), abc.clone(), a, abc]);
        assert_eq!(rooms[1..], [3, 3, 3]);
        let mut wide = Map::new();
        wide.insert("a".to_string(), Value::from(1));
        for i in 0..12 {
            wide.insert(format!("k{i}"), Value::from(i));
        }
        let rooms = room(vec![Value::Object(wide), crate::toon!({"a": 1})]);
        assert_eq!(rooms[1], 8);
    }

    /// A key met again at another level or position shares the first one's allocation
    /// (`RecentKeys`), and keys that land in one slot stay apart.
    #[test]
    fn keys_met_lately_are_shared_and_kept_apart() {
        let text = "type: object\nproperties:\n  name:\n    type: string\n  tags:\n    \
                    description: t\n    type: array\n    items[1]:\n      - type: string";
        let value: Value = crate::from_str(text).unwrap();
        let mut found = Vec::new();
        shared_named(&value, "type", &mut found);
        assert_eq!(found.len(), 4);
        assert!(found.iter().all(|k| Arc::ptr_eq(k, found[0])));

        // 2,000 distinct keys over 64 slots, at three levels, each met twice.
        let keys: Vec<String> = (0..2000).map(|i| format!("k{i}")).collect();
        let mut text = String::new();
        for key in &keys {
            text.push_str(&format!("{key}:\n  {key}:\n    {key}: 1\n"));
        }
        let value: Value = crate::from_str(&text).unwrap();
        let Value::Object(root) = &value else {
            panic!("an object");
        };
        let names: Vec<&str> = root.keys().collect();
        assert_eq!(names, keys.iter().map(String::as_str).collect::<Vec<_>>());
        for key in &keys {
            let inner: &Map = match &root[key.as_str()] {
                Value::Object(m) => m,
                other => panic!("{other:?}"),
            };
            assert_eq!(inner.keys().collect::<Vec<_>>(), [key.as_str()]);
            assert_eq!(inner[key.as_str()][key.as_str()], Value::from(1u8));
        }
    }
}
