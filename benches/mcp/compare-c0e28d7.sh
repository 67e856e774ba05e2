#!/bin/sh
# Times today's `ResultEncoder::encode_text` against the result encoder of commit c0e28d7
# (`encode` on a parsed `serde_json::Value`, before results were edited as text) in one
# process, sampled in turns: the old crate is unpacked beside a scratch crate under another
# package name (`toon-codec-old`), so both link into one binary.
#
#   benches/mcp/compare-c0e28d7.sh [DIR] [SAMPLES]
#
# DIR (default: a new temporary directory) keeps the build; the binary is DIR/cmp/target/
# release/cmp (`cmp loop old|new N` for callgrind, see compare/main.rs).
set -eu
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
dir=${1:-$(mktemp -d)}
samples=${2:-15}
mkdir -p "$dir/cmp/src"
if [ ! -d "$dir/old" ]; then
    git -C "$repo" archive --prefix=old/ c0e28d7 | tar -x -C "$dir"
    sed -i 's/^name = "toon-codec"$/name = "toon-codec-old"/' "$dir/old/Cargo.toml"
fi
cat >"$dir/cmp/Cargo.toml" <<TOML
[package]
name = "cmp"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
toon-new = { package = "toon-codec", path = "$repo", features = ["mcp"] }
toon-old = { package = "toon-codec-old", path = "../old", features = ["mcp"] }
serde_json = "1"

[profile.release]
debug = 1
TOML
cp "$repo/benches/mcp/compare/main.rs" "$dir/cmp/src/main.rs"
cp "$repo/benches/src/timing.rs" "$dir/cmp/src/timing.rs"
cd "$dir/cmp"
cargo build --release --quiet
echo "built in $dir/cmp/target/release/cmp"
./target/release/cmp "$samples"
