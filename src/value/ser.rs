//! `Value` and serde's data model, the encoding way: `Serialize` for [`Value`] and [`Map`], and a
//! `Serializer` that builds a `Value` (`to_value`, without a detour through JSON).

use serde::ser::{self, Serialize};

use super::{Map, Number, Value};
use crate::error::{Error, Result};
use crate::ser::key_string;

impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
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
    fn serialize<S: ser::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// Serializes into a [`Value`], following serde_json's data model.
pub(crate) struct ValueSerializer;

fn out_of_range(v: impl std::fmt::Display) -> Error {
    Error::data(format!(
        "integer {v} does not fit toon::Value, which holds 64-bit integers (toon::to_string \
         writes it exactly)"
    ))
}

fn key_of<T: ?Sized + Serialize>(key: &T) -> Result<String> {
    key_string(key)
}

impl ser::Serializer for ValueSerializer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = Elements;
    type SerializeTuple = Elements;
    type SerializeTupleStruct = Elements;
    type SerializeTupleVariant = Elements;
    type SerializeMap = MapSerializer;
    type SerializeStruct = MapSerializer;
    type SerializeStructVariant = MapSerializer;

    fn serialize_bool(self, v: bool) -> Result<Value> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_i128(self, v: i128) -> Result<Value> {
        if let Ok(small) = i64::try_from(v) {
            Ok(small.into())
        } else {
            u64::try_from(v)
                .map(Value::from)
                .map_err(|_| out_of_range(v))
        }
    }
    fn serialize_u8(self, v: u8) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<Value> {
        Ok(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<Value> {
        u64::try_from(v)
            .map(Value::from)
            .map_err(|_| out_of_range(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Value> {
        // The f32's own shortest digits, not its widened f64 value (0.1f32 stays 0.1).
        let shortest: f64 = v.to_string().parse().unwrap_or(f64::NAN);
        Ok(Number::from_f64(shortest).map_or(Value::Null, Value::Number))
    }
    fn serialize_f64(self, v: f64) -> Result<Value> {
        Ok(Value::from(v))
    }
    fn serialize_char(self, v: char) -> Result<Value> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value> {
        Ok(Value::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value> {
        Ok(Value::Array(v.iter().map(|&b| Value::from(b)).collect()))
    }
    fn serialize_none(self) -> Result<Value> {
        Ok(Value::Null)
    }
    transparent!();
    fn serialize_unit(self) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value> {
        Ok(Value::String(variant.to_owned()))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value> {
        let mut map = Map::with_capacity(1);
        map.insert(variant.to_owned(), value.serialize(self)?);
        Ok(Value::Object(map))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Elements> {
        Ok(Elements {
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Elements> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Elements> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Elements> {
        let mut elements = self.serialize_seq(Some(len))?;
        elements.variant = Some(variant);
        Ok(elements)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapSerializer> {
        Ok(MapSerializer {
            map: Map::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapSerializer> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapSerializer> {
        let mut fields = self.serialize_map(Some(len))?;
        fields.variant = Some(variant);
        Ok(fields)
    }
}

/// Wraps a variant's content as `{variant: content}`.
fn tagged(variant: Option<&'static str>, content: Value) -> Value {
    match variant {
        Some(name) => {
            let mut map = Map::with_capacity(1);
            map.insert(name.to_owned(), content);
            Value::Object(map)
        }
        None => content,
    }
}

pub(crate) struct Elements {
    items: Vec<Value>,
    variant: Option<&'static str>,
}

elements! {
    impl[] for Elements {
        Ok = Value, Error = Error;
        element(this, value) => {
            this.items.push(value.serialize(ValueSerializer)?);
            Ok(())
        };
        end(this) => Ok(tagged(this.variant, Value::Array(this.items)));
    }
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
}

pub(crate) struct MapSerializer {
    map: Map,
    key: Option<String>,
    variant: Option<&'static str>,
}

impl ser::SerializeMap for MapSerializer {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key_of(key)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error::data("a map value was serialized before its key"))?;
        self.map.insert(key, value.serialize(ValueSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Value> {
        Ok(tagged(self.variant, Value::Object(self.map)))
    }
}

fields! {
    impl[] for MapSerializer {
        Ok = Value, Error = Error;
        field(this, key, value) => {
            this.map
                .insert(key.to_owned(), value.serialize(ValueSerializer)?);
            Ok(())
        };
        end(this) => Ok(tagged(this.variant, Value::Object(this.map)));
    }
}
