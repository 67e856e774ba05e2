//! Shared helpers for integration tests: locating the shared spec suite and data sets, and
//! order-sensitive comparison of values (§2 equality).
#![allow(dead_code)]

use std::path::PathBuf;

use toon::Value;

/// The official spec checkout: `$TOON_SPEC_DIR`, else `../shared/toon-spec` next to the crate.
pub fn spec_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TOON_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/toon-spec"),
    };
    dir.join("tests/fixtures").is_dir().then_some(dir)
}

/// The benchmark data sets: `$TOON_DATASETS_DIR`, else `../shared/datasets`.
pub fn datasets_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("TOON_DATASETS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/datasets"),
    };
    dir.join("tabular.json").is_file().then_some(dir)
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
