//! The Rust half of `scripts/stream-differential.sh`: `toon::stream`'s events against the
//! reference's `decodeStreamSync`, one JSON line per case (`text`, `options` with `strict`
//! and `indent`, and the reference's `events`, with `err` when it threw). Prints every
//! difference and exits non-zero if there is one.

use serde_json::{Value as Json, json};
use toon::DecodeOptions;
use toon::stream::{Event, Primitive};

/// An event as the reference writes it (`{"type": "key", "key": …}`).
fn as_reference(event: &Event<'_>) -> Json {
    match event {
        Event::StartObject => json!({"type": "startObject"}),
        Event::EndObject => json!({"type": "endObject"}),
        Event::StartArray { length } => json!({"type": "startArray", "length": length}),
        Event::EndArray => json!({"type": "endArray"}),
        Event::Key(key) => json!({"type": "key", "key": key}),
        // The reference's numbers are doubles, given as JavaScript writes them.
        Event::Primitive(Primitive::Number(n)) => {
            let double = n.as_f64().unwrap_or_default();
            let text = toon::json::to_string(&double).unwrap_or_default();
            json!({"type": "primitive", "number": text})
        }
        Event::Primitive(p) => {
            let value = match p {
                Primitive::Bool(b) => Json::Bool(*b),
                Primitive::String(s) => Json::String(s.to_string()),
                _ => Json::Null,
            };
            json!({"type": "primitive", "value": value})
        }
    }
}

fn same(a: &Json, b: &Json) -> bool {
    a == b
}

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: stream_differential CASES.jsonl");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.to_string_lossy()));
    let (mut cases, mut refused, mut differences) = (0usize, 0usize, 0usize);
    for (n, line) in text.lines().enumerate() {
        let case: Json = serde_json::from_str(line).expect("a case line");
        let input = case["text"].as_str().unwrap_or_default();
        let strict = case["options"]["strict"].as_bool().unwrap_or(true);
        let indent = case["options"]["indent"].as_u64().unwrap_or(2) as usize;
        let options = DecodeOptions::new().strict(strict).indent_size(indent);
        let reference = &case["reference"];
        let theirs = reference["events"].as_array().cloned().unwrap_or_default();
        let mut ours = Vec::new();
        let mut error = None;
        for event in toon::stream::from_str_with(input, &options) {
            match event {
                Ok(event) => ours.push(as_reference(&event)),
                Err(err) => {
                    error = Some(err);
                    break;
                }
            }
        }
        cases += 1;
        let mut differ = |what: String| {
            differences += 1;
            eprintln!("case {} (strict {strict}) {input:?}: {what}", n + 1);
        };
        match (&error, reference.get("err")) {
            (None, None) => {
                let equal =
                    ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| same(a, b));
                if !equal {
                    differ(format!("events\n  ours {ours:?}\n  reference {theirs:?}"));
                }
            }
            (Some(err), None) => differ(format!("we refuse ({err}), the reference does not")),
            (None, Some(why)) => differ(format!("the reference refuses ({why}), we do not")),
            (Some(_), Some(_)) => {
                refused += 1;
                // Each stops where it finds the error: the reference checks indentation
                // ahead of its events, and hands out events of the line it refuses. Up to
                // where the first stopped, the events agree.
                let prefix = ours.iter().zip(&theirs).all(|(a, b)| same(a, b));
                if !prefix {
                    differ(format!(
                        "events before the error\n  ours {ours:?}\n  reference {theirs:?}"
                    ));
                }
            }
        }
    }
    println!("{cases} cases ({refused} refused by both), {differences} differences");
    if differences > 0 {
        std::process::exit(1);
    }
}
