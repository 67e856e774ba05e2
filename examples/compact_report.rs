//! What compact mode's tool list costs (`toon mcp serve --mode compact`), against the tool
//! list as the servers send it, lean mode's, and two other cuts of the same definitions.
//!
//! `cargo run --release --example compact_report --features mcp,tiktoken [-- FILES...]`
//!
//! FILES are `tools/list` results (`*.json`, the server named after the file) or catalogs
//! (`{"SERVER": [tools...]}`). Without FILES, the seven servers of `tests/fixtures/mcp/lists`.
//! Counts are exact o200k tokens with the `tiktoken` feature, estimates without.
//! `COMPACT_LIST=FILE` also writes the compact list of all FILES together there.
//!
//! The other cuts, for comparison: `typed` keeps each tool's schema without descriptions,
//! titles, examples and defaults (and the short description); `bare` gives every tool
//! `{"type":"object"}` and the signature in its description, as compact mode does, but keeps
//! the whole description.

use std::path::{Path, PathBuf};

use toon::mcp::{Catalog, CompactTools, Form, MetaTools, form_of};
use toon::{Map, Value};

fn tokens(text: &str) -> usize {
    toon::tokens::cost(text)
}

fn list(tools: Vec<Value>) -> String {
    let mut root = Map::new();
    root.insert("tools".into(), Value::Array(tools));
    toon::json::to_string(&Value::Object(root)).unwrap()
}

/// The schema without what only explains it.
fn typed(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(
                        *k,
                        "description" | "title" | "examples" | "default" | "$schema"
                    )
                })
                .map(|(k, v)| {
                    // Property names are not keywords: keep each, cut what is inside.
                    let v = if k == "properties" || k == "$defs" || k == "definitions" {
                        match v {
                            Value::Object(props) => Value::Object(
                                props
                                    .iter()
                                    .map(|(n, s)| (n.to_owned(), typed(s)))
                                    .collect(),
                            ),
                            other => other.clone(),
                        }
                    } else {
                        typed(v)
                    };
                    (k.to_owned(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(typed).collect()),
        other => other.clone(),
    }
}

fn cut(catalog: &Catalog, how: &str) -> Vec<Value> {
    catalog
        .tools()
        .map(|tool| {
            let mut def = Map::new();
            def.insert("name".into(), Value::String(tool.name().into()));
            let schema = tool.input_schema().cloned().unwrap_or(Value::Null);
            let (description, schema) = match how {
                "typed" => (tool.summary(), typed(&schema)),
                _ => {
                    let signature = tool.signature().unwrap_or_default();
                    let text = format!("{}\nparams: {signature}", tool.description());
                    (text, toon::toon!({"type": "object"}))
                }
            };
            def.insert("description".into(), Value::String(description));
            def.insert("inputSchema".into(), schema);
            Value::Object(def)
        })
        .collect()
}

fn load(file: &Path) -> Result<Catalog, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(file)?;
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let value: Value = toon::json::from_str(&text)?;
    let mut catalog = Catalog::new();
    if value.get("tools").is_some() {
        catalog.add_server(&stem, &text)?;
    } else {
        catalog = Catalog::from_json(&text, &stem)?;
    }
    Ok(catalog)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp/lists");
        files = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.sort();
    }
    let counting = if cfg!(feature = "tiktoken") {
        "exact o200k"
    } else {
        "estimated"
    };
    println!("tool-list tokens ({counting}), and each as a multiple of the list as sent\n");
    println!("| list | tools | as sent | compact | compact without hints | typed | bare | lean |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut all = Catalog::new();
    for file in &files {
        let catalog = load(file)?;
        whole(&catalog);
        for server in catalog.servers() {
            let tools: Vec<&str> = server.tools().iter().map(|t| t.raw_json()).collect();
            all.add_server(
                server.name(),
                &format!("{{\"tools\":[{}]}}", tools.join(",")),
            )?;
        }
        print_row(&file.file_stem().unwrap().to_string_lossy(), &catalog)?;
    }
    if files.len() > 1 {
        print_row("all, one gateway", &all)?;
    }
    // `COMPACT_LIST=FILE` writes the compact list of them all, to read.
    if let Some(path) = std::env::var_os("COMPACT_LIST") {
        std::fs::write(path, CompactTools::new(&all).list_json()?)?;
    }
    Ok(())
}

fn print_row(name: &str, catalog: &Catalog) -> Result<(), Box<dyn std::error::Error>> {
    let sent: Vec<&str> = catalog.tools().map(|t| t.raw_json()).collect();
    let sent = tokens(&format!("{{\"tools\":[{}]}}", sent.join(",")));
    let compact = CompactTools::new(catalog).definitions()?;
    let unhinted: Vec<Value> = (compact.iter().cloned())
        .map(|mut d| {
            if let Some(map) = d.as_object_mut() {
                map.remove("annotations");
            }
            d
        })
        .collect();
    let lean: Vec<Value> = MetaTools::new(catalog)
        .definitions()?
        .into_iter()
        .map(Value::from)
        .collect();
    let r = |n: usize| format!("{n} ({:.3}×)", n as f64 / sent.max(1) as f64);
    println!(
        "| {name} | {} | {sent} | {} | {} | {} | {} | {} |",
        catalog.len(),
        r(tokens(&list(compact))),
        r(tokens(&list(unhinted))),
        r(tokens(&list(cut(catalog, "typed")))),
        r(tokens(&list(cut(catalog, "bare")))),
        r(tokens(&list(lean)))
    );
    Ok(())
}

/// Says on stderr which tools keep their whole schema, and why.
fn whole(catalog: &Catalog) {
    for tool in catalog.tools() {
        if let Form::WholeSchema(why) = form_of(tool) {
            eprintln!("{}: {why}", tool.name());
        }
    }
}
