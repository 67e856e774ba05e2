//! Token costs of MCP tool catalogs and tool results, per server and in total.
//!
//! `cargo run --release --example mcp_report --features mcp,tiktoken [-- FILES...]`
//!
//! FILES are `tools/list` results (`*.json`; the server is named after the file) and captured
//! results (`*.jsonl`, one `{"call": TOOL, "result": CallToolResult}` per line). Without
//! FILES, the captures of seven real servers in `tests/fixtures/mcp` are used. Counts are exact
//! o200k tokens with the `tiktoken` feature, estimates without.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use toon::mcp::{Catalog, Grouping, Policy, ResultEncoder};

fn tokens(text: &str) -> usize {
    toon::tokens::cost(text)
}

fn ratio(n: usize, base: usize) -> String {
    format!("{n} ({:.3}×)", n as f64 / base.max(1) as f64)
}

fn default_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp");
    let mut files = Vec::new();
    for sub in ["lists", "results"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        found.sort();
        files.extend(found);
    }
    files
}

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let mut files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        files = default_files();
    }
    let counting = if cfg!(feature = "tiktoken") {
        "exact o200k"
    } else {
        "estimated"
    };
    let mut catalog = Catalog::new();
    let mut results: Vec<(String, Json)> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)?;
        if file.extension().is_some_and(|e| e == "jsonl") {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                let v: Json = serde_json::from_str(line)?;
                results.push((
                    v["call"].as_str().unwrap_or("").to_owned(),
                    v["result"].clone(),
                ));
            }
        } else {
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("server");
            catalog.add_server(name, &text)?;
        }
    }
    if !catalog.is_empty() {
        catalogs(&catalog, counting)?;
    }
    if !results.is_empty() {
        tool_results(&results, counting)?;
    }
    Ok(())
}

/// The catalog table: each server's tool list in every rendering and view, then all of them.
fn catalogs(catalog: &Catalog, counting: &str) -> Result<(), Failure> {
    println!("Tool catalogs ({counting} tokens; ratios to compact tools/list JSON):\n");
    println!(
        "| server | tools | compact JSON | pretty JSON | plain TOON | full | categories | lean |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut totals = [0usize; 5];
    for server in catalog.servers() {
        let tools: Vec<Json> = server
            .tools()
            .iter()
            .map(|t| serde_json::from_str(t.raw_json()))
            .collect::<Result<_, _>>()?;
        let list = json!({ "tools": tools });
        let compact = tokens(&serde_json::to_string(&list)?);
        let pretty = tokens(&serde_json::to_string_pretty(&list)?);
        let plain = tokens(&toon::to_string(&toon::Value::from(list.clone()))?);
        let mut one = Catalog::new();
        one.add_server(server.name(), &serde_json::to_string(&list)?)?;
        let full = tokens(&one.full()?);
        let categories = tokens(&one.categories(Grouping::Server)?);
        println!(
            "| {} | {} | {compact} | {} | {} | {} | {categories} | — |",
            server.name(),
            server.tools().len(),
            ratio(pretty, compact),
            ratio(plain, compact),
            ratio(full, compact),
        );
        for (t, n) in totals
            .iter_mut()
            .zip([compact, pretty, plain, full, categories])
        {
            *t += n;
        }
    }
    let [compact, pretty, plain, _, _] = totals;
    let full = tokens(&catalog.full()?);
    let categories = tokens(&catalog.categories(Grouping::Server)?);
    let lean = tokens(&catalog.lean());
    println!(
        "| **all {}** | {} | {compact} | {} | {} | {} | {} | {} |",
        catalog.servers().len(),
        catalog.len(),
        ratio(pretty, compact),
        ratio(plain, compact),
        ratio(full, compact),
        ratio(categories, compact),
        ratio(lean, compact),
    );
    println!();
    Ok(())
}

/// The results table: each captured result's text blocks as sent, as compact JSON, as TOON,
/// the cheaper of the two and what the encoder wrote, then all of them and its stats.
fn tool_results(results: &[(String, Json)], counting: &str) -> Result<(), Failure> {
    println!("Tool results ({counting} tokens of the text blocks; ratios to the text as sent):\n");
    println!(
        "| tool | as sent | compact JSON | TOON | cheaper of the two | encoder output | format |"
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let encoder = ResultEncoder::new(Policy::default());
    let mut totals = [0usize; 5];
    for (tool, result) in results {
        let out = encoder.encode(tool, result.clone())?;
        let [sent, compact, toon_n, after] = block_tokens(result, &out)?;
        let best = compact.min(toon_n);
        let format = out["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"]
            .as_str()
            .unwrap_or("unchanged");
        println!(
            "| {tool} | {sent} | {} | {} | {} | {} | {format} |",
            ratio(compact, sent),
            ratio(toon_n, sent),
            ratio(best, sent),
            ratio(after, sent)
        );
        for (t, n) in totals.iter_mut().zip([sent, compact, toon_n, best, after]) {
            *t += n;
        }
    }
    let [sent, compact, toon_n, best, after] = totals;
    println!(
        "| **all {}** | {sent} | {} | {} | {} | {} | |",
        results.len(),
        ratio(compact, sent),
        ratio(toon_n, sent),
        ratio(best, sent),
        ratio(after, sent)
    );
    println!("\n{}", encoder.stats().summary());
    Ok(())
}

/// Tokens of a result's text blocks: as sent, as compact JSON, as TOON (a block that is not
/// JSON counts as sent in both), and as the encoder wrote them (`out`).
fn block_tokens(result: &Json, out: &Json) -> Result<[usize; 4], Failure> {
    let blocks = result["content"].as_array().cloned().unwrap_or_default();
    let (mut sent, mut compact, mut toon_n, mut after) = (0, 0, 0, 0);
    for (before, now) in blocks
        .iter()
        .zip(out["content"].as_array().into_iter().flatten())
    {
        let Some(text) = before["text"].as_str() else {
            continue;
        };
        sent += tokens(text);
        after += tokens(now["text"].as_str().unwrap_or_default());
        match serde_json::from_str::<toon::Value>(text) {
            Ok(v) => {
                compact += tokens(&serde_json::to_string(&v)?);
                toon_n += tokens(&toon::to_string(&v)?);
            }
            Err(_) => {
                compact += tokens(text);
                toon_n += tokens(text);
            }
        }
    }
    Ok([sent, compact, toon_n, after])
}
