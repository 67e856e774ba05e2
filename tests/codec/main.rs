//! The codec's integration tests, one module per area, in one binary: it needs no feature (with
//! `tiktoken`, `tokens` checks exact counts too) and calls nothing of the MCP tree.
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

#[path = "../common/mod.rs"]
mod common;

mod conformance;
mod error_positions;
mod fuzz_regressions;
mod golden;
mod hardening;
mod proptests;
mod serde_model;
mod speculation;
mod stream;
mod tokens;
mod validate;
mod value_api;
