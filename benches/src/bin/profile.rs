//! Runs one operation on one input N times, for instruction counts under callgrind:
//!
//! `valgrind --tool=callgrind target/release/profile decode-typed nested 3`
//!
//! Operations: `encode`, `encode-writer` (`to_writer` into a reused `Vec`), `decode-typed`,
//! `decode-value` (toon::Value), `decode-json` (serde_json::Value), `events` and
//! `events-reader` (`toon::stream::from_str` and `Events`, every event taken), and the same with a
//! `json-` prefix for serde_json's own parse or print of the compact JSON (the baseline). Inputs: the data set names, `deep`, and `NAME×10`.

use std::hint::black_box;

use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::{base_datasets, deep_document, scaled, with_model, Dataset, Visit};

struct Run {
    op: String,
    iterations: usize,
}

impl Visit for Run {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        let (json, text) = (data.json.as_str(), data.toon.as_str());
        let mut written = Vec::with_capacity(json.len());
        for _ in 0..self.iterations {
            match self.op.as_str() {
                "encode" => drop(black_box(toon::to_string(&typed).unwrap())),
                "encode-writer" => {
                    written.clear();
                    toon::to_writer(&mut written, &typed).unwrap();
                    black_box(&written);
                }
                "decode-typed" => drop(black_box(toon::from_str::<T>(text).unwrap())),
                "decode-value" => drop(black_box(toon::from_str::<toon::Value>(text).unwrap())),
                "events" => {
                    for event in toon::stream::from_str(text) {
                        drop(black_box(event.unwrap()));
                    }
                }
                "events-reader" => {
                    for event in toon::stream::Events::new(text.as_bytes()) {
                        drop(black_box(event.unwrap()));
                    }
                }
                "decode-json" => drop(black_box(
                    toon::from_str::<serde_json::Value>(text).unwrap(),
                )),
                "json-encode" => drop(black_box(serde_json::to_string(&typed).unwrap())),
                "json-encode-writer" => {
                    written.clear();
                    serde_json::to_writer(&mut written, &typed).unwrap();
                    black_box(&written);
                }
                "json-decode-typed" => drop(black_box(serde_json::from_str::<T>(json).unwrap())),
                "json-decode-json" => drop(black_box(
                    serde_json::from_str::<serde_json::Value>(json).unwrap(),
                )),
                other => panic!("unknown operation {other:?}"),
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [op, input, rest @ ..] = args.as_slice() else {
        eprintln!("usage: profile OPERATION INPUT [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations = rest.first().map_or(1, |n| n.parse().expect("a count"));
    let data = input_named(input).unwrap_or_else(|| panic!("no input named {input:?}"));
    with_model(
        &data,
        &mut Run {
            op: op.clone(),
            iterations,
        },
    );
}

/// Builds only the named input, so that set-up stays small beside the measured work.
fn input_named(name: &str) -> Option<Dataset> {
    if name == "deep" {
        return Some(deep_document());
    }
    let (base, times) = match name.split_once('×') {
        Some((base, times)) => (base, times.parse().ok()?),
        None => (name, 1),
    };
    let data = base_datasets().into_iter().find(|d| d.name == base)?;
    if times == 1 {
        Some(data)
    } else {
        scaled(&data, times)
    }
}
