//! `Document`: a compact, read-only recording of one value, for converting large inputs.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};

use crate::ser::tape::{Ev, Node, Tape};

/// Any value of the JSON data model, recorded compactly: 16 bytes per scalar, key and
/// container, and all text in one buffer. It deserializes from any self-describing format
/// (JSON, TOON, ...) and serializes as often as needed, in order. It cannot be inspected or
/// changed; use [`Value`](crate::Value) for that.
///
/// This is what converting a large document needs: TOON's layout looks at each array twice
/// (§9.3, is every element a uniform object?), so the input must be held somewhere, and a
/// `Document` holds it in about a fifth of a `Value`'s memory (JSON of the benchmark data sets:
/// 1.8–2.6× its text, where `Value` takes 9–14×).
///
/// ```
/// let doc: toon::Document = serde_json::from_str(r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#).unwrap();
/// assert_eq!(toon::to_string(&doc).unwrap(), "users[2]{id,name}:\n  1,Ada\n  2,Bob");
/// assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Bob"}]}"#);
/// ```
#[derive(Clone, Default)]
pub struct Document {
    tape: Tape,
}

impl Document {
    /// Bytes this document holds (its events and its text), not counting spare capacity.
    ///
    /// ```
    /// let doc: toon::Document = serde_json::from_str("[1,2,3]").unwrap();
    /// assert_eq!(doc.size(), 4 * 16);
    /// ```
    #[must_use]
    pub fn size(&self) -> usize {
        self.tape.ev.len() * std::mem::size_of::<Ev>() + self.tape.text.len()
    }
}

impl fmt::Debug for Document {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Document")
            .field("events", &self.tape.ev.len())
            .field("text_bytes", &self.tape.text.len())
            .finish()
    }
}

impl Serialize for Document {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.tape.ev.is_empty() {
            // `Document::default()`: nothing recorded.
            return serializer.serialize_unit();
        }
        Node {
            tape: &self.tape,
            at: 0,
        }
        .serialize(serializer)
    }
}

impl<'de> de::Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut tape = Tape::default();
        Record(&mut tape).deserialize(deserializer)?;
        tape.ev.shrink_to_fit();
        tape.text.shrink_to_fit();
        Ok(Document { tape })
    }
}

/// Records one value (and everything in it) at the end of the tape.
struct Record<'t>(&'t mut Tape);

impl<'de> DeserializeSeed<'de> for Record<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Record<'_> {
    fn scalar<E>(self, ev: Ev) -> Result<(), E> {
        self.0.ev.push(ev);
        Ok(())
    }

    fn text<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for Record<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value of the JSON data model")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.scalar(Ev::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.scalar(Ev::I64(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.scalar(Ev::U64(v))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<(), E> {
        self.0.push_i128(v).map_err(E::custom)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<(), E> {
        self.0.push_u128(v).map_err(E::custom)
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.scalar(Ev::F64(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.text(v)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.0.push_bytes(v).map_err(E::custom)
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar(Ev::Null)
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.scalar(Ev::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let tape = self.0;
        let at = tape.open(false);
        let mut count = 0u32;
        while seq.next_element_seed(Record(&mut *tape))?.is_some() {
            count = count.checked_add(1).ok_or_else(too_many::<A::Error>)?;
        }
        tape.close(at, count).map_err(de::Error::custom)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tape = self.0;
        let at = tape.open(true);
        let mut count = 0u32;
        while map.next_key_seed(Key(&mut *tape))?.is_some() {
            map.next_value_seed(Record(&mut *tape))?;
            count = count.checked_add(1).ok_or_else(too_many::<A::Error>)?;
        }
        tape.close(at, count).map_err(de::Error::custom)
    }
}

fn too_many<E: de::Error>() -> E {
    E::custom("an array or object with more than 4294967295 entries")
}

/// Records an object key: a string, or an integer or boolean key's text (as serde_json does).
struct Key<'t>(&'t mut Tape);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Key<'_> {
    fn key<E: de::Error>(self, key: &str) -> Result<(), E> {
        self.0.push_key(key).map_err(E::custom)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.key(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.key(if v { "true" } else { "false" })
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.key(itoa::Buffer::new().format(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.key(itoa::Buffer::new().format(v))
    }
    fn visit_char<E: de::Error>(self, v: char) -> Result<(), E> {
        self.key(v.encode_utf8(&mut [0; 4]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Value, toon};

    #[test]
    fn replays_what_it_recorded_in_order() {
        let json =
            r#"{"b":[1,-2,3.5,"x",null,true,{"k":[]},{}],"a":18446744073709551615,"e\n":"\u00e9"}"#;
        let doc: Document = serde_json::from_str(json).unwrap();
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            json.replace("\\u00e9", "é")
        );
        let value: Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            crate::to_string(&doc).unwrap(),
            crate::to_string(&value).unwrap()
        );
    }

    #[test]
    fn records_from_toon_too() {
        let doc: Document = crate::from_str("rows[2]{id,name}:\n  1,Ada\n  2,Bob").unwrap();
        assert_eq!(
            crate::to_value(&doc).unwrap(),
            toon!({"rows": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Bob"}]})
        );
    }

    #[test]
    fn integer_keys_become_text() {
        let doc: Document = crate::from_value(toon!({"1": "a"})).unwrap_or_else(|_| unreachable!());
        assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"1":"a"}"#);
        let map: std::collections::BTreeMap<u32, bool> = [(7, true)].into();
        let doc: Document = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
        assert_eq!(serde_json::to_string(&doc).unwrap(), r#"{"7":true}"#);
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(crate::to_string(&Document::default()).unwrap(), "null");
    }
}
