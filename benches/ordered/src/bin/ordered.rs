//! Decoding into `toon::Value` against serde_json's parse into `serde_json::Value` with
//! `preserve_order` (an `IndexMap`, insertion order kept as `toon::Value` keeps it), sampled
//! in turns in one run like the `ratios` table of `toon-bench`.
//!
//! `cargo run --release -p toon-bench-ordered --bin ordered [-- --quick] [-- FILTER]`

use toon_bench::all_inputs;
use toon_bench::timing::{medians, Contender, RunArgs};

fn main() {
    let args = RunArgs::from_env();
    let samples = if args.quick { 5 } else { 15 };
    assert!(
        toon_bench_ordered::keeps_order(),
        "serde_json was built without preserve_order: build this package on its own (-p)"
    );
    println!(
        "Time ratio toon ÷ serde_json with preserve_order (median; below 1.00× toon is faster):\n"
    );
    println!("| input | decode → toon::Value |");
    println!("|---|---:|");
    for data in all_inputs() {
        if !args.selects(&data.name) {
            continue;
        }
        let (json, text) = (data.json.as_str(), data.toon.as_str());
        let m = medians(
            &mut [
                Contender::new("toon", || toon::from_str::<toon::Value>(text).unwrap()),
                Contender::new("serde_json", || {
                    serde_json::from_str::<serde_json::Value>(json).unwrap()
                }),
            ],
            samples,
            args.sample(),
        );
        println!("| {} | {:.2}× |", data.name, m[0] / m[1]);
    }
}
