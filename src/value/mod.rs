//! `Value`: any TOON (JSON data model) value, with an order-preserving object type.

mod deserializer;
mod document;
mod exact_json;
pub mod map;
mod number;
mod serializer;

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

pub use document::{Document, DocumentSample};
pub use map::Map;
pub use number::Number;

/// Any TOON value: the JSON data model (§2).
///
/// `Display` writes TOON; `FromStr` decodes TOON (strict).
///
/// ```
/// use toon::{toon, Value};
/// let v = toon!({"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]});
/// assert_eq!(v.to_string(), "users[2]{id,name}:\n  1,Ada\n  2,Bob");
/// let back: Value = v.to_string().parse().unwrap();
/// assert_eq!(back, v);
/// assert_eq!(back["users"][1]["name"], "Bob");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object; key order is preserved.
    Object(Map),
}

static NULL: Value = Value::Null;

impl Value {
    /// `"null"`, `"boolean"`, `"number"`, `"string"`, `"array"` or `"object"`.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Looks up an object key or array index; `None` if absent or of the wrong kind.
    ///
    /// ```
    /// let v = toon::toon!({"a": [10, 20]});
    /// assert_eq!(v.get("a").and_then(|a| a.get(1)), Some(&toon::Value::from(20)));
    /// ```
    #[must_use]
    pub fn get<I: Index>(&self, index: I) -> Option<&Value> {
        index.index_into(self)
    }

    /// True for `null`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for `true` and `false`.
    #[must_use]
    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    /// True for numbers.
    #[must_use]
    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    /// True for strings.
    #[must_use]
    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    /// True for arrays.
    #[must_use]
    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    /// True for objects.
    #[must_use]
    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Looks up a value by JSON Pointer (RFC 6901), as `serde_json::Value::pointer`.
    ///
    /// ```
    /// let v = toon::toon!({"users": [{"name": "Ada"}], "a/b": {"~": 1}});
    /// assert_eq!(v.pointer("/users/0/name"), Some(&toon::Value::from("Ada")));
    /// assert_eq!(v.pointer("/a~1b/~0"), Some(&toon::Value::from(1)));
    /// assert_eq!(v.pointer(""), Some(&v));
    /// assert_eq!(v.pointer("/users/1"), None);
    /// ```
    #[must_use]
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').try_fold(self, |value, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match value {
                Value::Object(map) => map.get(token.as_str()),
                Value::Array(items) => {
                    // RFC 6901: array indexes are decimal without leading zeros.
                    if token.len() > 1 && token.starts_with('0') {
                        return None;
                    }
                    items.get(token.parse::<usize>().ok()?)
                }
                _ => None,
            }
        })
    }

    /// Mutable lookup by JSON Pointer (RFC 6901), as `serde_json::Value::pointer_mut`.
    ///
    /// ```
    /// let mut v = toon::toon!({"users": [{"name": "Ada"}]});
    /// *v.pointer_mut("/users/0/name").unwrap() = toon::Value::from("Grace");
    /// assert_eq!(v["users"][0]["name"], "Grace");
    /// ```
    #[must_use]
    pub fn pointer_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').try_fold(self, |value, token| {
            let token = token.replace("~1", "/").replace("~0", "~");
            match value {
                Value::Object(map) => map.get_mut(token.as_str()),
                Value::Array(items) => {
                    if token.len() > 1 && token.starts_with('0') {
                        return None;
                    }
                    items.get_mut(token.parse::<usize>().ok()?)
                }
                _ => None,
            }
        })
    }

    /// Takes the value out, leaving `Null`.
    ///
    /// ```
    /// let mut v = toon::toon!({"a": [1]});
    /// let a = v["a"].take();
    /// assert_eq!(a, toon::toon!([1]));
    /// assert!(v["a"].is_null());
    /// ```
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }

    /// The boolean, if this is one.
    #[must_use]
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if this is one.
    #[must_use]
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as `i64`, if it is an integer in range.
    #[must_use]
    pub fn as_i64(&self) -> Option<i64> {
        self.as_number().and_then(Number::as_i64)
    }

    /// The number as `u64`, if it is a non-negative integer in range.
    #[must_use]
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    /// The number as `f64`.
    #[must_use]
    pub fn as_f64(&self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// The string, if this is one.
    #[must_use]
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The array, if this is one.
    #[must_use]
    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The array, mutably.
    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The object, if this is one.
    #[must_use]
    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The object, mutably.
    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }
}

/// Types that can index into a [`Value`]: `str` keys and `usize` positions.
pub trait Index: private::Sealed {
    #[doc(hidden)]
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value>;
    #[doc(hidden)]
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value;
}

mod private {
    pub trait Sealed {}
    impl Sealed for usize {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl<T: ?Sized + Sealed> Sealed for &T {}
}

impl Index for usize {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_array().and_then(|a| a.get(*self))
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        match v {
            Value::Array(items) => {
                let len = items.len();
                items.get_mut(*self).unwrap_or_else(|| {
                    panic!("cannot access index {self} of an array of length {len}")
                })
            }
            other => panic!("cannot access index {self} of a {}", other.kind()),
        }
    }
}
impl Index for str {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        v.as_object().and_then(|o| o.get(self))
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        if v.is_null() {
            *v = Value::Object(Map::new());
        }
        match v {
            Value::Object(map) => {
                if !map.contains_key(self) {
                    map.insert(self.to_owned(), Value::Null);
                }
                map.get_mut(self).expect("inserted above")
            }
            other => panic!("cannot access key {self:?} of a {}", other.kind()),
        }
    }
}
impl Index for String {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        self.as_str().index_into(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        self.as_str().index_or_insert(v)
    }
}
impl<T: ?Sized + Index> Index for &T {
    fn index_into<'v>(&self, v: &'v Value) -> Option<&'v Value> {
        (**self).index_into(v)
    }
    fn index_or_insert<'v>(&self, v: &'v mut Value) -> &'v mut Value {
        (**self).index_or_insert(v)
    }
}

impl<I: Index> std::ops::Index<I> for Value {
    type Output = Value;
    /// Like `serde_json`: a missing key or index yields `Null` rather than panicking.
    fn index(&self, index: I) -> &Value {
        index.index_into(self).unwrap_or(&NULL)
    }
}

impl<I: Index> std::ops::IndexMut<I> for Value {
    /// Like `serde_json`: a missing object key is inserted as `Null` (and `Null` becomes an
    /// object); an index out of bounds or into the wrong kind of value panics, as `Vec` does.
    ///
    /// ```
    /// let mut v = toon::Value::Null;
    /// v["user"]["name"] = "Ada".into();
    /// assert_eq!(v.to_string(), "user:\n  name: Ada");
    /// ```
    fn index_mut(&mut self, index: I) -> &mut Value {
        index.index_or_insert(self)
    }
}

impl fmt::Display for Value {
    /// Writes the value as TOON with default options.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = crate::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl std::str::FromStr for Value {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Value> {
        crate::from_str(s)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(v) => s.serialize_str(v),
            Value::Array(a) => a.serialize(s),
            Value::Object(o) => o.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// An object, as serde_json's `Map` deserializes: anything else is an invalid type.
impl<'de> Deserialize<'de> for Map {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
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
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor {
            shape: &mut Shape::default(),
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
struct Shape {
    keys: Vec<Arc<str>>,
    below: Option<Box<Shape>>,
}

/// The most entries a map gets room for from its siblings (`Map`'s small vector at most): a
/// wide sibling does not make every small one after it wide.
const SIBLING_CAPACITY: usize = 8;

impl Shape {
    fn below(&mut self) -> &mut Shape {
        self.below.get_or_insert_with(Box::default)
    }
}

struct ValueVisitor<'s> {
    shape: &'s mut Shape,
    recent: &'s mut RecentKeys,
    /// False for the root, which has no siblings to share with.
    record: bool,
}

struct ValueSeed<'s> {
    shape: &'s mut Shape,
    recent: &'s mut RecentKeys,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor {
            shape: self.shape,
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
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Arc<str>, D::Error> {
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
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Arc<str>, D::Error> {
        d.deserialize_str(self)
    }
    fn visit_str<E>(self, v: &str) -> Result<Arc<str>, E> {
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
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        let below = self.shape.below();
        while let Some(v) = seq.next_element_seed(ValueSeed {
            shape: &mut *below,
            recent: &mut *self.recent,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let Shape { keys, below } = self.shape;
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
                shape: below,
                recent: &mut *recent,
            })?;
            out.insert_shared(key, v);
            i += 1;
        }
        Ok(Value::Object(out))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Number(b.into())).collect(),
        ))
    }
}

macro_rules! from_number {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::Number(v.into())
            }
        }
        impl PartialEq<$t> for Value {
            fn eq(&self, other: &$t) -> bool {
                matches!(self, Value::Number(n) if *n == Number::from(*other))
            }
        }
    )*};
}
from_number!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl From<f64> for Value {
    /// NaN and ±∞ become `Null` (§3).
    fn from(v: f64) -> Value {
        Number::from_f64(v).map_or(Value::Null, Value::Number)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::from(v as f64)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::String(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::String(v.to_owned())
    }
}
impl From<()> for Value {
    fn from((): ()) -> Value {
        Value::Null
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}
impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::Array(v.into_iter().map(Into::into).collect())
    }
}
impl From<Map> for Value {
    fn from(v: Map) -> Value {
        Value::Object(v)
    }
}
impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}
impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}
impl PartialEq<bool> for Value {
    fn eq(&self, other: &bool) -> bool {
        self.as_bool() == Some(*other)
    }
}

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, Value::from(v))).collect())
            }
        }
    }
}

impl From<Value> for serde_json::Value {
    fn from(v: Value) -> serde_json::Value {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => serde_json::Value::Number(n.into()),
            Value::String(s) => serde_json::Value::String(s),
            Value::Array(a) => {
                serde_json::Value::Array(a.into_iter().map(serde_json::Value::from).collect())
            }
            Value::Object(o) => serde_json::Value::Object(
                o.into_iter()
                    .map(|(k, v)| (k, serde_json::Value::from(v)))
                    .collect(),
            ),
        }
    }
}

/// Converts any `Serialize` value to a [`Value`], following serde_json's data model.
///
/// Integers beyond 64 bits are not representable in `Value` and produce an error
/// (`toon::to_string` writes them exactly).
///
/// ```
/// #[derive(serde::Serialize)]
/// struct P { x: i32, tags: Vec<&'static str> }
/// let v = toon::to_value(&P { x: 1, tags: vec!["a"] }).unwrap();
/// assert_eq!(v, toon::toon!({"x": 1, "tags": ["a"]}));
/// assert!(toon::to_value(&u128::MAX).is_err());
/// ```
///
/// # Errors
///
/// What `value`'s `Serialize` implementation reports (a map key that is not a string, number
/// or boolean, a custom error).
pub fn to_value<T: ?Sized + Serialize>(value: &T) -> crate::Result<Value> {
    value.serialize(serializer::ValueSerializer)
}

/// Converts a [`Value`] into any `Deserialize` type (`Value` is itself a serde
/// `Deserializer`).
///
/// ```
/// use std::collections::BTreeMap;
/// #[derive(serde::Deserialize, PartialEq, Debug)]
/// enum Kind { A, B(u8) }
/// #[derive(serde::Deserialize, PartialEq, Debug)]
/// struct P { x: i32, kinds: Vec<Kind>, by_id: BTreeMap<u32, bool> }
/// let v = toon::toon!({"x": 1, "kinds": ["A", {"B": 2}], "by_id": {"7": true}});
/// let p: P = toon::from_value(v).unwrap();
/// assert_eq!(p, P { x: 1, kinds: vec![Kind::A, Kind::B(2)], by_id: [(7, true)].into() });
/// ```
///
/// # Errors
///
/// `value` does not fit `T` (a missing field, a wrong type), as [`Category::Data`](crate::Category::Data).
pub fn from_value<T: de::DeserializeOwned>(value: Value) -> crate::Result<T> {
    T::deserialize(value)
}

/// Builds a [`Value`] from JSON-like syntax, like `serde_json::json!`.
///
/// ```
/// let name = "Ada";
/// let v = toon::toon!({"id": 1, "name": name, "tags": ["a", null, true], "meta": {}});
/// assert_eq!(v.to_string(), "id: 1\nname: Ada\ntags[3]: a,null,true\nmeta:");
/// ```
#[macro_export]
macro_rules! toon {
    (null) => { $crate::Value::Null };
    ([]) => { $crate::Value::Array(::std::vec::Vec::new()) };
    ([ $($tt:tt)+ ]) => {
        $crate::Value::Array($crate::__toon_array!([] [] $($tt)+))
    };
    ({}) => { $crate::Value::Object($crate::Map::new()) };
    ({ $($tt:tt)+ }) => {{
        let mut map = $crate::Map::new();
        $crate::__toon_object!(map () $($tt)+);
        $crate::Value::Object(map)
    }};
    ($other:expr) => {
        $crate::to_value(&$other).expect("toon!: value must be representable as a toon::Value")
    };
}

/// Element muncher for [`toon!`]: collects the tokens of one element up to a comma.
#[macro_export]
#[doc(hidden)]
macro_rules! __toon_array {
    ([$($done:expr,)*] [$($cur:tt)+] , $($rest:tt)*) => {
        $crate::__toon_array!([$($done,)* $crate::toon!($($cur)+),] [] $($rest)*)
    };
    ([$($done:expr,)*] [$($cur:tt)*] $next:tt $($rest:tt)*) => {
        $crate::__toon_array!([$($done,)*] [$($cur)* $next] $($rest)*)
    };
    ([$($done:expr,)*] [$($cur:tt)+]) => {
        ::std::vec![$($done,)* $crate::toon!($($cur)+)]
    };
    ([$($done:expr,)*] []) => {
        ::std::vec![$($done,)*]
    };
}

/// Entry muncher for [`toon!`]: `key: value` pairs separated by commas.
#[macro_export]
#[doc(hidden)]
macro_rules! __toon_object {
    ($map:ident ()) => {};
    ($map:ident () $key:tt : $($rest:tt)+) => {
        $crate::__toon_object!($map [$key] [] $($rest)+)
    };
    ($map:ident [$key:tt] [$($cur:tt)+] , $($rest:tt)*) => {
        $map.insert(::std::string::String::from($key), $crate::toon!($($cur)+));
        $crate::__toon_object!($map () $($rest)*)
    };
    ($map:ident [$key:tt] [$($cur:tt)*] $next:tt $($rest:tt)*) => {
        $crate::__toon_object!($map [$key] [$($cur)* $next] $($rest)*)
    };
    ($map:ident [$key:tt] [$($cur:tt)+]) => {
        $map.insert(::std::string::String::from($key), $crate::toon!($($cur)+));
    };
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{Map, Value};

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
