//! How well the default build's choice between renderings does against exact o200k counts.
//!
//! `cargo run --release --example token_choice --features tiktoken -- DIR...`
//!
//! For every `*.json` file under the given directories: exact o200k tokens of its compact JSON
//! and of TOON (comma, tab and pipe delimiters), and the choice `toon::tokens::estimate_costs`
//! makes — what `auto` decides by in a build without the `tiktoken` feature (texts over
//! 256 KiB from a sample). Prints, for the result
//! encoder's rule (TOON or compact JSON) and for `table::auto`'s (any of the four):
//! - the tokens of the estimate's choices against the oracle's (the exact cheapest of each
//!   document), both as a ratio to compact JSON;
//! - every document where the choice lost, largest loss first;
//! - how many documents over 10k tokens lost more than 2%;
//!
//! and the estimate's own error per rendering (mean and worst, relative to exact).

#[path = "common/json_files.rs"]
mod json_files;

use json_files::{json_files, json_values, renderings};
use std::path::PathBuf;

use toon::Value;
use toon::tokens::{Encoding, count, estimate, estimate_costs};

/// One document's renderings: (name, exact, estimate), as `renderings` lists them; the estimates are
/// `estimate_costs`' for the rule's candidates (`costs` holds them per rule).
struct Document {
    file: PathBuf,
    renderings: Vec<(&'static str, usize, usize)>,
    /// `estimate_costs` of (JSON, TOON) and of (JSON, TOON comma, tab, pipe): what the crate
    /// decides by, sampled for long texts.
    choice: (Vec<usize>, Vec<usize>),
}

impl Document {
    fn of(file: PathBuf, value: &Value) -> Result<Self, Box<dyn std::error::Error>> {
        let texts = renderings(value)?;
        let renderings = texts
            .iter()
            .map(|(name, text)| (*name, count(text, Encoding::O200kBase), estimate(text)))
            .collect();
        // Compact JSON first, then TOON with each delimiter: the order rules list them in.
        let all: Vec<&str> = texts[1..].iter().map(|(_, text)| text.as_str()).collect();
        let choice = (estimate_costs(&all[..2]), estimate_costs(&all));
        Ok(Document {
            file,
            renderings,
            choice,
        })
    }

    fn json(&self) -> usize {
        self.renderings
            .iter()
            .find(|(name, ..)| *name == "json")
            .map_or(0, |r| r.1)
    }
}

/// A rule: which renderings compete; ties go to the first (compact JSON).
fn report(documents: &[Document], rule: &str, candidates: &[&str]) {
    let (mut json, mut oracle, mut chosen) = (0usize, 0usize, 0usize);
    let mut losses = Vec::new();
    for doc in documents {
        let costs = if candidates.len() == 2 {
            &doc.choice.0
        } else {
            &doc.choice.1
        };
        let competing: Vec<(usize, usize)> = doc
            .renderings
            .iter()
            .filter(|(name, ..)| candidates.contains(name))
            .zip(costs)
            .map(|((_, exact, _), cost)| (*exact, *cost))
            .collect();
        let best = competing.iter().map(|r| r.0).min().unwrap_or(0);
        // `min_by_key` keeps the first of equals: JSON wins ties, as in the crate.
        let pick = competing.iter().min_by_key(|r| r.1).map_or(0, |r| r.0);
        json += doc.json();
        oracle += best;
        chosen += pick;
        if pick > best {
            losses.push((pick - best, best, doc));
        }
    }
    losses.sort_by_key(|l| std::cmp::Reverse(l.0));
    let ratio = |n: usize| n as f64 / json.max(1) as f64;
    println!(
        "\n## {rule}\n\n{} documents, compact JSON {json} tokens: oracle {:.4}×, estimate's \
         choices {:.4}× ({:+.3}% over the oracle), {} documents lost",
        documents.len(),
        ratio(oracle),
        ratio(chosen),
        (chosen as f64 / oracle.max(1) as f64 - 1.0) * 100.0,
        losses.len()
    );
    let large: Vec<_> = losses
        .iter()
        .filter(|(lost, best, _)| *best > 10_000 && *lost as f64 > 0.02 * *best as f64)
        .collect();
    println!(
        "documents over 10k tokens that lost more than 2%: {}",
        large.len()
    );
    for (lost, best, doc) in losses.iter().take(10) {
        let cells: Vec<String> = doc
            .renderings
            .iter()
            .filter(|(name, ..)| candidates.contains(name))
            .map(|(name, exact, est)| format!("{name} {exact} (est. {est})"))
            .collect();
        println!(
            "- lost {lost} of {best} ({:.2}%): {} — {}",
            *lost as f64 / *best as f64 * 100.0,
            doc.file.display(),
            cells.join(", ")
        );
    }
}

fn accuracy(documents: &[Document]) {
    println!("\n## estimate vs exact\n\n| rendering | mean error | worst |\n|---|---:|---:|");
    for i in 0..documents.first().map_or(0, |d| d.renderings.len()) {
        let errors: Vec<f64> = documents
            .iter()
            .map(|d| {
                let (_, exact, est) = d.renderings[i];
                (est as f64 - exact as f64).abs() / exact.max(1) as f64
            })
            .collect();
        let mean = errors.iter().sum::<f64>() / errors.len().max(1) as f64;
        let worst = errors.iter().copied().fold(0.0, f64::max);
        println!(
            "| {} | {:.2}% | {:.1}% |",
            documents[0].renderings[i].0,
            mean * 100.0,
            worst * 100.0
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let files = json_files(std::env::args().skip(1));
    if files.is_empty() {
        return Err("usage: token_choice DIR... (JSON files)".into());
    }
    let mut documents = Vec::new();
    for (file, value) in json_values(&files)? {
        documents.push(Document::of(file, &value)?);
    }
    if let Ok(path) = std::env::var("TOKEN_CHOICE_TSV") {
        let mut tsv = String::new();
        for doc in &documents {
            tsv.push_str(&doc.file.display().to_string());
            for (name, exact, est) in &doc.renderings {
                tsv.push_str(&format!("\t{name}\t{exact}\t{est}"));
            }
            // What the rules decide by (`estimate_costs`, sampled for long texts).
            for cost in doc.choice.0.iter().chain(&doc.choice.1) {
                tsv.push_str(&format!("\t{cost}"));
            }
            tsv.push('\n');
        }
        std::fs::write(path, tsv)?;
    }
    report(
        &documents,
        "TOON or compact JSON (mcp result encoder, Output::Cheaper)",
        &["json", "toon"],
    );
    report(
        &documents,
        "table::auto (compact JSON, TOON comma/tab/pipe)",
        &["json", "toon", "toon-tab", "toon-pipe"],
    );
    accuracy(&documents);
    Ok(())
}
