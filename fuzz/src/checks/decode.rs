//! The decoder on any bytes (`decode_bytes`) and into a typed model with every serde shape
//! (`typed_decode`): Ok or an error placed in the text, never a panic; what decodes
//! re-encodes to text that decodes to the same thing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use toon::Value;

use super::input::{assert_within, split};

/// Any bytes into a `toon::Value` and a `serde_json::Value`.
pub fn bytes(data: &[u8]) {
    let Some(input) = split(data) else {
        return;
    };
    match toon::from_slice_with::<Value>(input.text, &input.options) {
        Ok(value) => {
            let again = toon::to_string(&value).expect("a decoded value encodes");
            let back: Value = toon::from_str(&again).expect("encoder output decodes");
            assert_eq!(
                toon::to_string(&back).unwrap(),
                again,
                "re-encoding is stable"
            );
        }
        Err(err) => {
            if let Ok(text) = std::str::from_utf8(input.text) {
                assert_within(text, err.line(), err.column(), &err);
            }
        }
    }
    let _ = toon::from_slice_with::<serde_json::Value>(input.text, &input.options);
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Kind {
    A,
    B(i32),
    C { x: Option<u8>, y: String },
    D(u8, bool),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(tag = "t")]
enum Tagged {
    P { v: i64 },
    Q { w: Vec<u8> },
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Loose {
    N(u64),
    S(String),
    L(Vec<Loose>),
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Row {
    id: u32,
    name: String,
    score: Option<f64>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Model {
    id: Option<u64>,
    kind: Option<Kind>,
    rows: Option<Vec<Row>>,
    map: Option<BTreeMap<String, Tagged>>,
    loose: Option<Loose>,
    pairs: Option<Vec<(i16, String)>>,
    big: Option<i128>,
}

/// Any bytes into a derive model; non-strict mode reaches last-write-wins for structs (a
/// lookahead over sibling lines).
pub fn typed(data: &[u8]) {
    let Some(input) = split(data) else {
        return;
    };
    let (text, options) = (input.text, &input.options);
    if let Ok(model) = toon::from_slice_with::<Model>(text, options) {
        let again = toon::to_string(&model).expect("a decoded model encodes");
        let back: Model = toon::from_str(&again).unwrap_or_else(|e| panic!("{e}\n{again}"));
        if model
            .rows
            .iter()
            .flatten()
            .all(|r| r.score.is_none_or(|s| !s.is_nan()))
        {
            assert_eq!(back, model);
        }
    }
    let _ = toon::from_slice_with::<Vec<Row>>(text, options);
    let _ = toon::from_slice_with::<BTreeMap<String, Kind>>(text, options);
}
