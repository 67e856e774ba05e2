//! A counting global allocator for the memory tests. It counts each thread's heap apart, so a
//! test measures only what its own thread allocates, not what the tests beside it or the test
//! harness allocate: the tests of one binary can run side by side.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // `const`, with no destructor: reading them never allocates and never fails, even while
    // the thread is set up or torn down, so the allocator can read them. Signed, since a
    // thread may free what another allocated.
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn grew(by: usize) {
    let by = by.cast_signed();
    CURRENT.with(|current| {
        let now = current.get() + by;
        current.set(now);
        PEAK.with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrank(by: usize) {
    CURRENT.with(|current| current.set(current.get() - by.cast_signed()));
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// counters are plain thread-local cells and never affect the allocation itself.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            shrank(layout.size() - new_size);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn current() -> isize {
    CURRENT.with(Cell::get)
}

/// Bytes from `base` up to `to`, which `base` never exceeds in these uses.
fn above(to: isize, base: isize) -> usize {
    usize::try_from(to - base).expect("a heap that shrank below its base")
}

/// Peak bytes this thread allocated while `f` runs, above what it held before.
pub fn peak_during(f: impl FnOnce()) -> usize {
    let base = current();
    PEAK.with(|peak| peak.set(base));
    f();
    above(PEAK.with(Cell::get), base)
}

/// Peak heap of this thread while `f` runs and the heap its result still holds, both above
/// what the thread held before.
pub fn peak_and_retained<R>(f: impl FnOnce() -> R) -> (usize, usize, R) {
    let base = current();
    PEAK.with(|peak| peak.set(base));
    let result = f();
    (
        above(PEAK.with(Cell::get), base),
        above(current(), base),
        result,
    )
}

/// Bytes this thread holds on the heap now (allocated and not yet freed).
pub fn live() -> usize {
    above(current(), 0)
}
