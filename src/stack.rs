//! Stack safety for the encoder's and decoder's recursion (one call level per nesting level).
//!
//! The nesting limits ([`crate::EncodeOptions::max_depth`], [`crate::DecodeOptions::max_depth`])
//! bound how deep the recursion goes; this makes that depth safe whatever stack the caller
//! runs on (a 2 MiB spawned thread, a debug build taking ~10 KiB per level): when less than
//! [`RED_ZONE`] is left, the recursion continues on a new heap-allocated segment.

/// Stack that must be left before one more level of nesting runs on the current stack: one
/// level takes at most ~11 KiB in an unoptimized build, plus what a visitor or `Serialize`
/// implementation of the caller adds.
const RED_ZONE: usize = 128 * 1024;
/// Size of each new segment when the red zone is reached.
const SEGMENT: usize = 1024 * 1024;

/// Runs one level of nesting with enough stack for it.
#[inline]
pub(crate) fn nested<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}
