use toon::tokens::{count, estimate, Encoding::O200kBase};
fn main() {
    for dir in std::env::args().skip(1) {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).unwrap();
            let Ok(v) = serde_json::from_str::<toon::Value>(&text) else {
                continue;
            };
            let json = serde_json::to_string(&v).unwrap();
            let Ok(t) = toon::to_string(&v) else { continue };
            let deep = t.lines().filter(|l| l.starts_with("  ")).count();
            let lines = t.lines().count();
            let indent_spaces: usize = t
                .lines()
                .map(|l| l.len() - l.trim_start_matches(' ').len())
                .sum();
            println!(
                "{},{},{},{},{},{},{},{},{}",
                p.display(),
                count(&json, O200kBase),
                count(&t, O200kBase),
                estimate(&json),
                estimate(&t),
                deep,
                lines,
                indent_spaces,
                t.len()
            );
        }
    }
}
