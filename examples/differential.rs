//! The Rust half of `scripts/differential.sh`: checks this crate against the reference
//! implementation's answers, one JSON line per case (`json`, `delim`, `toon`, `mutated`, and
//! the reference's `strict` / `lenient` decode of the mutated text, `{"ok": …}` or
//! `{"err": …}`). Prints every difference and exits non-zero if there is one.

use serde_json::Value as Json;
use toon::{DecodeOptions, Delimiter, EncodeOptions};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: differential CASES.jsonl");
    let text = std::fs::read_to_string(&path).expect("the cases file");
    let (mut checks, mut differences, mut known) = (0usize, 0usize, 0usize);
    let mut differ = |case: usize, what: &str, detail: String| {
        differences += 1;
        eprintln!("case {case}: {what}: {detail}");
    };
    for (case, line) in text.lines().enumerate() {
        let case_no = case + 1;
        let c: Json = serde_json::from_str(line).expect("a case line");
        let field = |name: &str| c[name].as_str().unwrap_or_default().to_string();
        let (json, toon_text, mutated) = (field("json"), field("toon"), field("mutated"));
        let Ok(value) = serde_json::from_str::<Json>(&json) else {
            continue; // `undefined` from the generator: no JSON value to compare
        };
        let delimiter = match field("delim").as_str() {
            "\t" => Delimiter::Tab,
            "|" => Delimiter::Pipe,
            _ => Delimiter::Comma,
        };
        checks += 2;
        match toon::to_string_with(&value, &EncodeOptions::new().delimiter(delimiter)) {
            Ok(ours) if ours == toon_text => {}
            Ok(ours) => differ(case_no, "encode", format!("{ours:?} vs {toon_text:?}")),
            Err(e) => differ(case_no, "encode", e.to_string()),
        }
        match toon::from_str::<Json>(&toon_text) {
            Ok(back) if same(&back, &value) => {}
            Ok(back) => differ(case_no, "decode", format!("{back} vs {value}")),
            Err(e) => differ(case_no, "decode", e.to_string()),
        }
        for (mode, strict) in [("strict", true), ("lenient", false)] {
            checks += 1;
            let reference = &c[mode];
            let ours = toon::from_str_with::<Json>(&mutated, &DecodeOptions::new().strict(strict));
            match (ours, reference.get("ok")) {
                (Ok(a), Some(b)) if same(&a, b) => {}
                (Err(_), None) => {}
                (Ok(a), Some(b)) => differ(case_no, mode, format!("{mutated:?}: {a} vs {b}")),
                (Ok(a), None) => differ(
                    case_no,
                    mode,
                    format!(
                        "{mutated:?}: we accept {a}, the reference says {}",
                        reference["err"]
                    ),
                ),
                // Known: the reference misses duplicate *empty* field names in strict mode
                // (it rejects `{a,a}`), where §14.3 makes them an error; pinned in
                // spec-fixtures/decode/edge-cases.json.
                (Err(e), Some(_))
                    if strict && e.to_string().contains("duplicate field name \"\"") =>
                {
                    known += 1;
                }
                (Err(e), Some(b)) => differ(
                    case_no,
                    mode,
                    format!("{mutated:?}: we refuse ({e}), the reference gives {b}"),
                ),
            }
        }
    }
    println!("{checks} checks, {differences} differences, {known} known (a reference bug)");
    if differences > 0 {
        std::process::exit(1);
    }
}

/// JSON equality with numbers compared as values (the reference prints `1e+21`, `-0`, …).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.as_f64() == y.as_f64(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && js_order(x)
                    .zip(js_order(y))
                    .all(|((kx, x), (ky, y))| kx == ky && same(x, y))
        }
        _ => a == b,
    }
}

/// An object's entries in JavaScript's property order, which the reference's JSON has:
/// array-index keys (`0`, `17`, … below 2^32 − 1) first in numeric order, then the others
/// in document order. A decoded document with an index key after another key keeps its
/// text order here and comes out index-first there; the values are the same.
fn js_order(map: &serde_json::Map<String, Json>) -> impl Iterator<Item = (&String, &Json)> {
    let index = |k: &str| {
        k.parse::<u32>()
            .ok()
            .filter(|&n| n != u32::MAX && n.to_string() == k)
    };
    let mut indexed: Vec<_> = map
        .iter()
        .filter_map(|(k, v)| Some((index(k)?, k, v)))
        .collect();
    indexed.sort_by_key(|&(n, _, _)| n);
    indexed
        .into_iter()
        .map(|(_, k, v)| (k, v))
        .chain(map.iter().filter(move |(k, _)| index(k).is_none()))
}
