//! `Value`: any TOON (JSON data model) value, with an order-preserving object type.
//!
//! Laid out as serde_json's `value` module: [`Value`] and its accessors here, lookups by key
//! or position in `index.rs`, conversions in `from.rs`, comparisons with primitives in
//! `partial_eq.rs`, `Value` from and as serde's data model in `de.rs` and `ser.rs`, and the
//! `Map` of objects in `map.rs`. `recording.rs` is a different, read-only recording of a value
//! for conversions (with `exact_json.rs`, its exact-number JSON parse).

mod de;
mod exact_json;
mod from;
mod index;
pub mod map;
mod number;
mod partial_eq;
mod recording;
mod repeated_keys;
mod ser;

use std::fmt;

use serde::de::DeserializeOwned;
use serde::ser::Serialize;

pub use index::Index;
pub use map::Map;
pub use number::Number;
pub use recording::{Recording, RecordingSample};

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

    /// Looks up an object key or array index, mutably; `None` if absent or of the wrong kind.
    ///
    /// ```
    /// let mut v = toon::toon!({"a": [10, 20]});
    /// *v.get_mut("a").and_then(|a| a.get_mut(1)).unwrap() = toon::Value::from(21);
    /// assert_eq!(v["a"][1], 21);
    /// ```
    pub fn get_mut<I: Index>(&mut self, index: I) -> Option<&mut Value> {
        index.index_into_mut(self)
    }

    /// True for `null`.
    #[must_use]
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// `Some(())` for `null`.
    #[must_use]
    pub fn as_null(&self) -> Option<()> {
        self.is_null().then_some(())
    }

    /// True for an integer that fits `i64`.
    #[must_use]
    pub fn is_i64(&self) -> bool {
        self.as_number().is_some_and(Number::is_i64)
    }

    /// True for an integer that fits `u64`.
    #[must_use]
    pub fn is_u64(&self) -> bool {
        self.as_number().is_some_and(Number::is_u64)
    }

    /// True for a number held as a float (one with a fraction or an exponent beyond the
    /// 64-bit integers).
    #[must_use]
    pub fn is_f64(&self) -> bool {
        self.as_number().is_some_and(Number::is_f64)
    }

    /// Sorts the keys of every object in the value, at every depth (as serde_json's
    /// `sort_all_objects`): a canonical order for comparing or hashing text.
    ///
    /// ```
    /// let mut v = toon::toon!({"b": 1, "a": {"d": 2, "c": 3}});
    /// v.sort_all_objects();
    /// assert_eq!(v.to_string(), "a:\n  c: 3\n  d: 2\nb: 1");
    /// ```
    pub fn sort_all_objects(&mut self) {
        // An explicit stack: the nesting of a decoded value is bounded by `max_depth`, but a
        // value built in code is not, and this must not overflow the call stack.
        let mut stack = vec![self];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(map) => {
                    map.sort_keys();
                    stack.extend(map.values_mut());
                }
                Value::Array(items) => stack.extend(items.iter_mut()),
                _ => {}
            }
        }
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

impl fmt::Display for Value {
    /// Writes the value as TOON with default options.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = crate::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

/// Parses TOON text (strict, default options), as [`crate::from_str`] does.
///
/// The text is TOON, not JSON: most JSON is also valid TOON with another meaning, so
/// `"{\"a\": 1}".parse::<Value>()` succeeds with one key, `{"a"`. Parse JSON with
/// [`crate::json::from_str`].
///
/// ```
/// let v: toon::Value = "a: 1\nb[2]: x,y".parse().unwrap();
/// assert_eq!(v, toon::toon!({"a": 1, "b": ["x", "y"]}));
/// let trap: toon::Value = r#"{"a": 1}"#.parse().unwrap();
/// assert_eq!(trap.as_object().unwrap().keys().next(), Some(r#"{"a""#));
/// ```
impl std::str::FromStr for Value {
    type Err = crate::Error;
    fn from_str(s: &str) -> crate::Result<Value> {
        crate::from_str(s)
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
    value.serialize(ser::ValueSerializer)
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
pub fn from_value<T: DeserializeOwned>(value: Value) -> crate::Result<T> {
    T::deserialize(value)
}
