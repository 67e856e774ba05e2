//! The inputs the `wire` fuzz target once failed on (`fuzz/regressions/wire/`), through its
//! own check (`fuzz/src/wire.rs`, included here): the codec's targets are replayed by
//! `tests/codec/fuzz_regressions.rs`.

// The input reader is shared with the codec's targets; `wire` uses only its cutting.
#[allow(dead_code)]
#[path = "../../fuzz/src/checks/input.rs"]
mod input;
#[path = "../../fuzz/src/wire.rs"]
mod wire;

use std::path::Path;

#[test]
fn every_kept_wire_input_passes_the_wire_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions/wire");
    let mut replayed = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let file = file.unwrap().path();
        let data = std::fs::read(&file).unwrap();
        let run = std::panic::catch_unwind(|| wire::check(&data));
        assert!(run.is_ok(), "{} fails the wire check", file.display());
        replayed += 1;
    }
    assert!(replayed >= 1, "{replayed} inputs replayed");
}
