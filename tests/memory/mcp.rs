//! The MCP result encoder's heap: while it converts a 1 MB result it holds the parsed value
//! and the renderings of that result and nothing else, and afterwards it keeps nothing but its
//! fixed-size stats. Measured with a counting allocator (this test's own thread).

use crate::counting::{live, peak_during};

use serde_json::json;
use toon::mcp::{Policy, ResultEncoder};

fn result_of(bytes: usize) -> serde_json::Value {
    let mut rows = Vec::new();
    let mut text = String::new();
    while text.len() < bytes {
        for i in rows.len()..rows.len() + 500 {
            rows.push(json!({"id": i, "name": format!("entity {i}"), "score": i as f64 / 7.0}));
        }
        text = serde_json::to_string_pretty(&json!({ "rows": rows })).unwrap();
    }
    json!({"content": [{"type": "text", "text": text}]})
}

/// Heap bytes held by a result of one text block: the text's buffer and the JSON maps around
/// it, measured by dropping a clone.
fn heap_of(result: &serde_json::Value) -> usize {
    let before = live();
    let copy = result.clone();
    let with = live();
    drop(copy);
    with - before
}

#[test]
fn encoding_holds_only_what_the_result_needs() {
    let mut policy = Policy::default();
    policy.max_size_bytes = 8 << 20;
    let encoder = ResultEncoder::new(policy);
    // Warm up once: with `tiktoken`, the first count loads the vocabulary (a one-time global).
    encoder.encode("rows", result_of(4096)).unwrap();
    let mut peaks = Vec::new();
    for size in [256 << 10, 1 << 20] {
        let result = result_of(size);
        let text_len = result["content"][0]["text"].as_str().unwrap().len();
        // Heap of everything but the input result, which the encoder takes and frees.
        let base = live() - heap_of(&result);
        let mut out = json!(null);
        let peak = peak_during(|| out = encoder.encode("rows", result).unwrap());
        let retained = live() - base;
        let out_len = out["content"][0]["text"].as_str().unwrap().len();
        assert_eq!(
            out["content"][0]["_meta"]["rs.toon-codec/conversion"]["format"],
            "toon"
        );
        drop(out);
        let after_drop = live() as isize - base as isize;
        eprintln!(
            "input text {text_len} B: peak {peak} B ({:.2}× the text), output {out_len} B retained {retained} B",
            peak as f64 / text_len as f64
        );
        peaks.push(peak as f64 / text_len as f64);
        // The input result is moved in and freed; what stays is the output result.
        assert!(
            retained <= out_len + 4096,
            "{retained} retained for {out_len}"
        );
        assert!(after_drop.abs() < 1024, "{after_drop}");
    }
    // Proportional to the result, never more at 1 MB than at 256 KB, and small (6.1× at
    // 256 KB; 5.4× at 1 MB, decided on a sample so that only TOON is written whole; more with
    // `tiktoken`, whose exact count holds a token buffer).
    assert!(peaks.iter().all(|&p| p < 10.0), "{peaks:?}");
    assert!(peaks[1] < peaks[0] + 0.5, "{peaks:?}");
}
