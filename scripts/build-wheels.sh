#!/usr/bin/env bash
# Builds the Python wheels that carry the `toon` binary (pyproject.toml: maturin's `bin`
# bindings, the distribution `toon-gateway`) into target/wheels/ and prints their paths, one
# a line. On Linux x86-64 there are two, both manylinux2014 (glibc 2.17 or later): x86-64,
# and arm64 (aarch64) cross-built; elsewhere one, for the machine itself. The npm packages
# carry the same binaries, taken out of these wheels (scripts/build-npm.sh). Run by
# scripts/test-wheel.sh and scripts/build-npm.sh; see docs/install.md.
#
#   scripts/build-wheels.sh
#
# TOON_SKIP_ARM64=1 leaves the arm64 wheel out on purpose. The build tools' venv is
# target/wheel/tools; the Rust target arm64 needs is added with rustup when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned: the build backend, the uv whose `uvx` runs the wheel as a client would
# (scripts/test-wheel.sh), and the zig (PyPI's `ziglang`) maturin links with on Linux, against
# glibc 2.17's symbols, so that a wheel is manylinux2014 and installs on any distribution since
# 2014, not only on ones as new as the build machine (which gave manylinux_2_34). zig is also
# the arm64 C compiler (ring's C and assembly) and linker: no cross toolchain is needed.
MATURIN_VERSION=1.16.0
UV_VERSION=0.13.9
ZIG_VERSION=0.13.0
ARM64=aarch64-unknown-linux-gnu

fail() {
  echo "build-wheels: FAILED: $*" >&2
  exit 1
}
command -v python3 >/dev/null 2>&1 ||
  fail "python3 is required but not on PATH (Debian: apt-get install python3 python3-venv)"
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  fail "python3 has no working venv module (Debian: apt-get install python3-venv)"
command -v cargo >/dev/null 2>&1 || fail "cargo is required to build the wheels"

# The build tools' venv is kept between runs while it has the pinned versions.
tools=$(pwd)/target/wheel/tools
if [ "$("$tools/bin/maturin" --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ] ||
  [ "$("$tools/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ] ||
  [ "$("$tools/bin/python" -m ziglang version 2>/dev/null)" != "$ZIG_VERSION" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools" || fail "python3 -m venv $tools failed"
  "$tools/bin/pip" install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "uv==$UV_VERSION" "ziglang==$ZIG_VERSION" >&2 ||
    fail "pip could not install maturin==$MATURIN_VERSION, uv==$UV_VERSION and ziglang==$ZIG_VERSION"
fi

# TARGET:TAG pairs: the Rust target (empty: the machine's own) and the platform tag its wheel
# must have (empty: any PyPI takes for this system).
builds=(":")
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
  builds=(":manylinux2014_x86_64")
  if [ "${TOON_SKIP_ARM64:-}" != 1 ]; then
    builds+=("$ARM64:manylinux2014_aarch64")
    if ! rustc --print target-libdir --target "$ARM64" 2>/dev/null | xargs -r test -d; then
      command -v rustup >/dev/null 2>&1 ||
        fail "the Rust target $ARM64 is not installed and there is no rustup to add it"
      rustup target add "$ARM64" >&2 || fail "rustup target add $ARM64 failed"
    fi
  fi
fi

for build in "${builds[@]}"; do
  target=${build%%:*}
  want=${build#*:}
  args=(--release --out target/wheels)
  [ -n "$target" ] && args+=(--target "$target")
  # Linked by zig for manylinux2014 (maturin finds zig as the tools venv's `python -m ziglang`).
  [ -n "$want" ] && args+=(--zig --compatibility manylinux2014)
  # The wheel of this platform from an earlier build would be taken for this one's.
  rm -f target/wheels/toon_gateway-*"${want:-}"*.whl
  started=$(date +%s)
  PATH="$tools/bin:$PATH" "$tools/bin/maturin" build "${args[@]}" >&2 ||
    fail "maturin build ${args[*]} failed"
  wheels=(target/wheels/toon_gateway-*"${want:-}"*.whl)
  [ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel, found: ${wheels[*]}"
  tag=$(basename "${wheels[0]}" .whl | cut -d- -f3-)
  # PyPI takes Linux wheels only with a manylinux (or musllinux) tag: one that maturin gave after
  # checking the binary's libraries and glibc symbol versions.
  case "$tag" in
    *"$want"*) ;;
    *) fail "the wheel's tag $tag is not $want: zig did not link it for glibc 2.17" ;;
  esac
  case "$(uname -s)/$tag" in
    Linux/py3-none-manylinux* | Linux/py3-none-musllinux_* | Darwin/* | MINGW*/* | MSYS*/*) ;;
    *) fail "the wheel's tag $tag is not one PyPI takes for $(uname -s)" ;;
  esac
  echo "build-wheels: $(basename "${wheels[0]}") built in $(($(date +%s) - started))s" >&2
  echo "$(pwd)/${wheels[0]}"
done
