//! Checks of the repository itself, from its files and `cargo tree`: the codec/MCP boundary in
//! the sources, the documentation's links, what the crate's features do to serde_json, and
//! the distributions of the `toon` command against Cargo.toml: pyproject.toml (the Python
//! wheel) and npm/ (the npm packages).
// A test reads as a script: some run past the 80 lines a function is held to.
#![allow(clippy::too_many_lines)]

mod boundary;
mod doc_links;
mod features;
mod npm;
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

/// The name the `toon` command is distributed under on PyPI and npm (the crate's own,
/// `toon-codec`, is another project's on PyPI): the wheel's, the npm main package's and the
/// prefix of the npm platform packages'.
const DISTRIBUTION: &str = "toon-gateway";

/// A file of this package, by its path from the package's root.
fn read(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// This package as `cargo metadata` reads Cargo.toml.
fn package() -> serde_json::Value {
    let out = cargo(&[
        "metadata",
        "--no-deps",
        "--offline",
        "--format-version",
        "1",
    ]);
    let metadata: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // The workspace's packages (`benches/`…): the one whose manifest is this directory's.
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["manifest_path"] == manifest)
        .expect("this package in cargo metadata")
        .clone()
}
