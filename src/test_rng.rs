//! A small deterministic generator for the unit tests that compare a fast path with its plain
//! version over many generated inputs (xorshift64: repeatable, no dependency).

/// The generator's next state, which is also its output.
pub(crate) fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A run of `fill` bytes shorter than `max_len`, with fewer than `max_marks` of them replaced
/// by bytes drawn from `marks` at random places: the strings that the byte-search tests feed
/// both the fast path and the plain one.
pub(crate) fn sprinkled(
    state: &mut u64,
    fill: u8,
    max_len: u64,
    max_marks: u64,
    marks: &[u8],
) -> Vec<u8> {
    let len = (next(state) % max_len) as usize;
    let mut bytes = vec![fill; len];
    for _ in 0..next(state) % max_marks {
        if len > 0 {
            let at = (next(state) % len as u64) as usize;
            let pick = next(state) as usize % marks.len();
            bytes[at] = marks[pick];
        }
    }
    bytes
}
