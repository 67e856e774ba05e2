//! Arbitrary text into a typed model with every serde shape: never panics, and what decodes
//! re-encodes to text that decodes to the same model.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use serde::{Deserialize, Serialize};

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

fuzz_target!(|data: &[u8]| {
    let Some((&flags, data)) = data.split_first() else {
        return;
    };
    // Non-strict mode reaches last-write-wins for structs (a lookahead over sibling lines).
    let options = toon::DecodeOptions::new().strict(flags & 1 == 0);
    if let Ok(model) = toon::from_slice_with::<Model>(data, &options) {
        let text = toon::to_string(&model).expect("a decoded model encodes");
        let back: Model = toon::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        if model
            .rows
            .iter()
            .flatten()
            .all(|r| r.score.is_none_or(|s| !s.is_nan()))
        {
            assert_eq!(back, model);
        }
    }
    let _ = toon::from_slice_with::<Vec<Row>>(data, &options);
    let _ = toon::from_slice_with::<BTreeMap<String, Kind>>(data, &options);
});
