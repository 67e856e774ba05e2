//! The result encoder before it read results as text (commit c0e28d7: `encode` took a parsed
//! `serde_json::Value`) against today's `encode_text` on the same 1 MB result, in one process,
//! sampled in turns. Built by `compare-c0e28d7.sh`, which puts the old crate beside this one
//! under another package name.
//!
//! `cmp [SAMPLES]` times; `cmp loop old|new N` runs one side N times (for callgrind:
//! `--toggle-collect='*ResultEncoder*encode_with*'` for the old side, `'*encode_text*'` for
//! the new; both also run once before the loop, to check they agree).

mod timing;

use std::time::Duration;

use serde_json::json;
use timing::{medians, Contender};

/// As `src/bin/mcp_result.rs`.
const KINDS: [&str; 3] = ["person", "project", "place"];

fn graph_result(bytes: usize) -> serde_json::Value {
    let mut entities = Vec::new();
    let mut relations = Vec::new();
    let mut i = 0;
    loop {
        entities.push(json!({
            "name": format!("Entity {i}"),
            "entityType": KINDS[i % 3],
            "observations": [format!("worked on topic {}", i * 7 % 100), format!("born in {}", 1900 + i % 100), "wrote influential papers"]
        }));
        relations.push(json!({"from": format!("Entity {i}"), "to": format!("Entity {}", i / 2), "relationType": "knows"}));
        i += 1;
        if i % 100 == 0 {
            let text = serde_json::to_string_pretty(
                &json!({"entities": entities, "relations": relations}),
            )
            .unwrap();
            if text.len() >= bytes {
                return json!({"content": [{"type": "text", "text": text}]});
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let result = graph_result(1 << 20);
    let sent = serde_json::to_string(&result).unwrap();
    let mut policy_new = toon_new::mcp::Policy::default();
    policy_new.max_size_bytes = 4 << 20;
    let policy_old = toon_old::mcp::Policy {
        max_size_bytes: 4 << 20,
        ..Default::default()
    };
    let new = toon_new::mcp::ResultEncoder::new(policy_new);
    let old = toon_old::mcp::ResultEncoder::new(policy_old);
    let shaping = toon_new::mcp::Shaping::default();
    // Both write the same converted text.
    let a: serde_json::Value =
        serde_json::from_str(&new.encode_text("read_graph", &sent, &shaping).unwrap()).unwrap();
    let b = old.encode("read_graph", result.clone()).unwrap();
    assert_eq!(a["content"][0]["text"], b["content"][0]["text"]);
    if args.get(1).map(String::as_str) == Some("loop") {
        let n: usize = args[3].parse().unwrap();
        for _ in 0..n {
            match args[2].as_str() {
                "new" => drop(std::hint::black_box(
                    new.encode_text("read_graph", &sent, &shaping).unwrap(),
                )),
                "old" => drop(std::hint::black_box(
                    old.encode("read_graph", result.clone()).unwrap(),
                )),
                other => panic!("loop old|new, not {other}"),
            }
        }
        return;
    }
    let samples = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(15);
    let mut contenders = [
        Contender::new("old encode (c0e28d7)", || {
            old.encode("read_graph", result.clone()).unwrap()
        }),
        Contender::new("encode_text", || {
            new.encode_text("read_graph", &sent, &shaping).unwrap()
        }),
    ];
    let ns = medians(&mut contenders, samples, Duration::from_millis(200));
    for (c, n) in contenders.iter().zip(&ns) {
        println!("  {:<24} {:>8.2} ms", c.name, n / 1e6);
    }
    println!("  encode_text / old encode: {:.3}", ns[1] / ns[0]);
}
