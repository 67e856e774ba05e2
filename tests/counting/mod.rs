//! A counting global allocator for the memory tests: each test binary that declares
//! `mod counting;` counts its own heap. Such a binary should hold one test, so no other test's
//! allocations are counted.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = CURRENT.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are plain atomics and never affect the allocation itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak bytes allocated while `f` runs, above what was live before.
pub fn peak_during(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    f();
    PEAK.load(Relaxed) - base
}

/// Peak heap while `f` runs and the heap its result still holds, both above what was live
/// before.
pub fn peak_and_retained<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let result = f();
    (
        PEAK.load(Relaxed) - base,
        CURRENT.load(Relaxed) - base,
        result,
    )
}

/// Bytes live on the heap now.
pub fn live() -> usize {
    CURRENT.load(Relaxed)
}
