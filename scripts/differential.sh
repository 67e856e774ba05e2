#!/usr/bin/env bash
# Differential test against the reference implementation, @toon-format/toon 4.4.0 (npm):
# random values encoded by the reference must encode byte-identically here and decode back
# to the same JSON; a mutated copy of each text must be accepted or refused alike, strict and
# non-strict, with the same value when accepted. Not part of the test command (it needs npm
# and takes a minute); run it after changing the encoder or decoder.
#
#   scripts/differential.sh [COUNT] [SEED]
source "$(dirname "$0")/differential/setup.sh"
cp scripts/differential/cases.mjs "$dir/cases.mjs"
node "$dir/cases.mjs" "${2:-1}" "${1:-12000}" "$dir/cases.jsonl"
cargo run --quiet --release --features cli --example differential -- "$dir/cases.jsonl"
