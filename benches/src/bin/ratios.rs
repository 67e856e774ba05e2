//! Prints, in one run, how toon's speed compares with serde_json's on every benchmark input:
//! a Markdown table of time ratios (toon ÷ serde_json, lower is better) and one of throughput
//! in MB/s of the input's compact JSON.
//!
//! `cargo run --release -p toon-bench --bin ratios [-- --quick] [-- FILTER]`

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use toon_bench::timing::{drop_median, mb_per_s, medians, Contender, RunArgs};
use toon_bench::{all_inputs, base_datasets, scaled, with_model, Dataset, Visit};

const OPS: [&str; 5] = [
    "encode → String",
    "encode → Write",
    "decode → typed",
    "decode → toon::Value",
    "decode → serde_json::Value",
];

struct Row {
    name: String,
    json_bytes: usize,
    toon_bytes: usize,
    /// (toon ns, serde_json ns) per operation, in the order of `OPS`.
    times: Vec<(f64, f64)>,
}

struct Measure {
    samples: usize,
    sample: Duration,
    rows: Vec<Row>,
}

impl Visit for Measure {
    fn visit<T>(&mut self, data: &Dataset, typed: T)
    where
        T: Serialize + DeserializeOwned + 'static,
    {
        let (json, toon) = (data.json.as_str(), data.toon.as_str());
        let typed = &typed;
        let pair = |a: Contender<'_>, b: Contender<'_>| {
            let m = medians(&mut [a, b], self.samples, self.sample);
            (m[0], m[1])
        };
        let mut out_a = Vec::with_capacity(json.len());
        let mut out_b = Vec::with_capacity(json.len());
        let times = vec![
            pair(
                Contender::new("toon", || toon::to_string(typed).unwrap()),
                Contender::new("serde_json", || serde_json::to_string(typed).unwrap()),
            ),
            pair(
                Contender::new("toon", || {
                    out_a.clear();
                    toon::to_writer(&mut out_a, typed).unwrap()
                }),
                Contender::new("serde_json", || {
                    out_b.clear();
                    serde_json::to_writer(&mut out_b, typed).unwrap()
                }),
            ),
            pair(
                Contender::new("toon", || toon::from_str::<T>(toon).unwrap()),
                Contender::new("serde_json", || serde_json::from_str::<T>(json).unwrap()),
            ),
            pair(
                Contender::new("toon", || toon::from_str::<toon::Value>(toon).unwrap()),
                Contender::new("serde_json", || {
                    serde_json::from_str::<serde_json::Value>(json).unwrap()
                }),
            ),
            pair(
                Contender::new("toon", || {
                    toon::from_str::<serde_json::Value>(toon).unwrap()
                }),
                Contender::new("serde_json", || {
                    serde_json::from_str::<serde_json::Value>(json).unwrap()
                }),
            ),
        ];
        eprintln!("measured {}", data.name);
        self.rows.push(Row {
            name: data.name.clone(),
            json_bytes: json.len(),
            toon_bytes: toon.len(),
            times,
        });
    }
}

fn main() {
    let args = RunArgs::from_env();
    let mut m = Measure {
        samples: if args.quick { 5 } else { 15 },
        sample: args.sample(),
        rows: Vec::new(),
    };
    for data in all_inputs() {
        if args.selects(&data.name) {
            with_model(&data, &mut m);
        }
    }

    println!("Time ratio toon ÷ serde_json (median; below 1.00× toon is faster):\n");
    println!("| input | JSON KB | TOON KB | {} |", OPS.join(" | "));
    println!("|---|---:|---:|{}", "---:|".repeat(OPS.len()));
    for row in &m.rows {
        let cells: Vec<String> = row
            .times
            .iter()
            .map(|(t, j)| format!("{:.2}×", t / j))
            .collect();
        println!(
            "| {} | {:.1} | {:.1} | {} |",
            row.name,
            row.json_bytes as f64 / 1e3,
            row.toon_bytes as f64 / 1e3,
            cells.join(" | ")
        );
    }

    println!("\nThroughput, MB/s of compact JSON input (toon / serde_json):\n");
    println!("| input | {} |", OPS.join(" | "));
    println!("|---|{}", "---:|".repeat(OPS.len()));
    for row in &m.rows {
        let cells: Vec<String> = row
            .times
            .iter()
            .map(|(t, j)| {
                format!(
                    "{:.0} / {:.0}",
                    mb_per_s(row.json_bytes, *t),
                    mb_per_s(row.json_bytes, *j)
                )
            })
            .collect();
        println!("| {} | {} |", row.name, cells.join(" | "));
    }

    if args.filter.is_none() {
        scaling(&m);
        estimate_speed(&m);
    }
}

/// Nanoseconds per JSON byte for ×1, ×10 and ×100 of the first data set: flat means linear
/// (serde_json's own parse of the same data alongside, for what the allocator adds at size).
/// The decodes' times include dropping their results; the drop columns say how much of it
/// that is, timed apart.
fn scaling(m: &Measure) {
    let Some(base) = base_datasets().into_iter().next() else {
        return;
    };
    println!("\nScaling, toon ns per JSON byte ({}):\n", base.name);
    println!(
        "| size | JSON MB | encode | decode → toon::Value | of which drop | serde_json: parse → serde_json::Value | of which drop |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for times in [1, 10, 100] {
        let data = if times == 1 {
            None
        } else {
            scaled(&base, times)
        };
        let data = data.as_ref().unwrap_or(&base);
        let value: toon::Value = toon::from_str(&data.toon).unwrap();
        let t = medians(
            &mut [
                Contender::new("encode", || toon::to_string(&value).unwrap()),
                Contender::new("decode", || {
                    toon::from_str::<toon::Value>(&data.toon).unwrap()
                }),
                Contender::new("serde_json", || {
                    serde_json::from_str::<serde_json::Value>(&data.json).unwrap()
                }),
            ],
            m.samples.min(7),
            m.sample,
        );
        let samples = m.samples.min(7);
        let drop_toon = drop_median(
            || toon::from_str::<toon::Value>(&data.toon).unwrap(),
            samples,
        );
        let drop_json = drop_median(
            || serde_json::from_str::<serde_json::Value>(&data.json).unwrap(),
            samples,
        );
        let per = |ns: f64| ns / data.json.len() as f64;
        println!(
            "| ×{times} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            data.json.len() as f64 / 1e6,
            per(t[0]),
            per(t[1]),
            per(drop_toon),
            per(t[2]),
            per(drop_json)
        );
    }
}

/// Throughput of `toon::tokens::estimate` over every data set as pretty JSON, compact JSON
/// and TOON (the target: at least 150 MB/s).
fn estimate_speed(m: &Measure) {
    let mut texts = Vec::new();
    for data in base_datasets() {
        texts.push(serde_json::to_string_pretty(&data.value).unwrap());
        texts.push(data.json);
        texts.push(data.toon);
    }
    let bytes: usize = texts.iter().map(String::len).sum();
    let t = medians(
        &mut [Contender::new("estimate", || {
            texts
                .iter()
                .map(|t| toon::tokens::estimate(t))
                .sum::<usize>()
        })],
        m.samples.min(7),
        m.sample,
    );
    println!(
        "\nToken estimate: {:.0} MB/s over {:.1} MB of pretty JSON, compact JSON and TOON",
        mb_per_s(bytes, t[0]),
        bytes as f64 / 1e6
    );
}
