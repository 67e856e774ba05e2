//! Criterion benchmarks of lean mode's discovery (issue #43, item 4): `Catalog::search` per
//! query on a 500-tool catalog, and the search index built for 5,000 tools. Targets: at most
//! 1 ms a query, 50 ms an index.
//!
//! `cargo bench -p toon-bench-mcp --bench catalog` (filter like any criterion bench:
//! `-- index_5000`). Catalogs and queries are real (see the package's `lib.rs`).
//!
//! Groups:
//! - `search_500/spread_48`: 48 queries spread over both sets, one call each; throughput in
//!   queries, so criterion's "elem/s" is queries a second.
//! - `search_500/longest_5`: the five longest queries (585–1,089 characters).
//! - `index_5000/first_search`: the first search of a catalog just built (the index is built
//!   then, `Catalog::search_index`); the catalog is built outside the timing.
//! - `index_5000/new_catalog_and_first_search`: the same with the catalog's construction
//!   (reading 5,000 definitions) timed too.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use toon_bench_mcp::{catalog, longest, spread, tool_lists};

/// Results asked of each search: `discover_tools`' default.
const LIMIT: usize = 10;

fn search_500(c: &mut Criterion) {
    let catalog = catalog(&tool_lists(500));
    // The index is built once, before anything is timed.
    black_box(catalog.search("warm up", LIMIT));
    let mut g = c.benchmark_group("search_500");
    for (name, queries) in [("spread_48", spread(48)), ("longest_5", longest(5))] {
        g.throughput(Throughput::Elements(queries.len() as u64));
        g.bench_function(name, |b| {
            b.iter(|| {
                for q in &queries {
                    black_box(catalog.search(black_box(q), LIMIT));
                }
            })
        });
    }
    g.finish();
}

fn index_5000(c: &mut Criterion) {
    let lists = tool_lists(5_000);
    let query = &spread(1)[0];
    let mut g = c.benchmark_group("index_5000");
    // Each sample builds an index of 5,000 tools: a few seconds per group at most.
    g.sample_size(20).measurement_time(Duration::from_secs(10));
    g.bench_function("first_search", |b| {
        b.iter_batched(
            || catalog(&lists),
            // The catalog goes back out to be dropped outside the timing.
            |catalog| {
                black_box(catalog.search(query, LIMIT).len());
                catalog
            },
            BatchSize::LargeInput,
        )
    });
    g.bench_function("new_catalog_and_first_search", |b| {
        b.iter_with_large_drop(|| {
            let catalog = catalog(black_box(&lists));
            black_box(catalog.search(query, LIMIT).len());
            catalog
        })
    });
    g.finish();
}

criterion_group!(benches, search_500, index_5000);
criterion_main!(benches);
