//! What one "unknown tool" error's suggestions cost (`Catalog::suggest`), by catalog size:
//! `cargo run --release --example suggest_cost --features mcp,mcp-semantic`. Every unknown
//! name a client sends runs one; the figure is the mean over the names below, each asked
//! many times (the index is built before timing).

use std::time::Instant;

use toon::mcp::Catalog;

const SERVICES: [&str; 10] = [
    "github", "slack", "drive", "jira", "notion", "azure", "gitlab", "linear", "stripe", "s3",
];
const VERBS: [&str; 8] = [
    "get", "list", "create", "delete", "search", "update", "read", "move",
];
const THINGS: [&str; 8] = [
    "file", "issue", "branch", "user", "table", "image", "note", "event",
];

/// A catalog of `n` tools named `SERVICE_VERB_THING_N`, described in those words.
fn catalog(n: usize) -> Catalog {
    let tools: Vec<String> = (0..n)
        .map(|i| {
            let (s, v, t) = (SERVICES[i % 10], VERBS[(i / 10) % 8], THINGS[(i / 80) % 8]);
            format!(
                r#"{{"name":"{s}_{v}_{t}_{i}","description":"{v} a {t} in {s}","inputSchema":{{"type":"object","properties":{{"id":{{"type":"string","description":"The {t}'s id"}}}}}}}}"#
            )
        })
        .collect();
    let mut catalog = Catalog::new();
    catalog
        .add_server("big", &format!(r#"{{"tools":[{}]}}"#, tools.join(",")))
        .unwrap();
    catalog
}

fn main() {
    let long = "get_list_".repeat(200);
    let names = [
        "github_creat_isue",
        "list_item",
        "foo_bar",
        "get",
        "slack_delete_user_77x",
        long.as_str(),
    ];
    for n in [1_000, 10_000, 100_000] {
        let catalog = catalog(n);
        let _ = catalog.suggest("warm up the index");
        let rounds = 20;
        let started = Instant::now();
        let mut found = 0;
        for _ in 0..rounds {
            for name in names {
                found += catalog.suggest(name).len();
            }
        }
        let each = started.elapsed() / (rounds * names.len() as u32);
        println!("{n:>7} tools: {each:?} per unknown name ({found} suggestions)");
    }
}
