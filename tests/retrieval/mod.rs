//! Tool-discovery recall: public request → tool data sets (`tests/fixtures/retrieval/`, each a
//! catalog and its queries; README there) run through `Catalog::search` as lean mode's
//! `discover_tools` runs it. Shared by `examples/discovery.rs` (the benchmark command) and the
//! floor test in `tests/mcp.rs`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toon::mcp::Catalog;

/// How deep a hit still counts as found, for MRR.
const DEPTH: usize = 10;

/// One data set: a catalog and its queries.
pub struct Set {
    pub name: String,
    pub catalog: Catalog,
    pub queries: Vec<Query>,
}

/// A request and the tools that serve it.
pub struct Query {
    pub id: String,
    pub text: String,
    /// Needs, each met by any one of its tools (`SERVER::NAME`).
    pub gold: Vec<Vec<String>>,
}

/// Recall at 1 and 5 and mean reciprocal rank over some queries.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scores {
    pub queries: usize,
    pub r1: f64,
    pub r5: f64,
    pub mrr: f64,
}

/// Which queries a figure is over: tuning may look at `Fit`, never at `Held`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    All,
    Fit,
    Held,
}

impl Part {
    /// A query's part: half by a hash of its id (FNV-1a), the same in every run.
    fn contains(self, id: &str) -> bool {
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        match self {
            Part::All => true,
            Part::Fit => hash % 2 == 0,
            Part::Held => hash % 2 == 1,
        }
    }
}

/// Whether a query is in the held-out half.
pub fn is_held(id: &str) -> bool {
    Part::Held.contains(id)
}

/// The data sets under `dir`: every `NAME.catalog.json` with its `NAME.queries.jsonl`, by name.
pub fn load_sets(dir: &Path) -> Result<Vec<Set>, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".catalog.json").map(str::to_owned)
        })
        .collect();
    names.sort();
    names.into_iter().map(|name| load_set(dir, name)).collect()
}

fn load_set(dir: &Path, name: String) -> Result<Set, String> {
    let read = |file: PathBuf| {
        std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))
    };
    let catalog = Catalog::from_json(&read(dir.join(format!("{name}.catalog.json")))?, &name)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut queries = Vec::new();
    for (n, line) in read(dir.join(format!("{name}.queries.jsonl")))?
        .lines()
        .enumerate()
    {
        let json: Json =
            serde_json::from_str(line).map_err(|e| format!("{name} line {}: {e}", n + 1))?;
        let text = |key: &str| json[key].as_str().unwrap_or_default().to_owned();
        let gold = json["gold"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|need| {
                let tools = need.as_array().into_iter().flatten();
                tools
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .collect();
        queries.push(Query {
            id: text("id"),
            text: text("query"),
            gold,
        });
    }
    Ok(Set {
        name,
        catalog,
        queries,
    })
}

/// The `SERVER::NAME` of each of the first `DEPTH` tools `query` finds.
pub fn ranking(catalog: &Catalog, query: &str) -> Vec<String> {
    catalog
        .search(query, DEPTH)
        .into_iter()
        .map(|hit| format!("{}::{}", hit.tool.server(), hit.tool.original_name()))
        .collect()
}

/// How `set` scores over `part` of its queries.
pub fn score(set: &Set, part: Part) -> Scores {
    let mut s = Scores::default();
    for query in set.queries.iter().filter(|q| part.contains(&q.id)) {
        let found = ranking(&set.catalog, &query.text);
        let rank = |need: &Vec<String>| found.iter().position(|f| need.contains(f));
        let ranks: Vec<Option<usize>> = query.gold.iter().map(rank).collect();
        let needs = ranks.len().max(1) as f64;
        let within = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r < k)).count();
        s.queries += 1;
        s.r1 += within(1) as f64 / needs;
        s.r5 += within(5) as f64 / needs;
        s.mrr += ranks
            .iter()
            .flatten()
            .min()
            .map_or(0.0, |&r| 1.0 / (r + 1) as f64);
    }
    let n = s.queries.max(1) as f64;
    s.r1 /= n;
    s.r5 /= n;
    s.mrr /= n;
    s
}

/// The bundled data sets.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/retrieval")
}
