//! Token counts of the eight benchmark data sets in every rendering: pretty JSON, compact
//! JSON, TOON, TOON after `tabularize` (all transforms), and `auto`'s choice. Estimates by
//! `toon::tokens::estimate`; with `--features tiktoken`, exact o200k counts beside them.
//!
//! `cargo run --release --example token_report [--features tiktoken] [-- DIR...]`
//!
//! Extra directories of JSON files are summed as a corpus (compact JSON vs auto).

use std::path::PathBuf;

use toon::Value;
use toon::table::{Tabularize, auto, tabularize};

/// The data set names and folder, shared with the tests.
#[path = "../tests/common/mod.rs"]
mod common;

fn tokens(text: &str) -> String {
    let estimate = toon::tokens::estimate(text);
    #[cfg(feature = "tiktoken")]
    {
        let exact = toon::tokens::count(text, toon::tokens::Encoding::O200kBase);
        format!("{estimate} / {exact}")
    }
    #[cfg(not(feature = "tiktoken"))]
    estimate.to_string()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let exact = cfg!(feature = "tiktoken");
    println!(
        "Tokens per rendering ({}):\n",
        if exact {
            "estimate / exact o200k"
        } else {
            "estimate"
        }
    );
    println!(
        "| data set | pretty JSON | compact JSON | TOON | TOON + tabularize | auto | auto chose |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let dir = common::datasets_dir();
    let inputs: Vec<(String, PathBuf)> = common::DATASETS
        .iter()
        .map(|n| (n.to_string(), dir.join(format!("{n}.json"))))
        .collect();
    for (name, path) in inputs {
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
        let (tabular, _) = tabularize(&value, &Tabularize::all());
        let chosen = auto(&value)?;
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:?} |",
            tokens(&serde_json::to_string_pretty(&value)?),
            tokens(&serde_json::to_string(&value)?),
            tokens(&toon::to_string(&value)?),
            tokens(&toon::to_string(&tabular)?),
            tokens(&chosen.text),
            chosen.rendering,
        );
    }
    // A corpus of other JSON files: does auto beat compact JSON in total?
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if !dirs.is_empty() {
        let (mut json_total, mut auto_total, mut toon_total, mut files) = (0, 0, 0, 0);
        for dir in &dirs {
            for entry in std::fs::read_dir(dir)? {
                let path = entry?.path();
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let Ok(value) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                json_total += toon::tokens::estimate(&serde_json::to_string(&value)?);
                toon_total += toon::tokens::estimate(&toon::to_string(&value)?);
                auto_total += auto(&value)?.tokens;
                files += 1;
            }
        }
        println!(
            "\nCorpus of {files} files (estimates): compact JSON {json_total}, TOON {toon_total} \
             ({:.2}×), auto {auto_total} ({:.2}×)",
            toon_total as f64 / json_total as f64,
            auto_total as f64 / json_total as f64
        );
    }
    Ok(())
}
