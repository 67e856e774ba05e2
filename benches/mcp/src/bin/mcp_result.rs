//! Encoding a 1 MB tool result with `toon::mcp::ResultEncoder` (default policy, raised size
//! limit), against the least a JSON gateway does with it: serde_json parses the text and
//! writes it compact. Interleaved samples, medians.
//!
//! `cargo run --release -p toon-bench-mcp --bin mcp_result`
//!
//! `mcp_result --loop NAME N` runs only the contender whose name contains NAME, N times, and
//! prints nothing: for callgrind, whose instruction counts repeat where times on a busy
//! machine do not (`valgrind --tool=callgrind --toggle-collect='*encode_text*'
//! target/release/mcp_result --loop encode_text 3`).

use std::time::Duration;

use serde_json::json;
use toon::mcp::{Policy, ResultEncoder, Shaping};
use toon_bench::timing::{medians, Contender};

/// A memory-server `read_graph`-like result: entities with observations and relations, as
/// pretty JSON text of at least `bytes`.
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
    let result = graph_result(1 << 20);
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    // The result as its server sends it, for the raw-text API a proxy calls.
    let sent = serde_json::to_string(&result).unwrap();
    let mut policy = Policy::default();
    policy.max_size_bytes = 4 << 20;
    let encoder = ResultEncoder::new(policy);
    let out = encoder.encode("read_graph", result.clone()).unwrap();
    let format = out["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"].clone();
    let mut contenders = [
        Contender::new("toon::mcp encode", || {
            encoder.encode("read_graph", result.clone()).unwrap()
        }),
        Contender::new("toon::mcp encode_text", || {
            encoder
                .encode_text("read_graph", &sent, &Shaping::default())
                .unwrap()
        }),
        Contender::new("serde_json parse + compact", || {
            let v: serde_json::Value = serde_json::from_str(&text).unwrap();
            serde_json::to_string(&v).unwrap()
        }),
        Contender::new("clone of the result (in both)", || result.clone()),
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, name, n] = args.as_slice() {
        assert_eq!(flag, "--loop", "mcp_result [--loop NAME N]");
        let n: usize = n.parse().expect("--loop NAME N: N a count");
        let contender = contenders
            .iter_mut()
            .find(|c| c.name.contains(name.as_str()))
            .expect("--loop NAME N: NAME part of a contender's name");
        for _ in 0..n {
            (contender.run)();
        }
        return;
    }
    let ns = medians(&mut contenders, 15, Duration::from_millis(200));
    let (serde, clone) = (ns[2], ns[3]);
    println!(
        "1 MB result ({} bytes of pretty JSON text), chose {format}:",
        text.len()
    );
    for (c, n) in contenders.iter().zip(&ns) {
        println!("  {:<32} {:>8.2} ms", c.name, n / 1e6);
    }
    println!(
        "  ratio encode / serde_json: {:.2}×, encode_text / serde_json: {:.2}×; encode minus \
         the clone: {:.2} ms",
        ns[0] / serde,
        ns[1] / serde,
        (ns[0] - clone) / 1e6
    );
}
