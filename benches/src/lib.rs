//! Shared inputs for the benchmarks: the eight data sets (read at run time, never copied into
//! the repository), the same scaled ×10 and ×100 by repeating rows, one deep non-uniform
//! document, and the typed model each one is decoded into.

pub mod models;
pub mod timing;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

/// One benchmark input: the same data as compact JSON and as TOON.
pub struct Dataset {
    /// Data set name, with a `×N` suffix when scaled.
    pub name: String,
    /// The base data set it came from (selects the typed model).
    pub base: String,
    pub value: Value,
    /// Compact JSON, as serde_json writes it.
    pub json: String,
    /// TOON, as `toon::to_string` writes it (byte-identical to the reference encoder).
    pub toon: String,
}

impl Dataset {
    pub fn new(name: impl Into<String>, base: impl Into<String>, value: Value) -> Dataset {
        let json = serde_json::to_string(&value).expect("JSON of a JSON value");
        let toon = toon::to_string(&value).expect("TOON of a JSON value");
        Dataset {
            name: name.into(),
            base: base.into(),
            value,
            json,
            toon,
        }
    }
}

/// The eight data sets in the order of `tests/fixtures/datasets/README.md`.
pub const NAMES: [&str; 8] = [
    "tabular",
    "nested",
    "analytics",
    "github",
    "event-logs",
    "nested-config",
    "keyed",
    "nested-group",
];

/// Where the data sets are: `$TOON_DATASETS_DIR`, else the copy bundled in
/// `tests/fixtures/datasets`. `None` when neither exists; callers then fall back to [`bundled`].
pub fn datasets_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("TOON_DATASETS_DIR").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/datasets")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.join("tabular.json").is_file())
}

/// The example bundled with the crate (`examples/github-repos.json`), so the benchmarks run
/// on a checkout without the shared data sets.
pub fn bundled() -> Dataset {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/github-repos.json");
    let value = read_json(&path);
    Dataset::new("github (bundled)", "github", value)
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The eight data sets at their published size (or the bundled example alone).
pub fn base_datasets() -> Vec<Dataset> {
    let Some(dir) = datasets_dir() else {
        eprintln!(
            "note: no data sets found (set TOON_DATASETS_DIR); using the bundled example only"
        );
        return vec![bundled()];
    };
    NAMES
        .iter()
        .map(|name| Dataset::new(*name, *name, read_json(&dir.join(format!("{name}.json")))))
        .collect()
}

/// `data` with its records repeated `times` over: the rows of the top-level array, or the
/// entries of the top-level keyed table (with a suffix so keys stay unique). `None` for a
/// document without rows (`nested-config`).
pub fn scaled(data: &Dataset, times: usize) -> Option<Dataset> {
    let Value::Object(root) = &data.value else {
        return None;
    };
    let (key, records) = root.iter().next()?;
    let repeated = match records {
        Value::Array(rows) => Value::Array(
            (0..times)
                .flat_map(|_| rows.iter().cloned())
                .collect::<Vec<_>>(),
        ),
        Value::Object(entries) if entries.values().all(Value::is_object) => {
            let mut out = Map::new();
            for round in 0..times {
                for (k, v) in entries {
                    let k = if round == 0 {
                        k.clone()
                    } else {
                        format!("{k}_{round}")
                    };
                    out.insert(k, v.clone());
                }
            }
            Value::Object(out)
        }
        _ => return None,
    };
    let mut root = Map::new();
    root.insert(key.clone(), repeated);
    Some(Dataset::new(
        format!("{}×{times}", data.name),
        data.base.clone(),
        Value::Object(root),
    ))
}

/// A deep, non-uniform document (≈200 KB of JSON): objects whose keys vary, arrays that mix
/// records, scalars and sub-arrays, strings that need quoting — the shape where TOON has no
/// tables to exploit. Deterministic.
pub fn deep_document() -> Dataset {
    let mut rng = Lcg(0x5eed);
    let items = (0..120).map(|_| node(&mut rng, 0)).collect();
    let mut root = Map::new();
    root.insert("kind".into(), Value::from("deep"));
    root.insert("items".into(), Value::Array(items));
    Dataset::new("deep", "deep", Value::Object(root))
}

struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

const WORDS: [&str; 16] = [
    "id", "name", "value", "meta", "tags", "children", "note", "weight", "path", "owner",
    "created", "status", "limits", "items", "label", "ref",
];

fn node(rng: &mut Lcg, depth: usize) -> Value {
    let leaf = depth >= 7 || rng.below(10) < depth as u64;
    match (leaf, rng.below(6)) {
        (true, 0) => Value::from(rng.below(1_000_000)),
        (true, 1) => Value::from(rng.below(100_000) as f64 / 128.0),
        (true, 2) => Value::from(rng.below(2) == 0),
        (true, 3) => Value::Null,
        (true, 4) => Value::from(format!(
            "{}: {}, {}",
            WORDS[rng.below(16) as usize],
            rng.below(99),
            WORDS[rng.below(16) as usize]
        )),
        (true, _) => Value::from(format!(
            "{}-{}",
            WORDS[rng.below(16) as usize],
            rng.below(10_000)
        )),
        (false, 0 | 1) => Value::Array((0..rng.below(6)).map(|_| node(rng, depth + 1)).collect()),
        (false, _) => {
            let mut map = Map::new();
            for _ in 0..1 + rng.below(6) {
                let key = format!("{}{}", WORDS[rng.below(16) as usize], rng.below(4));
                map.insert(key, node(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// Receives each input together with its typed model `T`.
pub trait Visit {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static;
}

/// Calls `visitor` with the typed value of `data`: the derive model of its base data set, or
/// `serde_json::Value` for the deep document (it has no schema).
pub fn with_model(data: &Dataset, visitor: &mut impl Visit) {
    fn typed<T: DeserializeOwned>(data: &Dataset) -> T {
        serde_json::from_str(&data.json)
            .unwrap_or_else(|e| panic!("{} does not fit its model: {e}", data.name))
    }
    use models::*;
    match data.base.as_str() {
        "tabular" => visitor.visit(data, typed::<Employees>(data)),
        "nested" => visitor.visit(data, typed::<Orders>(data)),
        "analytics" => visitor.visit(data, typed::<Analytics>(data)),
        "github" => visitor.visit(data, typed::<Repositories>(data)),
        "event-logs" => visitor.visit(data, typed::<EventLogs>(data)),
        "nested-config" => visitor.visit(data, typed::<Config>(data)),
        "keyed" => visitor.visit(data, typed::<Flags>(data)),
        "nested-group" => visitor.visit(data, typed::<Contacts>(data)),
        _ => visitor.visit(data, typed::<Value>(data)),
    }
}

/// Every input of the benchmark: the data sets, each scaled ×10, and the deep document.
pub fn all_inputs() -> Vec<Dataset> {
    let base = base_datasets();
    let mut all: Vec<Dataset> = Vec::new();
    for data in &base {
        if let Some(big) = scaled(data, 10) {
            all.push(big);
        }
    }
    let mut out = base;
    out.append(&mut all);
    out.push(deep_document());
    out
}
