#!/usr/bin/env bash
# Installs the pinned third-party MCP servers that the end-to-end proxy tests (tests/proxy/)
# run against (npm packages with the machine's Node, PyPI packages in a venv) and the official
# TypeScript SDKs test clients and servers are built on (v1, and v2 in a folder of its own). Idempotent: a version already installed is not
# fetched again. Prints nothing on stdout but the cache folder.
#
#   scripts/install-mcp-servers.sh [CACHE_DIR]     (default: target/mcp-servers)
#
# The tests find the servers through TOON_MCP_SERVERS=CACHE_DIR (`.ci/run` sets it).
set -euo pipefail
cd "$(dirname "$0")/.."

NPM_VERSION=2026.8.31
PYPI_VERSION=2026.10.19
# The official TypeScript SDK: a test drives the proxy as an agent built on it would.
SDK_VERSION=1.32.2
# The official TypeScript SDK v2 (split packages, 2026-07-28; Node >= 20), in npm-sdk2/ so that
# it cannot move the dependencies of the servers and of v1: a test agent is built on its
# client (tests/fixtures/mcp/clients/sdk2_agent.mjs), a server of 2026-07-28 only on its server
# (tests/fixtures/mcp/servers/sdk2_server.mjs).
SDK2_VERSION=2.4.0
# The official Python SDK, beside the PyPI servers that depend on it: a test drives the proxy
# as an agent on it would (tests/fixtures/mcp/clients/py_agent.py).
PY_SDK_VERSION=2.3.0
NPM_PACKAGES=(server-everything server-filesystem server-memory)
PYPI_PACKAGES=(mcp-server-time mcp-server-git)

dir=${1:-target/mcp-servers}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stamp="$dir/installed-$NPM_VERSION-$PYPI_VERSION-sdk$SDK_VERSION-sdk2-$SDK2_VERSION-py$PY_SDK_VERSION"
if [ -f "$stamp" ]; then
  echo "$dir"
  exit 0
fi

need() { command -v "$1" >/dev/null 2>&1 || { echo "install-mcp-servers: '$1' is required but not on PATH" >&2; exit 1; }; }
need node
need npm
need python3

{
  mkdir -p "$dir/npm"
  specs=()
  for p in "${NPM_PACKAGES[@]}"; do specs+=("@modelcontextprotocol/$p@$NPM_VERSION"); done
  specs+=("@modelcontextprotocol/sdk@$SDK_VERSION")
  (cd "$dir/npm" && [ -f package.json ] || echo '{"private":true}' > package.json)
  npm install --prefix "$dir/npm" --no-audit --no-fund --silent "${specs[@]}"
  mkdir -p "$dir/npm-sdk2"
  (cd "$dir/npm-sdk2" && [ -f package.json ] || echo '{"private":true}' > package.json)
  npm install --prefix "$dir/npm-sdk2" --no-audit --no-fund --silent --save-exact \
    "@modelcontextprotocol/client@$SDK2_VERSION" "@modelcontextprotocol/server@$SDK2_VERSION"

  python3 -m venv "$dir/venv"
  pyspecs=()
  for p in "${PYPI_PACKAGES[@]}"; do pyspecs+=("$p==$PYPI_VERSION"); done
  pyspecs+=("mcp==$PY_SDK_VERSION")
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "${pyspecs[@]}"
} >&2

touch "$stamp"
echo "$dir"
