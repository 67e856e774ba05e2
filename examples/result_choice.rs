//! How well the MCP result encoder chooses between TOON and compact JSON on documents sent as
//! pretty JSON text, against the exact oracle.
//!
//! ```sh
//! TOKEN_CHOICE_TSV=counts.tsv cargo run --release --example token_choice --features tiktoken -- DIR...
//! cargo run --release --example result_choice --features mcp -- counts.tsv DIR...
//! ```
//!
//! Each `*.json` file under DIR is written as pretty JSON (two spaces, as `token_choice`
//! writes it), sent as the one text block of a `tools/call` result through a
//! [`ResultEncoder`] with the default policy, and the rendering it chose looked up in the
//! exact o200k counts `token_choice` wrote (`TOKEN_CHOICE_TSV`). Build without `tiktoken` to
//! measure the default build's choices (with it, the encoder counts exactly). Prints the
//! chosen tokens and the oracle's (the cheaper of TOON and compact JSON for each document) as
//! ratios to compact JSON, the documents over 10k tokens that lost more than 2%, the largest
//! losses, and the encoder's time against `toon::to_string` on the same documents.

#[path = "common/json_files.rs"]
mod json_files;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use json_files::{json_files, json_values, renderings};
use toon::Value;
use toon::mcp::{Policy, ResultEncoder, Shaping};

/// Exact tokens of a document's renderings, by name (`pretty`, `json`, `toon`, ...).
type Counts = HashMap<String, usize>;

fn read_counts(tsv: &str) -> Result<HashMap<PathBuf, Counts>, Box<dyn std::error::Error>> {
    let mut out = HashMap::new();
    for line in std::fs::read_to_string(tsv)?.lines() {
        let cells: Vec<&str> = line.split('\t').collect();
        let mut counts = Counts::new();
        // file, then (name, exact, estimate) for each of the five renderings.
        for triple in cells[1..].chunks(3).take(5) {
            counts.insert(triple[0].to_owned(), triple[1].parse()?);
        }
        out.insert(PathBuf::from(cells[0]), counts);
    }
    Ok(out)
}

/// One document through the encoder: the format its block came out in (`pretty` when it was
/// left as sent), and the time the encoder and `toon::to_string` took.
fn encode(
    encoder: &ResultEncoder,
    value: &Value,
) -> Result<(String, usize, Duration, Duration), String> {
    // The pretty JSON `token_choice` counted (the first of the renderings).
    let pretty = renderings(value)
        .map_err(|e| e.to_string())?
        .swap_remove(0)
        .1;
    let text = serde_json::to_string(&pretty).map_err(|e| e.to_string())?;
    let result = format!(r#"{{"content":[{{"type":"text","text":{text}}}]}}"#);
    let started = Instant::now();
    let out = encoder
        .encode_text("t", &result, &Shaping::default())
        .map_err(|e| e.to_string())?;
    let encoding = started.elapsed();
    let started = Instant::now();
    let document =
        toon::Recording::from_json_slice(pretty.as_bytes()).map_err(|e| e.to_string())?;
    std::hint::black_box(toon::to_string(&document).map_err(|e| e.to_string())?);
    let plain = started.elapsed();
    let out: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let format = out["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"]
        .as_str()
        .unwrap_or("pretty");
    Ok((format.to_owned(), pretty.len(), encoding, plain))
}

/// Tokens of the chosen renderings, of the oracle's and of compact JSON over some documents.
#[derive(Default)]
struct Tally<'f> {
    documents: usize,
    json: usize,
    oracle: usize,
    chosen: usize,
    /// (tokens lost, the oracle's tokens, the format chosen, the file).
    losses: Vec<(usize, usize, String, &'f PathBuf)>,
}

impl<'f> Tally<'f> {
    fn add(&mut self, count: &Counts, format: &str, file: &'f PathBuf) {
        let best = count["json"].min(count["toon"]);
        let pick = count[format];
        self.documents += 1;
        self.json += count["json"];
        self.oracle += best;
        self.chosen += pick;
        if pick > best {
            self.losses
                .push((pick - best, best, format.to_owned(), file));
        }
    }

    fn report(&mut self, what: &str) {
        self.losses.sort_by_key(|l| std::cmp::Reverse(l.0));
        let ratio = |n: usize| n as f64 / self.json.max(1) as f64;
        println!(
            "\n## {what}\n\n{} documents, compact JSON {} tokens: oracle {:.4}×, result \
             encoder {:.4}× ({:+.3}% over the oracle), {} documents lost",
            self.documents,
            self.json,
            ratio(self.oracle),
            ratio(self.chosen),
            (self.chosen as f64 / self.oracle.max(1) as f64 - 1.0) * 100.0,
            self.losses.len()
        );
        let large = self
            .losses
            .iter()
            .filter(|(lost, best, ..)| *best >= 10_000 && *lost as f64 > 0.02 * *best as f64)
            .count();
        println!("documents of 10k tokens or more that lost more than 2%: {large}");
        for (lost, best, format, file) in self.losses.iter().take(15) {
            println!(
                "- lost {lost} of {best} ({:.2}%, chose {format}): {}",
                *lost as f64 / *best as f64 * 100.0,
                file.display()
            );
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(tsv), files) = (args.next(), json_files(args)) else {
        return Err("usage: result_choice COUNTS.tsv DIR... (see the header)".into());
    };
    let counts = read_counts(&tsv)?;
    let encoder = ResultEncoder::new(Policy::default());
    let mut all = Tally::default();
    // Texts over 256 KiB are decided on a sample of their value: their own line.
    let mut long = Tally::default();
    let (mut encoding, mut plain) = (Duration::ZERO, Duration::ZERO);
    for file in &files {
        let Some(count) = counts.get(file) else {
            eprintln!("no counts for {}", file.display());
            continue;
        };
        // One file at a time: the corpus's values together would take gigabytes.
        let Some((_, value)) = json_values(std::slice::from_ref(file))?.pop() else {
            continue;
        };
        let (format, pretty, took, toon_took) = encode(&encoder, &value)?;
        encoding += took;
        plain += toon_took;
        all.add(count, &format, file);
        if pretty > 256 * 1024 {
            long.add(count, &format, file);
        }
    }
    all.report("all documents");
    long.report("documents whose pretty text is over 256 KiB");
    println!(
        "time: encoder {:.2} s, toon::to_string from the pretty text {:.2} s ({:.2}×)",
        encoding.as_secs_f64(),
        plain.as_secs_f64(),
        encoding.as_secs_f64() / plain.as_secs_f64().max(1e-9)
    );
    Ok(())
}
