//! The inputs the fuzz targets once failed on (`fuzz/regressions/TARGET/`), each through its
//! target's own check (`fuzz/src/checks/`, included here as a module): what `scripts/fuzz.sh`
//! found stays found. `wire`'s are replayed by `tests/mcp.rs`.

#[path = "../../fuzz/src/checks/mod.rs"]
mod checks;

use std::path::Path;

#[test]
fn every_kept_fuzz_input_passes_its_targets_check() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut replayed = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let target = dir.file_name().unwrap().to_str().unwrap().to_owned();
        if target == "wire" {
            continue;
        }
        let check = checks::by_name(&target)
            .unwrap_or_else(|| panic!("fuzz/regressions/{target}: no such target"));
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let data = std::fs::read(&file).unwrap();
            let run = std::panic::catch_unwind(|| check(&data));
            assert!(run.is_ok(), "{} fails its check", file.display());
            replayed += 1;
        }
    }
    assert!(replayed >= 3, "{replayed} inputs replayed");
}
