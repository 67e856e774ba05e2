//! Decoding into `toon::Value` peaks no higher than serde_json decoding the same data into
//! `serde_json::Value` (with `preserve_order`, the order-keeping model `toon::Value` matches),
//! on every benchmark data set. Measured with a counting allocator (this test's own
//! thread).
//!
//! This crate's features leave serde_json's defaults alone (`tests/repo/features.rs`), so
//! `serde_json::Value` here keeps its keys in a `BTreeMap`; [`Ordered`] is that `Value` as
//! `preserve_order` builds it.

use crate::common;
use crate::counting::peak_during;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// `serde_json::Value` with `preserve_order`: the same variants, an object an `IndexMap` with
/// std's `RandomState` (serde_json's `Map` is a newtype around it), and built as serde_json's
/// visitor builds it (no capacity from size hints; each entry inserted).
#[allow(dead_code)]
enum Ordered {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Ordered>),
    Object(indexmap::IndexMap<String, Ordered, std::hash::RandomState>),
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        struct V;
        /// `visit_*` methods that make a value of what they are given.
        macro_rules! scalars {
            ($($visit:ident($ty:ty) => $make:expr;)*) => {$(
                fn $visit<E>(self, v: $ty) -> Result<Ordered, E> {
                    Ok($make(v))
                }
            )*};
        }
        impl<'de> Visitor<'de> for V {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            scalars! {
                visit_bool(bool) => Ordered::Bool;
                visit_i64(i64) => |v: i64| Ordered::Number(v.into());
                visit_u64(u64) => |v: u64| Ordered::Number(v.into());
                visit_f64(f64) => |v| serde_json::Number::from_f64(v).map_or(Ordered::Null, Ordered::Number);
                visit_str(&str) => |v: &str| Ordered::String(v.to_owned());
                visit_string(String) => Ordered::String;
            }
            fn visit_unit<E>(self) -> Result<Ordered, E> {
                Ok(Ordered::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
                let mut vec = Vec::new();
                while let Some(elem) = seq.next_element()? {
                    vec.push(elem);
                }
                Ok(Ordered::Array(vec))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut values = indexmap::IndexMap::with_hasher(std::hash::RandomState::new());
                while let Some((key, value)) = map.next_entry()? {
                    values.insert(key, value);
                }
                Ok(Ordered::Object(values))
            }
        }
        d.deserialize_any(V)
    }
}

#[test]
fn decoding_into_value_peaks_no_higher_than_serde_json() {
    let dir = common::datasets_dir();
    for name in common::DATASETS {
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let toon_text = std::fs::read_to_string(dir.join(format!("{name}.toon"))).unwrap();
        let ours = peak_during(|| {
            let value: toon::Value = toon::from_str(&toon_text).unwrap();
            drop(std::hint::black_box(value));
        });
        let theirs = peak_during(|| {
            let value: Ordered = serde_json::from_str(&json).unwrap();
            drop(std::hint::black_box(value));
        });
        eprintln!("{name}: toon::Value peak {ours}, serde_json::Value peak {theirs}");
        assert!(
            ours <= theirs,
            "{name}: decoding into toon::Value peaked at {ours} bytes, serde_json at {theirs}"
        );
    }
}
