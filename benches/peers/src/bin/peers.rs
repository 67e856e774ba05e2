//! Prints, in one run, how much faster toon-codec is than the other Rust TOON crates on every
//! benchmark input: each peer's median time ÷ toon-codec's (higher means toon-codec is faster).
//!
//! Decoding reads the reference TOON text; a crate that rejects it (or whose encoder fails) is
//! reported as such instead of timed.
//!
//! `cargo run --release -p toon-bench-peers --bin peers [-- --quick] [-- FILTER]`

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::timing::{medians, Contender, RunArgs};
use toon_bench::{all_inputs, with_model, Dataset, Visit};
use toon_bench_peers::{decode, encode, CRATES};

struct Measure {
    samples: usize,
    sample: Duration,
    /// Per input: name, then per operation the cell for each peer.
    rows: Vec<(String, Vec<String>)>,
}

impl Measure {
    /// Times `op` for every crate that succeeds once, and renders peer ÷ toon-codec.
    fn compare(&self, op: &dyn Fn(usize) -> Result<(), String>) -> Vec<String> {
        let works: Vec<Result<(), String>> = (0..CRATES.len()).map(op).collect();
        if let Err(e) = &works[0] {
            panic!("toon-codec failed: {e}");
        }
        let timed: Vec<usize> = (0..CRATES.len()).filter(|&i| works[i].is_ok()).collect();
        let mut contenders: Vec<Contender<'_>> = timed
            .iter()
            .map(|&i| Contender::new(CRATES[i], move || op(i)))
            .collect();
        let ns = medians(&mut contenders, self.samples, self.sample);
        (1..CRATES.len())
            .map(|i| match timed.iter().position(|&t| t == i) {
                Some(k) => format!("{:.1}×", ns[k] / ns[0]),
                None => "fails".to_owned(),
            })
            .collect()
    }
}

impl Visit for Measure {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        let mut cells = self.compare(&|i| encode(i, &typed).map(drop));
        cells.extend(self.compare(&|i| decode::<T>(i, &data.toon).map(drop)));
        eprintln!("measured {}", data.name);
        self.rows.push((data.name.clone(), cells));
    }
}

fn main() {
    let args = RunArgs::from_env();
    let mut m = Measure {
        samples: if args.quick { 3 } else { 9 },
        sample: args.sample(),
        rows: Vec::new(),
    };
    for data in all_inputs() {
        if args.selects(&data.name) {
            with_model(&data, &mut m);
        }
    }
    println!("Peer time ÷ toon-codec time (median; 2.0× means toon-codec is twice as fast):\n");
    let peers = &CRATES[1..];
    let head: Vec<String> = ["encode", "decode typed"]
        .iter()
        .flat_map(|op| peers.iter().map(move |p| format!("{op}: {p}")))
        .collect();
    println!("| input | {} |", head.join(" | "));
    println!("|---|{}", "---:|".repeat(head.len()));
    for (name, cells) in &m.rows {
        println!("| {name} | {} |", cells.join(" | "));
    }
}
