//! Conversions into [`Value`] from Rust primitives, collections and `serde_json::Value`, and
//! back into `serde_json::Value`.

use super::{Map, Number, Value};

macro_rules! from_number {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::Number(v.into())
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

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n.into()),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(a) => Value::Array(a.into_iter().map(Value::from).collect()),
            serde_json::Value::Object(o) => Value::Object(o.into()),
        }
    }
}

/// A serde_json object as a [`Map`], in the order serde_json iterates it (sorted by key
/// unless serde_json's `preserve_order` is on in the build).
impl From<serde_json::Map<String, serde_json::Value>> for Map {
    fn from(o: serde_json::Map<String, serde_json::Value>) -> Map {
        o.into_iter().map(|(k, v)| (k, Value::from(v))).collect()
    }
}

/// A serde_json object as [`Value::Object`].
///
/// ```
/// let mut o = serde_json::Map::new();
/// o.insert("a".into(), serde_json::json!([1]));
/// assert_eq!(toon::Value::from(o), toon::toon!({"a": [1]}));
/// ```
impl From<serde_json::Map<String, serde_json::Value>> for Value {
    fn from(o: serde_json::Map<String, serde_json::Value>) -> Value {
        Value::Object(o.into())
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
