//! Token estimator calibration against the o200k_base counts published with the data sets
//! (`tests/fixtures/datasets/README.md`), and — with the `tiktoken` feature — against exact counts.

use crate::common;

use toon::tokens::estimate;

/// (name, pretty JSON, compact JSON, TOON) o200k counts from the data sets' README table.
fn published_counts(readme: &str) -> Vec<(String, [usize; 3])> {
    readme
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| data set"))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            let n = |s: &str| s.replace(',', "").parse::<usize>().ok();
            Some((
                cells.first()?.to_string(),
                [n(cells.get(3)?)?, n(cells.get(4)?)?, n(cells.get(5)?)?],
            ))
        })
        .collect()
}

/// The three renderings of a data set, as the published counts were taken.
fn renderings(dir: &std::path::Path, name: &str) -> [String; 3] {
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let toon = std::fs::read_to_string(dir.join(format!("{name}.toon"))).unwrap();
    [
        serde_json::to_string_pretty(&value).unwrap(),
        serde_json::to_string(&value).unwrap(),
        toon.trim_end_matches('\n').to_owned(),
    ]
}

#[test]
fn estimate_is_within_target_of_o200k_on_the_data_sets() {
    let dir = common::datasets_dir();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let counts = published_counts(&readme);
    assert_eq!(counts.len(), 8, "README table parsed");
    let mut errors = Vec::new();
    for (name, exact) in &counts {
        for (text, exact) in renderings(&dir, name).iter().zip(exact) {
            let err = (estimate(text) as f64 - *exact as f64).abs() / *exact as f64;
            errors.push((name.clone(), err));
        }
    }
    let mean = errors.iter().map(|e| e.1).sum::<f64>() / errors.len() as f64;
    let worst = errors.iter().map(|e| e.1).fold(0.0, f64::max);
    eprintln!(
        "estimate vs o200k: mean {:.1}%, worst {:.1}%",
        mean * 100.0,
        worst * 100.0
    );
    assert_eq!(errors.len(), 24);
    // The weights are fitted on real-world JSON (`examples/token_fit.rs`); words are weighed by
    // whether they are o200k tokens (`tokens::vocab`), so these generated surnames and company
    // names come out close too: nested-group's TOON, mostly such names, is the worst (2.5%).
    assert!(mean <= 0.01, "mean error {mean}");
    assert!(worst <= 0.04, "worst error {worst}: {errors:?}");
}

/// What `auto` rests on in a build without `tiktoken`: the estimate picks the rendering that
/// the exact counts pick, on every data set.
#[test]
fn estimate_chooses_as_exact_counts_do_on_the_data_sets() {
    let dir = common::datasets_dir();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for (name, [_, compact_exact, toon_exact]) in published_counts(&readme) {
        let [_, compact, toon] = renderings(&dir, &name);
        let estimated_toon_wins = estimate(&toon) < estimate(&compact);
        assert_eq!(
            estimated_toon_wins,
            toon_exact < compact_exact,
            "{name}: exact JSON {compact_exact} vs TOON {toon_exact}, estimated {} vs {}",
            estimate(&compact),
            estimate(&toon)
        );
    }
}

#[cfg(feature = "tiktoken")]
#[test]
fn exact_count_matches_the_published_o200k_counts() {
    use toon::tokens::{Encoding, count};
    let dir = common::datasets_dir();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    for (name, exact) in published_counts(&readme).into_iter().take(3) {
        let [_, compact, toon] = renderings(&dir, &name);
        assert_eq!(
            count(&compact, Encoding::O200kBase),
            exact[1],
            "{name} compact"
        );
        assert_eq!(count(&toon, Encoding::O200kBase), exact[2], "{name} toon");
    }
    assert!(count("hello world", Encoding::Cl100kBase) == 2);
}
