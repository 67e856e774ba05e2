//! Decoding into `toon::Value` peaks no higher than serde_json decoding the same data into
//! `serde_json::Value` (with `preserve_order`, the order-keeping model `toon::Value` matches),
//! on every benchmark data set. Measured with a counting allocator; this binary holds a single
//! test.

mod common;
mod counting;
use counting::peak_during;

#[test]
fn decoding_into_value_peaks_no_higher_than_serde_json() {
    let dir = common::datasets_dir();
    for name in common::DATASETS {
        let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
        let toon_text = std::fs::read_to_string(dir.join(format!("{name}.toon"))).unwrap();
        let ours = peak_during(|| {
            let value: toon::Value = toon::from_str(&toon_text).unwrap();
            drop(std::hint::black_box(value));
        });
        let theirs = peak_during(|| {
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            drop(std::hint::black_box(value));
        });
        eprintln!("{name}: toon::Value peak {ours}, serde_json::Value peak {theirs}");
        assert!(
            ours <= theirs,
            "{name}: decoding into toon::Value peaked at {ours} bytes, serde_json at {theirs}"
        );
    }
}
