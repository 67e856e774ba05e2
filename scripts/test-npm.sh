#!/usr/bin/env bash
# Builds the npm packages (scripts/build-npm.sh: `toon-gateway` and its platform packages),
# installs them offline from their tarballs into fresh folders, as `npm install toon-gateway`
# would from the registry: the main package a dependency, every platform package an optional
# one, npm choosing by their `os`/`cpu`/`libc`. Then, in the x86-64 folder: the installed
# `toon --version`; exit statuses and signals through the launcher as without it; the
# installed gateway in front of a real MCP server (mcp-server-time) under an agent on the
# official TypeScript SDK (tests/fixtures/mcp/clients/sdk_npm_agent.mjs), started as
# `node_modules/.bin/toon` and as a client config's `"command": "npx", "args": ["-y",
# "toon-gateway", "mcp", "serve"]` starts it (offline: npx finds the installed package); the
# launcher's message on a platform without a package. In the folder npm installs for arm64
# (`--cpu=arm64`): the launcher's message when the package for this machine is missing, and
# the arm64 binary under qemu's user-mode emulation (scripts/run-arm64.sh) for `--version` and
# under the same agent. `.ci/run` runs it after scripts/test-wheel.sh.
#
#   scripts/test-npm.sh
#
# TOON_MCP_SERVERS: the servers' cache (`.ci/run` sets it); without it,
# scripts/install-mcp-servers.sh is run. TOON_SKIP_ARM64=1 leaves arm64 out on purpose. Work
# files live in target/npm/try/.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "test-npm: FAILED: $*" >&2
  exit 1
}
command -v node >/dev/null 2>&1 || fail "node is required but not on PATH (Debian: apt-get install nodejs npm)"
servers=${TOON_MCP_SERVERS:-}
if [ -z "$servers" ]; then
  servers=$(scripts/install-mcp-servers.sh) || fail "scripts/install-mcp-servers.sh failed"
fi
sdk=$servers/npm/node_modules/@modelcontextprotocol/sdk
[ -f "$sdk/package.json" ] && [ -x "$servers/venv/bin/mcp-server-time" ] ||
  fail "no TypeScript MCP SDK and mcp-server-time in $servers (TOON_MCP_SERVERS; scripts/install-mcp-servers.sh installs them)"

root=$(pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
started=$(date +%s)
tarballs=$(scripts/build-npm.sh) || fail "scripts/build-npm.sh failed"
build_secs=$(($(date +%s) - started))
main=$(grep "/toon-gateway-$version\.tgz\$" <<<"$tarballs") || fail "build-npm.sh packed no toon-gateway"

work=$root/target/npm/try
rm -rf "$work"
mkdir -p "$work"
cache=$work/npm-cache
config=$work/mcp.json
cat >"$config" <<EOF
{"mcpServers": {"time": {"command": "$servers/venv/bin/mcp-server-time",
                         "args": ["--local-timezone", "UTC"]}}}
EOF

# A fresh folder DIR with every package installed from its tarball, with no registry and an
# empty cache; NPM_ARGS choose the platform as npm's `--cpu` does.
install() {
  local dir=$1 optional=() tarball
  shift
  mkdir -p "$dir"
  for tarball in $(grep -v "^$main\$" <<<"$tarballs"); do
    name=$(basename "$tarball" "-$version.tgz")
    optional+=("\"$name\": \"file:$tarball\"")
  done
  cat >"$dir/package.json" <<EOF
{"private": true, "dependencies": {"toon-gateway": "file:$main"},
 "optionalDependencies": {$(IFS=, && echo "${optional[*]}")}}
EOF
  (cd "$dir" && npm install --offline --no-audit --no-fund --cache "$cache" "$@" >&2) ||
    fail "npm install --offline $* in $dir failed"
}
# The toon-gateway packages npm installed into DIR, by name, on one line.
installed() {
  (cd "$1/node_modules" && ls -d toon-gateway* | tr '\n' ' ' | sed 's/ $//')
}
agent() {
  local dir=$1
  shift
  (cd "$dir" && node "$root/tests/fixtures/mcp/clients/sdk_npm_agent.mjs" "$sdk" "$config" "$@") >&2 ||
    fail "the SDK agent failed in front of: $*"
}

# Stopped by SIGNAL while it serves, COMMAND ends as the binary itself does (toon stops on
# SIGTERM and exits 0; SIGHUP kills it) and leaves no child behind: the launcher passed the
# signal on and ended as the binary did. Its stdin stays open, so no end of input stops it.
stops_like() {
  local signal=$1 command=$2 binary=$3 fifo=$work/stdin log=$work/stderr statuses=()
  local program pid held child waited
  rm -f "$fifo" && mkfifo "$fifo"
  for program in "$binary" "$command"; do
    sleep 60 >"$fifo" &
    held=$!
    "$program" mcp serve --config "$config" <"$fifo" 2>"$log" &
    pid=$!
    # Serving: it has read its config (and the launcher has its child), then a moment for the
    # runtime to set its signal handlers up.
    for waited in $(seq 100); do
      child=$(cat /proc/"$pid"/task/*/children 2>/dev/null | tr -d ' ')
      grep -q "MCP servers from" "$log" && { [ "$program" = "$binary" ] || [ -n "$child" ]; } && break
      [ "$waited" = 100 ] && fail "$program mcp serve did not start within 10 s: $(cat "$log")"
      sleep 0.1
    done
    sleep 0.5
    kill -s "$signal" "$pid"
    status=0
    wait "$pid" 2>/dev/null || status=$?
    kill -0 "$held" 2>/dev/null || fail "$program stopped only at the end of its input, not on SIG$signal"
    kill "$held"
    wait "$held" 2>/dev/null || true
    statuses+=("$status")
  done
  [ "${statuses[0]}" = "${statuses[1]}" ] ||
    fail "on SIG$signal the binary exits with ${statuses[0]}, the launcher with ${statuses[1]}"
  [ ! -e "/proc/$child" ] || fail "on SIG$signal the launcher left its child $child running"
}

# The x86-64 folder: the packages npm chose, the launcher and the gateway behind it.
x64=$work/x64
install "$x64"
[ "$(installed "$x64")" = "toon-gateway toon-gateway-linux-x64" ] ||
  fail "npm installed $(installed "$x64") on linux-x64"
toon=$x64/node_modules/.bin/toon
binary=$x64/node_modules/toon-gateway-linux-x64/bin/toon
got=$("$toon" --version) || fail "$toon --version failed"
[ "$got" = "toon $version" ] || fail "$toon --version says '$got', Cargo.toml '$version'"
# A usage error: the binary's message and exit status (1: README.md, "CLI"), not the launcher's.
status=0
message=$("$toon" --no-such-flag 2>&1) || status=$?
[ "$status" = 1 ] && grep -q "unexpected argument '--no-such-flag'" <<<"$message" ||
  fail "$toon --no-such-flag exits with $status, saying: $message"
stops_like TERM "$toon" "$binary"
stops_like HUP "$toon" "$binary"
echo "== npm-installed: node_modules/.bin/toon mcp serve" >&2
agent "$x64" "$toon"
echo "== npx -y toon-gateway mcp serve (offline, in the folder it is installed in)" >&2
agent "$x64" npx --offline --cache "$cache" -y toon-gateway
# Node on a platform with no package (as process.arch would say on RISC-V).
message=$(node -e "Object.defineProperty(process, 'arch', {value: 'riscv64'});
  require('$x64/node_modules/toon-gateway/bin/toon.js')" 2>&1) && fail "the launcher ran on linux-riscv64"
grep -q "no prebuilt toon for this platform (linux-riscv64" <<<"$message" ||
  fail "the launcher's message on linux-riscv64 does not name it: $message"
report=("$(basename "$main"): $(wc -c <"$main" | tr -d " ") bytes")
report+=("toon-gateway-linux-x64: $(wc -c <"$(grep linux-x64 <<<"$tarballs")" | tr -d " ") bytes")

# The arm64 folder, as npm installs it on an arm64 machine.
if arm64_tarball=$(grep "/toon-gateway-linux-arm64-$version\.tgz\$" <<<"$tarballs"); then
  arm64=$work/arm64
  install "$arm64" --cpu=arm64
  [ "$(installed "$arm64")" = "toon-gateway toon-gateway-linux-arm64" ] ||
    fail "npm installed $(installed "$arm64") for linux-arm64"
  # On this x86-64 Node the launcher finds no package for it, and says which and why.
  message=$("$arm64/node_modules/.bin/toon" --version 2>&1) && fail "the launcher ran without toon-gateway-linux-x64"
  grep -q "the package toon-gateway-linux-x64 that holds toon for linux-x64 is not installed" <<<"$message" ||
    fail "the launcher's message without its package: $message"
  binary=$arm64/node_modules/toon-gateway-linux-arm64/bin/toon
  # ELF's e_machine (bytes 18 and 19, little-endian): 183 is AArch64.
  machine=$(od -An -tu2 -j18 -N2 "$binary" | tr -d " ")
  [ "$machine" = 183 ] || fail "$binary is not an AArch64 binary (ELF machine $machine)"
  got=$(scripts/run-arm64.sh "$binary" --version) || fail "$binary --version under qemu failed"
  [ "$got" = "toon $version" ] || fail "the arm64 $binary --version says '$got'"
  echo "== npm-installed for arm64, under qemu: toon mcp serve" >&2
  agent "$arm64" "$root/scripts/run-arm64.sh" "$binary"
  report+=("toon-gateway-linux-arm64: $(wc -c <"$arm64_tarball" | tr -d " ") bytes, run under qemu")
elif [ "${TOON_SKIP_ARM64:-}" != 1 ]; then
  fail "build-npm.sh packed no toon-gateway-linux-arm64"
fi

printf -v summary '%s; ' "${report[@]}"
echo "test-npm: ok: ${summary%; }; built in ${build_secs}s"
