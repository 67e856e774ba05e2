//! Checks of the repository itself, from its files and `cargo tree`: the codec/MCP boundary in
//! the sources, the documentation's links, what the crate's features do to serde_json, and
//! pyproject.toml (the Python wheel) against Cargo.toml.
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

mod boundary;
mod doc_links;
mod features;
mod wheel;
