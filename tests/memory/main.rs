//! Bounded memory, measured with a counting global allocator (`counting.rs`) that counts each
//! thread apart: the tests run side by side and each counts only its own thread's heap.
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

#[path = "../common/mod.rs"]
mod common;
// A global allocator is an unsafe trait: the one place the crate allows `unsafe` (the library
// forbids it).
#[allow(unsafe_code)]
mod counting;

mod encode;
mod header_bomb;
#[cfg(feature = "mcp")]
mod mcp;
mod stream;
mod value;
