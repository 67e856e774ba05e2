#!/usr/bin/env bash
# Builds the Python wheels that carry the `toon` binary (scripts/build-wheels.sh: the
# distribution `toon-gateway`, maturin's `bin` bindings), installs this machine's with pip into
# a fresh venv, checks `toon --version`, and runs the installed `toon mcp serve` in front of a
# real MCP server (mcp-server-time) under an agent on the official Python SDK
# (tests/fixtures/mcp/clients/py_wheel_agent.py). Then the same through uv: `uvx --from WHEEL
# toon --version`, and the agent starting the gateway as a client config's `"command": "uvx",
# "args": ["--from", "toon-gateway", "toon", "mcp", "serve"]` does, offline, with the local
# wheels as the only index. On Linux x86-64, the arm64 wheel too: installed by pip for
# manylinux2014_aarch64 into a folder of its own, its `toon` run under qemu's user-mode
# emulation (scripts/run-arm64.sh) for `--version` and under the same agent. Prints the
# wheels' sizes and how long the build took. `.ci/run` runs it after the test command.
#
#   scripts/test-wheel.sh
#
# TOON_MCP_SERVERS: the servers' cache (`.ci/run` sets it); without it,
# scripts/install-mcp-servers.sh is run. TOON_SKIP_ARM64=1 leaves arm64 out on purpose
# (without qemu it fails, saying what to install). Work files live in target/wheel/, the
# wheels in target/wheels/.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "test-wheel: FAILED: $*" >&2
  exit 1
}
command -v python3 >/dev/null 2>&1 ||
  fail "python3 is required but not on PATH (Debian: apt-get install python3 python3-venv)"
python3 -c 'import venv, ensurepip' 2>/dev/null ||
  fail "python3 has no working venv module (Debian: apt-get install python3-venv)"
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

tools=$work/tools
started=$(date +%s)
built=$(scripts/build-wheels.sh) || fail "scripts/build-wheels.sh failed"
mapfile -t wheels <<<"$built"
build_secs=$(($(date +%s) - started))
[ "${#wheels[@]}" -ge 1 ] || fail "scripts/build-wheels.sh built no wheel"
# The first is this machine's; an arm64 one follows on Linux x86-64.
wheel=${wheels[0]}

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
echo "== uvx --from toon-gateway toon mcp serve (index: target/wheels)" >&2
agent "${uvx[@]}" --no-index --find-links "$root/target/wheels" --from toon-gateway toon >&2

report=("$(basename "$wheel"): $(wc -c <"$wheel" | tr -d " ") bytes (installed toon: $(wc -c <"$toon" | tr -d " ") bytes)")

# The arm64 wheel, as pip on an arm64 machine installs it (pip is told the platform; the
# wheel's tag must match it), and its `toon` as the client there runs it, under emulation.
if [ "${#wheels[@]}" -ge 2 ]; then
  arm64=${wheels[1]}
  into=$work/arm64
  rm -rf "$into"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index --only-binary=:all: \
    --platform manylinux2014_aarch64 --target "$into" "$arm64" ||
    fail "pip could not install $arm64 for manylinux2014_aarch64"
  toon=$into/bin/toon
  [ -x "$toon" ] || fail "the arm64 wheel installed no $toon"
  # ELF's e_machine (bytes 18 and 19, little-endian): 183 is AArch64.
  machine=$(od -An -tu2 -j18 -N2 "$toon" | tr -d " ")
  [ "$machine" = 183 ] || fail "$toon is not an AArch64 binary (ELF machine $machine)"
  got=$(scripts/run-arm64.sh "$toon" --version) || fail "$toon --version under qemu failed"
  [ "$got" = "toon $version" ] || fail "the arm64 $toon --version says '$got', Cargo.toml '$version'"
  echo "== pip-installed for arm64, under qemu: $toon mcp serve" >&2
  agent "$root/scripts/run-arm64.sh" "$toon" >&2
  report+=("$(basename "$arm64"): $(wc -c <"$arm64" | tr -d " ") bytes, run under qemu")
fi

printf -v summary '%s; ' "${report[@]}"
echo "test-wheel: ok: ${summary%; }; built in ${build_secs}s"
