//! The official TOON conformance suite (read from the shared spec checkout, never copied) and
//! our own fixtures in `spec-fixtures/`, in the same JSON format.

use crate::common;

use std::path::Path;

use serde_json::Value as Json;
use toon::{Delimiter, EncodeOptions, Value};

/// v4.4 removed the non-strict "fall through to a literal key" recoveries: these inputs, which
/// the v4.1.1 suite expects to decode, are errors in v4.4 (see the spec checkout's NOTES.md).
const V44_ERRORS: &[&str] = &[
    "falls through to a key-value line on a header delimiter mismatch",
    "skips an entry-depth line without a colon in non-strict mode",
    "treats extra brackets after valid array segment as literal key (non-strict)",
    "treats bracket segment without a length as literal key (non-strict)",
    "treats non-integer bracket content as literal key (non-strict)",
    "treats text between bracket segment and colon as literal key (non-strict)",
    "falls through to a key-value line when whitespace precedes the bracket segment",
];

#[derive(Default)]
struct Tally {
    passed: usize,
    failures: Vec<String>,
    v44_errors_seen: usize,
}

fn encode_options(opts: &Json) -> EncodeOptions {
    let mut o = EncodeOptions::new();
    if let Some(d) = opts.get("delimiter").and_then(Json::as_str) {
        o = o.delimiter(Delimiter::parse(d).expect("fixture delimiter"));
    }
    if let Some(n) = opts.get("indentSize").and_then(Json::as_u64) {
        o = o.indent_size(n as usize);
    }
    o
}

fn run_file(path: &Path, tally: &mut Tally) {
    let text = std::fs::read_to_string(path).unwrap();
    // Parse through toon::Value so object key order is kept.
    let suite: Value = serde_json::from_str(&text).unwrap();
    let suite_json: Json = serde_json::from_str(&text).unwrap();
    let category = suite_json["category"].as_str().unwrap().to_owned();
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    for (i, case) in suite_json["tests"].as_array().unwrap().iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let opts = case.get("options").cloned().unwrap_or(Json::Null);
        let mut should_error = case
            .get("shouldError")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        if V44_ERRORS.contains(&name) {
            should_error = true;
            tally.v44_errors_seen += 1;
        }
        let ordered_case = &suite["tests"][i];
        let label = format!("{file}: {name}");
        let outcome: Result<(), String> = if category == "encode" {
            let input = &ordered_case["input"];
            match toon::to_string_with(input, &encode_options(&opts)) {
                Ok(out) if should_error => Err(format!("expected an error, got {out:?}")),
                Ok(out) => {
                    let want = case["expected"].as_str().unwrap();
                    if out == want {
                        Ok(())
                    } else {
                        Err(format!("\n--- got\n{out}\n--- want\n{want}"))
                    }
                }
                Err(_) if should_error => Ok(()),
                Err(e) => Err(format!("error: {e}")),
            }
        } else {
            let input = case["input"].as_str().unwrap();
            match toon::from_str_with::<Value>(input, &common::decode_options(&opts)) {
                Ok(v) if should_error => Err(format!("expected an error, got {v:?}")),
                Ok(v) => {
                    let want = &ordered_case["expected"];
                    if common::same(&v, want) {
                        Ok(())
                    } else {
                        Err(format!("\n got {v:?}\nwant {want:?}"))
                    }
                }
                Err(_) if should_error => Ok(()),
                Err(e) => Err(format!("error: {e}")),
            }
        };
        match outcome {
            Ok(()) => tally.passed += 1,
            Err(why) => tally.failures.push(format!("{label}: {why}")),
        }
    }
}

fn run_dir(dir: &Path) -> Tally {
    let mut tally = Tally::default();
    for kind in ["encode", "decode"] {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(kind))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            run_file(&f, &mut tally);
        }
    }
    tally
}

#[test]
fn official_fixture_suite() {
    let Some(fixtures) = common::spec_fixtures() else {
        return;
    };
    let tally = run_dir(&fixtures);
    let total = tally.passed + tally.failures.len();
    eprintln!("official suite: {}/{} passed", tally.passed, total);
    for f in &tally.failures {
        eprintln!("FAIL {f}");
    }
    assert_eq!(
        tally.v44_errors_seen,
        V44_ERRORS.len(),
        "every v4.4 delta was found"
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures",
        tally.failures.len()
    );
    assert_eq!(total, 538, "the v4.1.1 suite has 538 cases");
}

#[test]
fn our_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures");
    let tally = run_dir(&dir);
    for f in &tally.failures {
        eprintln!("FAIL {f}");
    }
    assert!(tally.passed > 0);
    assert!(
        tally.failures.is_empty(),
        "{} failures",
        tally.failures.len()
    );
}
