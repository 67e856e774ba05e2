//! A small deterministic generator for the unit tests that compare a fast path with its plain
//! version over many generated inputs (xorshift64: repeatable, no dependency).

/// The generator's next state, which is also its output.
pub(crate) fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
