#!/usr/bin/env bash
# Runs every fuzz target (fuzz/fuzz_targets) for SECONDS each (default 30) with libFuzzer on
# the stable toolchain: no nightly, no cargo-fuzz (fuzz/README.md says why). Fails on a crash,
# a failed check, an input slower than TIMEOUT seconds (default 10) or a memory blow-up, and
# prints the input that did it. `scripts/fuzz.sh 30 events parser` runs only those targets.
#
# Corpora: fuzz/corpus/TARGET (kept between local runs, ignored by git), then the seeds
# scripts/fuzz-seeds.py writes from the fixtures, data sets and MCP captures, then the
# committed regressions fuzz/regressions/TARGET, which `cargo test` also replays.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
timeout=${TIMEOUT:-10}
all=(decode_bytes typed_decode roundtrip validate events parser json wire)
targets=("${@:-${all[@]}}")

# What cargo-fuzz passes, less the sanitizer (`-Zsanitizer` is nightly-only; the crate
# forbids `unsafe`, so AddressSanitizer has little to find): coverage counters, comparison
# tracing, debug assertions. An explicit --target keeps these flags off build scripts.
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
triple=$(rustc -vV | sed -n 's/^host: //p')
started=$(date +%s)
(cd fuzz && cargo build --release --target "$triple" --bins)
echo "fuzz: built in $(($(date +%s) - started)) s"

seeds=fuzz/target/seeds
rm -rf "$seeds"
python3 scripts/fuzz-seeds.py "$seeds"

failed=()
for target in "${targets[@]}"; do
  rm -rf "fuzz/artifacts/$target"
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target" "$seeds/$target"
  dirs=("fuzz/corpus/$target" "$seeds/$target")
  [ -d "fuzz/regressions/$target" ] && dirs+=("fuzz/regressions/$target")
  log="fuzz/target/$target.log"
  echo "fuzz: $target for ${seconds} s"
  # A fixed seed by default, so that CI's run is the same each time (a finding is reproduced,
  # not met by chance); TOON_FUZZ_SEED=0 draws a random one, to explore further.
  if "fuzz/target/$triple/release/$target" -max_total_time="$seconds" -timeout="$timeout" \
    -seed="${TOON_FUZZ_SEED:-1}" -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="fuzz/artifacts/$target/" "${dirs[@]}" >"$log" 2>&1; then
    # libFuzzer's totals: executions, speed, coverage, corpus.
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" |
      sed "s/^/  $target /" || true
    grep -E '^Done [0-9]+ runs' "$log" | sed "s/^/  $target /" || true
  else
    failed+=("$target")
    tail -40 "$log"
    for artifact in "fuzz/artifacts/$target"/*; do
      [ -f "$artifact" ] || continue
      echo "fuzz: $target failed on $artifact (base64 below); replay it with"
      echo "  fuzz/target/$triple/release/$target $artifact"
      echo "and keep it in fuzz/regressions/$target/ once fixed."
      base64 "$artifact"
    done
  fi
done
echo "fuzz: ${#targets[@]} targets in $(($(date +%s) - started)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}"
  exit 1
fi
