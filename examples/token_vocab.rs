//! Writes `src/tokens/vocab/filter.bin`: the Bloom filter of the ASCII words that are single
//! o200k tokens by themselves or after a space, from tiktoken-rs's vocabulary (no corpus), as
//! little-endian 64-bit blocks; its counts and false-positive rate go to stderr (and into
//! `src/tokens/vocab.rs`'s doc of `FILTER`).
//!
//! `cargo run --release --example token_vocab --features tiktoken > src/tokens/vocab/filter.bin`

use std::collections::HashSet;
use std::io::Write as _;

use toon::tokens::__private::vocab::{WordForm, class_in, holdable, insert};

/// Filter size in 64-bit blocks (128 KiB): about 10 bits per word held.
const BLOCKS: usize = 16 * 1024;

fn main() {
    let bpe = tiktoken_rs::o200k_base_singleton();
    let (mut bare, mut spaced) = (HashSet::new(), HashSet::new());
    // o200k's ordinary tokens are ranks 0 to 199,997.
    for rank in 0..200_000 {
        let Ok(bytes) = bpe.decode_bytes(&[rank]) else {
            continue;
        };
        match bytes.split_first() {
            Some((b' ', word)) if holdable(word) => spaced.insert(word.to_vec()),
            _ if holdable(&bytes) => bare.insert(bytes),
            _ => false,
        };
    }
    let mut filter = vec![0u64; BLOCKS];
    for word in &bare {
        insert(&mut filter, word, WordForm::Bare);
    }
    for word in &spaced {
        insert(&mut filter, word, WordForm::Spaced);
    }
    // False positives: words held in one form taken for tokens in the other.
    let (mut others, mut wrong) = (0usize, 0usize);
    for (held, other, bit) in [(&bare, &spaced, 2), (&spaced, &bare, 1)] {
        for word in held.iter().filter(|w| !other.contains(*w)) {
            others += 1;
            wrong += usize::from(class_in(&filter, word) & bit != 0);
        }
    }
    eprintln!(
        "{} words by themselves, {} after a space; of the {others} held in one form only, \
         {:.2}% pass as tokens in the other",
        bare.len(),
        spaced.len(),
        100.0 * wrong as f64 / others as f64,
    );
    let bytes: Vec<u8> = filter
        .iter()
        .flat_map(|block| block.to_le_bytes())
        .collect();
    std::io::stdout()
        .write_all(&bytes)
        .expect("writing the filter");
}
