//! The fuzz targets' checks: one function per target, given the fuzzer's bytes, that panics
//! when a property fails. The libFuzzer targets (`fuzz/fuzz_targets/`) call them, and so does
//! the crate's own test of the committed regressions (`tests/codec/fuzz_regressions.rs`),
//! which includes this folder as a module. The codec's targets only: `wire`, which needs the
//! MCP proxy, is `src/wire.rs`, replayed by `tests/mcp.rs`.

pub mod decode;
pub mod input;
pub mod json;
pub mod stream;
pub mod validate;

/// The check of the target named `target`, or `None` for a target without one here.
pub fn by_name(target: &str) -> Option<fn(&[u8])> {
    Some(match target {
        "decode_bytes" => decode::bytes,
        "typed_decode" => decode::typed,
        "validate" => validate::check,
        "events" => stream::events,
        "parser" => stream::parser,
        "json" => json::check,
        _ => return None,
    })
}
