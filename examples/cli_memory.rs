//! Peak memory of the `toon` CLI on a large generated file, both directions.
//!
//! ```sh
//! cargo build --release --features cli
//! cargo run --release --features cli --example cli_memory [MEGABYTES]   # default 100
//! ```
//!
//! Generates MEGABYTES of JSON (log records: nested objects, arrays, strings, integers and
//! floats), encodes it with `target/release/toon`, decodes the result back, checks the round
//! trip, and prints each run's peak resident set size (GNU `/usr/bin/time -f %M`) as a multiple
//! of its input.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let megabytes: usize = std::env::args()
        .nth(1)
        .map_or(100, |a| a.parse().expect("MEGABYTES: an integer"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toon = root.join("target/release/toon");
    assert!(
        toon.is_file(),
        "build the CLI first: cargo build --release --features cli"
    );
    let dir = root.join("target/cli-memory");
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("big.json");
    std::fs::write(&json, generate(megabytes << 20)).unwrap();
    let toon_file = dir.join("big.toon");
    let back = dir.join("back.json");

    println!("| run | input | peak RSS | × input | time |");
    println!("|---|---:|---:|---:|---:|");
    measure("encode (JSON → TOON)", &toon, &json, &toon_file, &[]);
    measure(
        "decode (TOON → JSON)",
        &toon,
        &toon_file,
        &back,
        &["--indent", "0"],
    );
    let mut decoded = std::fs::read(&back).unwrap();
    assert_eq!(decoded.pop(), Some(b'\n'));
    let same = std::fs::read(&json).unwrap() == decoded;
    // Reshaping options work on a whole `toon::Value`: what that costs, for comparison.
    let scratch = dir.join("scratch.out");
    measure("encode `--stats`", &toon, &json, &scratch, &["--stats"]);
    measure(
        "encode `--exclude records.tags` (a Value)",
        &toon,
        &json,
        &scratch,
        &["--exclude", "records.tags"],
    );
    measure(
        "decode `--no-strict` (a Value)",
        &toon,
        &toon_file,
        &scratch,
        &["--no-strict"],
    );
    println!("\nround trip byte-identical: {same}");
    assert!(same);
}

/// Runs `toon INPUT -o OUTPUT ARGS` under `/usr/bin/time` and prints one table row.
fn measure(what: &str, toon: &Path, input: &Path, output: &PathBuf, args: &[&str]) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M %e"])
        .arg(toon)
        .arg(input)
        .arg("-o")
        .arg(output)
        .args(args)
        .output()
        .expect("GNU time at /usr/bin/time");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    let mut fields = last.split_whitespace();
    let kib: f64 = fields.next().and_then(|k| k.parse().ok()).expect("%M");
    let secs = fields.next().unwrap_or("?");
    let input_mb = std::fs::metadata(input).unwrap().len() as f64 / 1e6;
    let peak_mb = kib * 1024.0 / 1e6;
    println!(
        "| {what} | {input_mb:.1} MB | {peak_mb:.1} MB | {:.2}× | {secs} s |",
        peak_mb / input_mb
    );
}

/// About `size` bytes of compact JSON: one object holding an array of log records.
fn generate(size: usize) -> String {
    const LEVELS: [&str; 4] = ["debug", "info", "warn", "error"];
    const WORDS: [&str; 8] = [
        "request", "served", "cache", "miss", "retry", "upstream", "timeout", "ok",
    ];
    let mut out = String::with_capacity(size + 512);
    out.push_str(r#"{"service":"api","records":["#);
    let mut i = 0u64;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    while out.len() < size {
        if i > 0 {
            out.push(',');
        }
        let r = next();
        let words: Vec<&str> = (0..(r % 6 + 2))
            .map(|k| WORDS[((r >> (k * 3)) % 8) as usize])
            .collect();
        write!(
            out,
            r#"{{"id":{i},"ts":"2026-11-{:02}T{:02}:{:02}:{:02}Z","level":"{}","latency_ms":{},"user":{{"id":{},"name":"user{}"}},"tags":["{}","{}"],"message":"{}""#,
            r % 28 + 1,
            (r >> 8) % 24,
            (r >> 16) % 60,
            (r >> 24) % 60,
            LEVELS[(r >> 32) as usize % 4],
            ((r >> 36) % 100_000) as f64 / 100.0,
            (r >> 40) % 5000,
            (r >> 40) % 5000,
            WORDS[(r >> 44) as usize % 8],
            WORDS[(r >> 48) as usize % 8],
            words.join(" "),
        )
        .unwrap();
        if r % 3 == 0 {
            write!(
                out,
                r#","error":{{"code":{},"retryable":{}}}"#,
                500 + r % 4,
                r % 2 == 0
            )
            .unwrap();
        }
        out.push('}');
        i += 1;
    }
    out.push_str("]}");
    out
}
