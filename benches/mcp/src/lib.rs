//! Inputs of the `catalog` benchmark (`benches/catalog.rs`): catalogs of real tool definitions
//! at any size, and real requests to search them with.
//!
//! The definitions are the crate's fixtures, read at run time: the Azure MCP Server's 180 tools
//! and MetaTool's 199 ChatGPT plugins (`tests/fixtures/retrieval/*.catalog.json`) and seven
//! real servers' `tools/list` results (`tests/fixtures/mcp/lists`), 431 tools in all, taken
//! again under other server names as often as a size needs. The queries are those sets' own
//! (`tests/fixtures/retrieval/*.queries.jsonl`, field `query`).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toon::mcp::Catalog;

/// The seven captured servers, in the order they are taken.
const LISTS: [&str; 7] = [
    "everything",
    "fetch",
    "filesystem",
    "git",
    "memory",
    "seqthink",
    "time",
];

/// The two tool-discovery sets, each one server in its catalog file.
const SETS: [&str; 2] = ["azure", "metatool"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every real server: its name and its tools' definitions as the files have them (431 tools).
pub fn servers() -> Vec<(String, Vec<String>)> {
    let sets = SETS.map(|set| (set, format!("retrieval/{set}.catalog.json")));
    let lists = LISTS.map(|name| (name, format!("mcp/lists/{name}.json")));
    let mut servers = Vec::new();
    for (name, path) in sets.iter().chain(&lists) {
        // The reader the benchmark measures is also the one that splits the files.
        let catalog = Catalog::from_json(&read(&fixtures().join(path)), name).unwrap();
        for server in catalog.servers() {
            let tools = server.tools().iter().map(|t| t.raw_json().to_owned());
            servers.push((server.name().to_owned(), tools.collect()));
        }
    }
    servers
}

/// `tools/list` results of `count` tools: the real servers in turn, again and again under
/// other names (`azure`, …, `time`, then `azure_2`, …), the last one cut to the count.
/// (`plugins` is MetaTool's server.)
pub fn tool_lists(count: usize) -> Vec<(String, String)> {
    let servers = servers();
    let mut lists = Vec::new();
    let mut left = count;
    for round in 1.. {
        for (name, tools) in &servers {
            if left == 0 {
                return lists;
            }
            let take = tools.len().min(left);
            left -= take;
            let name = if round == 1 {
                name.clone()
            } else {
                format!("{name}_{round}")
            };
            lists.push((
                name,
                format!(r#"{{"tools":[{}]}}"#, tools[..take].join(",")),
            ));
        }
    }
    unreachable!("the rounds go on until the count is reached")
}

/// A catalog of the `tool_lists` (its search index not built yet).
pub fn catalog(lists: &[(String, String)]) -> Catalog {
    let mut catalog = Catalog::new();
    for (name, list) in lists {
        catalog.add_server(name, list).unwrap();
    }
    catalog
}

#[derive(Deserialize)]
struct Query {
    query: String,
}

/// Every query of both sets, in file order (azure's 474, then metatool's 2,000).
pub fn queries() -> Vec<String> {
    let mut queries = Vec::new();
    for set in SETS {
        let text = read(&fixtures().join(format!("retrieval/{set}.queries.jsonl")));
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let q: Query = serde_json::from_str(line).unwrap();
            queries.push(q.query);
        }
    }
    queries
}

/// `n` queries spread evenly over [`queries`] (every k-th): short and long ones as the sets
/// have them.
pub fn spread(n: usize) -> Vec<String> {
    let all = queries();
    let step = (all.len() / n).max(1);
    all.into_iter().step_by(step).take(n).collect()
}

/// The `n` longest queries, longest first (up to 1,089 characters: a request told at length).
pub fn longest(n: usize) -> Vec<String> {
    let mut all = queries();
    all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    all.truncate(n);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogs_of_any_size_from_real_tools() {
        let servers = servers();
        assert_eq!(servers.len(), 9);
        let real: usize = servers.iter().map(|(_, t)| t.len()).sum();
        assert_eq!(real, 431);
        for size in [500, 5_000] {
            let lists = tool_lists(size);
            let catalog = catalog(&lists);
            assert_eq!(catalog.len(), size);
            assert_eq!(catalog.servers().len(), lists.len());
            // Every server name is distinct: no copy replaced another.
            let mut names: Vec<&str> = lists.iter().map(|(n, _)| n.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), lists.len());
        }
        assert_eq!(tool_lists(500)[9].0, "azure_2");
    }

    #[test]
    fn queries_are_the_sets_own() {
        assert_eq!(queries().len(), 474 + 2_000);
        let spread = spread(48);
        assert_eq!(spread.len(), 48);
        let long = longest(5);
        assert!(long[0].len() > 1_000 && long[4].len() > 500, "{long:?}");
        let catalog = catalog(&tool_lists(500));
        assert!(spread.iter().all(|q| !catalog.search(q, 10).is_empty()));
    }
}
