//! Golden files: every benchmark data set encodes to exactly the reference encoder's TOON, and
//! that TOON decodes back to the data. The bundled example is checked the same way, so this test
//! runs even where the shared data sets are absent.

use crate::common;

use std::path::Path;

use toon::Value;

fn check_pair(json_path: &Path, toon_path: &Path) {
    let json_text = std::fs::read_to_string(json_path).unwrap();
    let want = std::fs::read_to_string(toon_path).unwrap();
    let want = want.strip_suffix('\n').unwrap_or(&want);
    let value: Value = serde_json::from_str(&json_text).unwrap();

    let got = toon::to_string(&value).unwrap();
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        panic!(
            "{}: encoding differs from the reference at line {}:\n got {:?}\nwant {:?}",
            json_path.display(),
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
    let back: Value = toon::from_str(want).unwrap();
    assert!(
        common::same(&back, &value),
        "{}: decoding the reference TOON does not give the data back",
        toon_path.display()
    );
    // Also through the writer path and into serde_json's own Value.
    let mut out = Vec::new();
    toon::to_writer(&mut out, &value).unwrap();
    assert_eq!(out, want.as_bytes());
    let as_json: serde_json::Value = toon::from_str(want).unwrap();
    assert_eq!(Value::from(as_json), value);
}

#[test]
fn bundled_example_round_trips() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    check_pair(
        &dir.join("github-repos.json"),
        &dir.join("github-repos.toon"),
    );
}

#[test]
fn benchmark_datasets_match_reference_encoder() {
    let dir = common::datasets_dir();
    for name in common::DATASETS {
        check_pair(
            &dir.join(format!("{name}.json")),
            &dir.join(format!("{name}.toon")),
        );
    }
}
