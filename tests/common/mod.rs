//! Shared helpers for integration tests: locating the shared spec suite and data sets, and
//! order-sensitive comparison of values (§2 equality).
#![allow(dead_code)]

use std::path::PathBuf;

use toon::Value;

/// The official conformance suite: `$TOON_SPEC_DIR`, else `../shared/toon-spec` next to the
/// crate, else `target/toon-spec` (where `scripts/fetch-spec.sh` puts it). Missing, it is a
/// failure that says how to get it, unless `TOON_SKIP_SPEC=1` asks to skip on purpose.
pub fn spec_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = match std::env::var_os("TOON_SPEC_DIR") {
        Some(d) => vec![PathBuf::from(d)],
        None => vec![
            root.join("../shared/toon-spec"),
            root.join("target/toon-spec"),
        ],
    };
    if let Some(dir) = candidates
        .iter()
        .find(|d| d.join("tests/fixtures").is_dir())
    {
        return Some(dir.clone());
    }
    if std::env::var_os("TOON_SKIP_SPEC").is_some_and(|v| v == "1") {
        eprintln!("SKIPPED on request (TOON_SKIP_SPEC=1): the official TOON conformance suite");
        return None;
    }
    panic!(
        "the official TOON conformance suite is not at {candidates:?}: run \
         scripts/fetch-spec.sh (clones github.com/toon-format/spec at the pinned revision into \
         target/toon-spec), or set TOON_SPEC_DIR to a checkout, or TOON_SKIP_SPEC=1 to skip"
    )
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
