//! Checks of the repository itself, from its files and `cargo tree`: the codec/MCP boundary in
//! the sources, the documentation's links, what the crate's features do to serde_json, and
//! pyproject.toml (the Python wheel) against Cargo.toml.
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

mod boundary;
mod doc_links;
mod features;
mod wheel;

/// What `cargo ARGS…` prints, run in this package's directory; it must succeed.
fn cargo(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}
