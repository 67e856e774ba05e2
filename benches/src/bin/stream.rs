//! Prints, in one run, how reading TOON as events (`toon::stream`) compares with decoding it
//! into `toon::Value` on the eight data sets: the events of `stream::from_str` (borrowing
//! from the text) and of `stream::Events` over a reader (owning each payload), every event
//! consumed, against `toon::from_str::<toon::Value>` (whose time includes dropping the
//! value). Contenders are sampled in turns, so the ratios survive a noisy machine.
//!
//! `cargo run --release -p toon-bench --bin stream [-- --quick] [-- FILTER]`

use std::hint::black_box;

use toon::stream::{Event, Events};
use toon_bench::base_datasets;
use toon_bench::timing::{mb_per_s, medians, Contender, RunArgs};

/// Consumes events: counts them and looks at each payload, so none is optimized away.
fn consume<'a>(events: impl Iterator<Item = toon::Result<Event<'a>>>) -> usize {
    let mut n = 0;
    for event in events {
        n += match black_box(event.unwrap()) {
            Event::Key(k) => k.len(),
            _ => 1,
        };
    }
    n
}

fn main() {
    let args = RunArgs::from_env();
    let samples = if args.quick { 5 } else { 15 };
    println!(
        "Events ÷ decoding into `toon::Value` (median time; below 1.00× events are faster):\n"
    );
    println!(
        "| input | TOON KB | events: from_str | events: Events (reader) | toon::Value MB/s | from_str MB/s | Events MB/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for data in base_datasets() {
        if !args.selects(&data.name) {
            continue;
        }
        let toon = data.toon.as_str();
        let t = medians(
            &mut [
                Contender::new("value", || toon::from_str::<toon::Value>(toon).unwrap()),
                Contender::new("from_str", || consume(toon::stream::from_str(toon))),
                Contender::new("Events", || consume(Events::new(toon.as_bytes()))),
            ],
            samples,
            args.sample(),
        );
        println!(
            "| {} | {:.1} | {:.2}× | {:.2}× | {:.0} | {:.0} | {:.0} |",
            data.name,
            toon.len() as f64 / 1e3,
            t[1] / t[0],
            t[2] / t[0],
            mb_per_s(toon.len(), t[0]),
            mb_per_s(toon.len(), t[1]),
            mb_per_s(toon.len(), t[2]),
        );
    }
}
