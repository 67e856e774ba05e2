//! How well lean mode's `discover_tools` finds the right tool: recall@1, recall@5 and MRR of
//! `Catalog::search` on public request → tool data sets, per set and macro-averaged, over all
//! queries and over the held-out half that tuning never looked at.
//!
//! ```text
//! cargo run --release --features mcp --example discovery [-- DIR ...]
//! ```
//!
//! `DIR` holds `NAME.catalog.json` + `NAME.queries.jsonl` pairs (format:
//! `tests/fixtures/retrieval/README.md`); the default is the bundled `tests/fixtures/retrieval`.
//! `--misses SET` prints that set's fit-half queries whose tool is not in the first five.

#[path = "../tests/retrieval/mod.rs"]
mod retrieval;

use std::path::PathBuf;

use retrieval::{Part, Scores};

fn main() -> Result<(), String> {
    let mut dirs = Vec::new();
    let mut misses = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--misses" => misses = args.next(),
            _ => dirs.push(PathBuf::from(arg)),
        }
    }
    if dirs.is_empty() {
        dirs.push(retrieval::fixtures());
    }
    let mut sets = Vec::new();
    for dir in &dirs {
        sets.extend(retrieval::load_sets(dir)?);
    }
    println!(
        "{:<14} {:>5} {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6}",
        "set", "tools", "querie", "R@1", "R@5", "MRR", "fit R5", "held R5"
    );
    let mut all = Vec::new();
    let mut fit = Vec::new();
    let mut held = Vec::new();
    for set in &sets {
        let (a, f, h) = (
            retrieval::score(set, Part::All),
            retrieval::score(set, Part::Fit),
            retrieval::score(set, Part::Held),
        );
        println!(
            "{:<14} {:>5} {:>6} {:>6.3} {:>6.3} {:>6.3} | {:>6.3} {:>6.3}",
            set.name,
            set.catalog.len(),
            a.queries,
            a.r1,
            a.r5,
            a.mrr,
            f.r5,
            h.r5
        );
        all.push(a);
        fit.push(f);
        held.push(h);
        if misses.as_deref() == Some(set.name.as_str()) {
            print_misses(set);
        }
    }
    let (m, f, h) = (macro_mean(&all), macro_mean(&fit), macro_mean(&held));
    println!(
        "{:<14} {:>5} {:>6} {:>6.3} {:>6.3} {:>6.3} | {:>6.3} {:>6.3}",
        "macro mean", "", "", m.r1, m.r5, m.mrr, f.r5, h.r5
    );
    // The macro means over each half alone, R@1 and MRR too: what tuning looks at, and what
    // it must not have looked at.
    for (part, s) in [("fit macro", f), ("held macro", h)] {
        println!(
            "{:<14} {:>5} {:>6} {:>6.3} {:>6.3} {:>6.3} |",
            part, "", "", s.r1, s.r5, s.mrr
        );
    }
    Ok(())
}

fn macro_mean(scores: &[Scores]) -> Scores {
    let n = scores.len().max(1) as f64;
    let sum = |f: fn(&Scores) -> f64| scores.iter().map(f).sum::<f64>() / n;
    Scores {
        queries: 0,
        r1: sum(|s| s.r1),
        r5: sum(|s| s.r5),
        mrr: sum(|s| s.mrr),
    }
}

fn print_misses(set: &retrieval::Set) {
    for query in set.queries.iter().filter(|q| !retrieval::is_held(&q.id)) {
        let found = retrieval::ranking(&set.catalog, &query.text);
        let top5 = &found[..found.len().min(5)];
        if query
            .gold
            .iter()
            .any(|need| !need.iter().any(|g| top5.contains(g)))
        {
            println!(
                "  {:?}\n    gold {:?}\n    got  {:?}",
                query.text, query.gold, top5
            );
        }
    }
}
