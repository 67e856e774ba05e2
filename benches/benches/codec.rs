//! Criterion benchmarks: toon against serde_json on the same data, in the same run.
//!
//! Groups are `<operation>/<input>`; each holds a `toon` and a `serde_json` function, with
//! throughput counted in bytes of the input's compact JSON so every row measures the same work.
//! Filter like any criterion bench: `cargo bench -p toon-bench -- 'decode_typed/tabular'`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::{all_inputs, scaled, with_model, Dataset, Visit};

struct Register<'c>(&'c mut Criterion);

impl Visit for Register<'_> {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        let bytes = Throughput::Bytes(data.json.len() as u64);
        let (json, toon) = (data.json.as_str(), data.toon.as_str());

        let mut g = self
            .0
            .benchmark_group(format!("encode_string/{}", data.name));
        g.throughput(bytes.clone());
        g.bench_function("toon", |b| {
            b.iter(|| toon::to_string(black_box(&typed)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::to_string(black_box(&typed)).unwrap())
        });
        g.finish();

        let mut g = self
            .0
            .benchmark_group(format!("encode_writer/{}", data.name));
        g.throughput(bytes.clone());
        let mut out = Vec::with_capacity(json.len());
        g.bench_function("toon", |b| {
            b.iter(|| {
                out.clear();
                toon::to_writer(&mut out, black_box(&typed)).unwrap();
            })
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| {
                out.clear();
                serde_json::to_writer(&mut out, black_box(&typed)).unwrap();
            })
        });
        g.finish();

        let mut g = self
            .0
            .benchmark_group(format!("decode_typed/{}", data.name));
        g.throughput(bytes.clone());
        g.bench_function("toon", |b| {
            b.iter(|| toon::from_str::<T>(black_box(toon)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_str::<T>(black_box(json)).unwrap())
        });
        g.finish();

        let mut g = self
            .0
            .benchmark_group(format!("decode_value/{}", data.name));
        g.throughput(bytes);
        g.bench_function("toon::Value", |b| {
            b.iter(|| toon::from_str::<toon::Value>(black_box(toon)).unwrap())
        });
        g.bench_function("toon→serde_json::Value", |b| {
            b.iter(|| toon::from_str::<serde_json::Value>(black_box(toon)).unwrap())
        });
        g.bench_function("serde_json", |b| {
            b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(json)).unwrap())
        });
        g.finish();
    }
}

fn codec(c: &mut Criterion) {
    for data in all_inputs() {
        with_model(&data, &mut Register(c));
    }
}

/// ×1, ×10, ×100 of the tabular data set: time per byte should stay flat.
fn scaling(c: &mut Criterion) {
    let Some(base) = toon_bench::base_datasets().into_iter().next() else {
        return;
    };
    for times in [1, 10, 100] {
        let data = if times == 1 {
            None
        } else {
            scaled(&base, times)
        };
        let data = data.as_ref().unwrap_or(&base);
        let value: toon::Value = toon::from_str(&data.toon).unwrap();
        let mut g = c.benchmark_group(format!("scaling/{}", data.name));
        g.throughput(Throughput::Bytes(data.json.len() as u64));
        g.bench_function("encode", |b| {
            b.iter(|| toon::to_string(black_box(&value)).unwrap())
        });
        g.bench_function("decode", |b| {
            b.iter(|| toon::from_str::<toon::Value>(black_box(&data.toon)).unwrap())
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = codec, scaling
}
criterion_main!(benches);
