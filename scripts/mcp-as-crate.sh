#!/usr/bin/env bash
# The MCP tree moved into a crate of its own, mechanically, and checked: `src/mcp/` copied to
# target/mcp-as-crate/crate/src (`mod.rs` as `lib.rs`), `crate::mcp` written `crate` and every
# other `crate::` written `toon::`, on a manifest that depends on this crate (as `toon`) and
# the MCP features' dependencies. Its library and unit tests are then checked with each feature
# combination: the tree uses the codec only through its public API (issue #44), including what
# `tests/repo/boundary.rs` cannot see from the sources (methods of public types, `super::` paths).
# Not part of the test command (it builds the tree a second time); run it after moving code
# between the codec and `src/mcp/`. Offline once the crate's own dependencies are fetched.
#
#   scripts/mcp-as-crate.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir=target/mcp-as-crate
rm -rf "$dir"
mkdir -p "$dir/crate"
cp -r src/mcp "$dir/crate/src"
mv "$dir/crate/src/mod.rs" "$dir/crate/src/lib.rs"
cp Cargo.lock "$dir/crate/"
# Fixtures the unit tests read: `include_str!("../../tests/…")` and CARGO_MANIFEST_DIR/tests.
ln -s "$root/tests" "$dir/tests"
ln -s "$root/tests" "$dir/crate/tests"
find "$dir/crate/src" -name '*.rs' -exec perl -pi -e \
  's/(?<![\w\$])crate::(mcp\b(::)?)?/defined $1 ? (defined $2 ? "crate::" : "crate") : "toon::"/ge' {} +
# The MCP features' dependencies, as this crate's manifest declares them.
deps=$(sed -n '/^\[dependencies\]/,/^\[/p' Cargo.toml | grep -E '^(serde|serde_json|memchr|foldhash|thiserror|tokio|tokio-util|bytes|futures-util|process-wrap|getrandom|tracing|tracing-subscriber|hyper|hyper-util|http-body-util|hyper-rustls|rustls|webpki-roots) ' | sed 's/^thiserror = .*/thiserror = "2"/')
nix=$(grep -E '^nix ' Cargo.toml)
dep_list() { sed -n "/^$1 = \\[/,/^\\]/p" Cargo.toml | grep -oE '"dep:[a-z_-]+"' | paste -sd, -; }
stdio=$(dep_list mcp-stdio)
http=$(dep_list mcp-http)
cat > "$dir/crate/Cargo.toml" <<TOML
[package]
name = "toon-mcp"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[features]
tiktoken = ["toon/tiktoken"]
mcp-semantic = []
mcp-stdio = [$stdio]
mcp-http = ["mcp-stdio", $http]
mcp-proxy = ["mcp-stdio", "mcp-http"]

[dependencies]
toon = { package = "toon-codec", path = "$root" }
$deps

[target.'cfg(target_os = "linux")'.dependencies]
$nix
TOML
# serde_json with `raw_value`, which the codec's `mcp` feature turns on.
perl -pi -e 's/^serde_json = "1"$/serde_json = { version = "1", features = ["raw_value"] }/' "$dir/crate/Cargo.toml"
for features in "" mcp-semantic mcp-stdio mcp-proxy "mcp-semantic,mcp-proxy,tiktoken"; do
  echo "== toon-mcp, features [$features]"
  (cd "$dir/crate" && CARGO_TARGET_DIR="$root/target" cargo check --quiet --lib --profile test --features "$features")
  (cd "$dir/crate" && CARGO_TARGET_DIR="$root/target" cargo check --quiet --lib --features "$features")
done
echo "the MCP tree builds as a crate of its own on toon's public API"
