//! Shared helpers for integration tests: locating the shared spec suite and data sets, and
//! order-sensitive comparison of values (§2 equality).
#![allow(dead_code)]

use std::path::PathBuf;

use toon::Value;

/// The official conformance suite's fixtures folder: the copy bundled in
/// `tests/fixtures/toon-spec` (github.com/toon-format/spec v4.1.1), or
/// `$TOON_SPEC_DIR/tests/fixtures` of another checkout. A missing suite is a failure that says
/// how to get it; `TOON_SKIP_SPEC=1` skips on purpose.
pub fn spec_fixtures() -> Option<PathBuf> {
    if std::env::var_os("TOON_SKIP_SPEC").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED on request (TOON_SKIP_SPEC=1): the official TOON conformance suite");
        return None;
    }
    let dir = match std::env::var_os("TOON_SPEC_DIR") {
        Some(d) => PathBuf::from(d).join("tests/fixtures"),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/toon-spec"),
    };
    assert!(
        dir.join("decode").is_dir() && dir.join("encode").is_dir(),
        "the official TOON conformance suite is not at {}: TOON_SPEC_DIR must name a checkout \
         of github.com/toon-format/spec (scripts/fetch-spec.sh clones v4.1.1 into \
         target/toon-spec); unset it for the bundled copy, or TOON_SKIP_SPEC=1 to skip",
        dir.display()
    );
    Some(dir)
}

/// The eight benchmark data sets (`NAME.json` and the reference encoder's `NAME.toon`), in the
/// order of their README.
pub const DATASETS: [&str; 8] = [
    "tabular",
    "nested",
    "analytics",
    "github",
    "event-logs",
    "nested-config",
    "keyed",
    "nested-group",
];

/// The benchmark data sets: `$TOON_DATASETS_DIR`, else the copy bundled in
/// `tests/fixtures/datasets`.
pub fn datasets_dir() -> PathBuf {
    let dir = match std::env::var_os("TOON_DATASETS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/datasets"),
    };
    assert!(
        dir.join("tabular.json").is_file(),
        "no data sets in {} (TOON_DATASETS_DIR must name a folder with NAME.json and NAME.toon)",
        dir.display()
    );
    dir
}

/// Deep equality that also requires object keys in the same order (§2), numbers by value.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && same(v1, v2))
        }
        _ => a == b,
    }
}

/// A fixture's decode options (`strict`, `indentSize`).
pub fn decode_options(opts: &serde_json::Value) -> toon::DecodeOptions {
    let mut o = toon::DecodeOptions::new();
    if let Some(s) = opts.get("strict").and_then(serde_json::Value::as_bool) {
        o = o.strict(s);
    }
    if let Some(n) = opts.get("indentSize").and_then(serde_json::Value::as_u64) {
        o = o.indent_size(n as usize);
    }
    o
}

/// The decode cases of a fixture folder (`decode/*.json`): name, input and options.
pub fn decode_cases(dir: &std::path::Path) -> Vec<(String, String, toon::DecodeOptions)> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("decode"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let suite: serde_json::Value = serde_json::from_str(&text).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        for case in suite["tests"].as_array().unwrap() {
            let opts = case.get("options").cloned().unwrap_or_default();
            cases.push((
                format!("{name}: {}", case["name"].as_str().unwrap()),
                case["input"].as_str().unwrap().to_owned(),
                decode_options(&opts),
            ));
        }
    }
    cases
}

/// The decode cases of the official suite (unless skipped) and of `spec-fixtures/`.
pub fn all_decode_cases() -> Vec<(String, String, toon::DecodeOptions)> {
    let mut cases = Vec::new();
    if let Some(dir) = spec_fixtures() {
        cases.extend(decode_cases(&dir));
    }
    cases.extend(decode_cases(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures"),
    ));
    cases
}

/// A small deterministic generator (xorshift): each call gives a number below its argument.
pub fn rng(seed: u64) -> impl FnMut(usize) -> usize {
    let mut state = seed | 1;
    move |n| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n.max(1) as u64) as usize
    }
}

/// The eight data sets' TOON texts, with their names.
pub fn dataset_texts() -> Vec<(&'static str, String)> {
    let dir = datasets_dir();
    DATASETS
        .iter()
        .map(|name| {
            let path = dir.join(format!("{name}.toon"));
            (*name, std::fs::read_to_string(path).unwrap())
        })
        .collect()
}
