//! Runs one crate's encode or typed decode on one input N times, for instruction counts under
//! callgrind, the peers' counterpart of `toon-bench`'s `profile`:
//!
//! `valgrind --tool=callgrind target/release/peer-profile CRATE OPERATION INPUT N`
//!
//! CRATE is an index into [`CRATES`] (0 is toon-codec, 1 serde_toon, 2 toon-format);
//! OPERATION is `encode` or `decode`; INPUT a benchmark input's name (`deep`, `nested×10`).
//! A run of N minus a run of 0 is the cost of N passes.

use std::hint::black_box;
use std::process::exit;

use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::{all_inputs, with_model, Dataset, Visit};
use toon_bench_peers::{decode, encode, CRATES};

struct Run {
    krate: usize,
    decode: bool,
    passes: usize,
}

impl Visit for Run {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        for _ in 0..self.passes {
            let done = if self.decode {
                decode::<T>(self.krate, &data.toon).map(|v| drop(black_box(v)))
            } else {
                encode(self.krate, &typed).map(|v| drop(black_box(v)))
            };
            if let Err(e) = done {
                eprintln!("{} failed on {}: {e}", CRATES[self.krate], data.name);
                exit(1);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [krate, op, input, passes] = args.as_slice() else {
        eprintln!("usage: peer-profile CRATE(0-2) encode|decode INPUT PASSES");
        exit(2);
    };
    let (Ok(krate), Ok(passes)) = (krate.parse::<usize>(), passes.parse()) else {
        eprintln!("CRATE and PASSES are numbers");
        exit(2);
    };
    if krate >= CRATES.len() || !matches!(op.as_str(), "encode" | "decode") {
        eprintln!("usage: peer-profile CRATE(0-2) encode|decode INPUT PASSES");
        exit(2);
    }
    let Some(data) = all_inputs().into_iter().find(|d| &d.name == input) else {
        eprintln!("no input named {input:?}");
        exit(2);
    };
    let mut run = Run {
        krate,
        decode: op == "decode",
        passes,
    };
    with_model(&data, &mut run);
}
