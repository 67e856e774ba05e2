#!/usr/bin/env bash
# Builds the Python wheel that carries the `toon` binary (pyproject.toml: maturin's `bin`
# bindings), installs it with pip into a fresh venv, checks `toon --version`, and runs the
# installed `toon mcp serve` in front of a real MCP server (mcp-server-time) under an agent on
# the official Python SDK (tests/fixtures/mcp/clients/py_wheel_agent.py). Then the same
# through uv: `uvx --from WHEEL toon --version`, and the agent starting the gateway as a
# client config's `"command": "uvx", "args": ["--from", "toon-codec", "toon", "mcp", "serve"]`
# does, offline, with the local wheel as the only index. Prints the wheel's size and how long
# the build took. `.ci/run` runs it after the test command.
#
#   scripts/test-wheel.sh
#
# TOON_MCP_SERVERS: the servers' cache (`.ci/run` sets it); without it,
# scripts/install-mcp-servers.sh is run. Work files live in target/wheel/, the wheel in
# target/wheels/.
set -euo pipefail
cd "$(dirname "$0")/.."

# Pinned: the build backend, the uv whose `uvx` runs the wheel as a client would, and the zig
# (PyPI's `ziglang`) maturin links with on Linux x86_64, against glibc 2.17's symbols, so that
# the wheel is manylinux2014 and installs on any distribution since 2014, not only on ones as
# new as the build machine (which gave manylinux_2_34).
MATURIN_VERSION=1.16.0
UV_VERSION=0.13.9
ZIG_VERSION=0.13.0

fail() {
  echo "test-wheel: FAILED: $*" >&2
  exit 1
}
command -v python3 >/dev/null 2>&1 ||
  fail "python3 is required but not on PATH (Debian: apt-get install python3 python3-venv)"
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  fail "python3 has no working venv module (Debian: apt-get install python3-venv)"
command -v cargo >/dev/null 2>&1 || fail "cargo is required to build the wheel"
# The server behind the gateway and the SDK the agent is written with.
servers=${TOON_MCP_SERVERS:-}
if [ -z "$servers" ]; then
  servers=$(scripts/install-mcp-servers.sh) || fail "scripts/install-mcp-servers.sh failed"
fi
python=$servers/venv/bin/python
[ -x "$python" ] && [ -x "$servers/venv/bin/mcp-server-time" ] ||
  fail "no mcp-server-time and Python MCP SDK in $servers/venv (TOON_MCP_SERVERS; scripts/install-mcp-servers.sh installs them)"
"$python" -c 'import mcp' 2>/dev/null || fail "$python cannot import the MCP SDK (mcp)"

work=target/wheel
mkdir -p "$work"
work=$(cd "$work" && pwd)
root=$(pwd)

# The build tools' venv is kept between runs while it has the pinned versions.
tools=$work/tools
if [ "$("$tools/bin/maturin" --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ] ||
  [ "$("$tools/bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ] ||
  [ "$("$tools/bin/python" -m ziglang version 2>/dev/null)" != "$ZIG_VERSION" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools" || fail "python3 -m venv $tools failed"
  "$tools/bin/pip" install --quiet --disable-pip-version-check \
    "maturin==$MATURIN_VERSION" "uv==$UV_VERSION" "ziglang==$ZIG_VERSION" ||
    fail "pip could not install maturin==$MATURIN_VERSION, uv==$UV_VERSION and ziglang==$ZIG_VERSION"
fi

# The build: `cargo build --release` with pyproject.toml's features, then the binary is
# stripped, checked against the manylinux policies and zipped into target/wheels/.
rm -f target/wheels/toon_codec-*.whl
started=$(date +%s)
# On Linux x86_64, linked by zig for manylinux2014 (maturin finds zig as the tools venv's
# `python -m ziglang`); elsewhere, for the machine itself.
portable=()
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
  portable=(--zig --compatibility manylinux2014)
fi
PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --release "${portable[@]}" --out target/wheels >&2 ||
  fail "maturin build failed"
build_secs=$(($(date +%s) - started))
wheels=(target/wheels/toon_codec-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel, found: ${wheels[*]}"
wheel=$root/${wheels[0]}
tag=$(basename "$wheel" .whl | cut -d- -f3-)
# PyPI takes Linux wheels only with a manylinux (or musllinux) tag: one that maturin gave after
# checking the binary's libraries and glibc symbol versions.
if [ ${#portable[@]} -gt 0 ]; then
  case "$tag" in
    *manylinux2014_x86_64*) ;;
    *) fail "the wheel's tag $tag is not manylinux2014: zig did not link it for glibc 2.17" ;;
  esac
fi
case "$(uname -s)/$tag" in
  Linux/py3-none-manylinux* | Linux/py3-none-musllinux_* | Darwin/* | MINGW*/* | MSYS*/*) ;;
  *) fail "the wheel's tag $tag is not one PyPI takes for $(uname -s)" ;;
esac

# Installed as `pipx install` or `pip install` would: a fresh venv, no index.
venv=$work/venv
rm -rf "$venv"
python3 -m venv "$venv" || fail "python3 -m venv $venv failed"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel" ||
  fail "pip could not install $wheel"
toon=$venv/bin/toon
[ -x "$toon" ] || fail "the wheel installed no $toon"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
got=$("$toon" --version) || fail "$toon --version failed"
[ "$got" = "toon $version" ] || fail "$toon --version says '$got', Cargo.toml '$version'"

config=$work/mcp.json
cat >"$config" <<EOF
{"mcpServers": {"time": {"command": "$servers/venv/bin/mcp-server-time",
                         "args": ["--local-timezone", "UTC"]}}}
EOF
agent() {
  "$python" -W ignore::DeprecationWarning tests/fixtures/mcp/clients/py_wheel_agent.py \
    "$config" "$@" || fail "the SDK agent failed in front of: $*"
}
echo "== pip-installed: $toon mcp serve" >&2
agent "$toon" >&2

# uv, offline: its own cache under target/, the local wheel as the only source. The agent
# passes the gateway only a few variables (PATH, HOME, …: the SDK's default), so uv's options
# go on the command line.
uvx=("$tools/bin/uvx" --offline --no-config --cache-dir "$work/uv-cache")
rm -rf "$work/uv-cache"
got=$("${uvx[@]}" --from "$wheel" toon --version) || fail "uvx --from $wheel toon --version failed"
[ "$got" = "toon $version" ] || fail "uvx --from WHEEL toon --version says '$got'"
echo "== uvx --from toon-codec toon mcp serve (index: target/wheels)" >&2
agent "${uvx[@]}" --no-index --find-links "$root/target/wheels" --from toon-codec toon >&2

wheel_bytes=$(wc -c <"$wheel" | tr -d " ")
bin_bytes=$(wc -c <"$toon" | tr -d " ")
echo "test-wheel: ok: $(basename "$wheel"): $wheel_bytes bytes (installed toon: $bin_bytes bytes), tag $tag, built in ${build_secs}s"
