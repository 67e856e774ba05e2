//! Criterion: toon-codec, serde_toon 0.3.0 and toon-format 0.7.0 on the same typed data.
//! Groups are `encode/<input>` and `decode_typed/<input>` (decoding the reference TOON text);
//! a crate that fails on an input is left out of that group.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::{all_inputs, with_model, Dataset, Visit};
use toon_bench_peers::{decode, encode, CRATES};

struct Register<'c>(&'c mut Criterion);

impl Visit for Register<'_> {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        let bytes = Throughput::Bytes(data.json.len() as u64);
        let mut g = self.0.benchmark_group(format!("encode/{}", data.name));
        g.throughput(bytes.clone());
        for (i, name) in CRATES.iter().enumerate() {
            if encode(i, &typed).is_ok() {
                g.bench_function(*name, |b| b.iter(|| encode(i, black_box(&typed))));
            }
        }
        g.finish();
        let mut g = self
            .0
            .benchmark_group(format!("decode_typed/{}", data.name));
        g.throughput(bytes);
        for (i, name) in CRATES.iter().enumerate() {
            if decode::<T>(i, &data.toon).is_ok() {
                g.bench_function(*name, |b| b.iter(|| decode::<T>(i, black_box(&data.toon))));
            }
        }
        g.finish();
    }
}

fn peers(c: &mut Criterion) {
    for data in all_inputs() {
        with_model(&data, &mut Register(c));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = peers
}
criterion_main!(benches);
