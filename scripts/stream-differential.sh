#!/usr/bin/env bash
# Differential test of `toon::stream` against the reference's `decodeStreamSync`
# (@toon-format/toon 4.4.0, npm): on every official decode fixture and on random documents
# the reference encodes (as written and mutated), strict and non-strict, our events must be
# the reference's, and we must refuse exactly what it refuses (the events then agree up to
# where the first of the two stopped: it checks indentation ahead of its events and hands out
# events of the line it refuses). Not part of the test command (it needs npm); run it after
# changing the event reader or the decoder.
#
#   scripts/stream-differential.sh [COUNT] [SEED]
source "$(dirname "$0")/differential/setup.sh"
cp scripts/differential/stream-cases.mjs "$dir/stream-cases.mjs"
node "$dir/stream-cases.mjs" "${2:-1}" "${1:-4000}" tests/fixtures/toon-spec "$dir/stream-cases.jsonl"
cargo run --quiet --release --example stream_differential -- "$dir/stream-cases.jsonl"
