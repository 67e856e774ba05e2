#!/usr/bin/env bash
# Installs the eleven pinned third-party MCP servers that tool_list_tokens.py measures (npm
# packages with the machine's Node, PyPI packages in venvs), the official Python SDK the
# benchmark's client is built on, tiktoken, and Atlassian's mcp-compressor. Idempotent: a
# version set already installed is not fetched again. Prints nothing on stdout but the cache
# folder.
#
#   benches/mcp/install-tool-list-servers.sh CACHE_DIR
#
# Layout: CACHE_DIR/npm (npm prefix); CACHE_DIR/venv: time, git, fetch, the SDK (mcp 2.3),
# tiktoken, mcp-compressor (a Rust extension with no Python dependencies, so no venv of its
# own); CACHE_DIR/mcp1-venv: mcp-server-calculator 0.2.1 (requires mcp<2) and
# mcp-server-sqlite 2025.4.25 (on mcp 2.x it dies at start: 'Server' object has no attribute
# 'list_resources'), on the newest mcp 1.x.
set -euo pipefail

NPM_VERSION=2026.8.31          # @modelcontextprotocol/server-*
PYPI_VERSION=2026.10.19        # mcp-server-time, mcp-server-git (the repo's pin)
PLAYWRIGHT_MCP_VERSION=0.0.86
CHROME_DEVTOOLS_MCP_VERSION=1.11.0
FETCH_VERSION=2026.10.24
SQLITE_VERSION=2025.4.25
CALCULATOR_VERSION=0.2.1
PY_SDK_VERSION=2.3.0
# The newest mcp 1.x, for the two servers that need mcp<2.
MCP1_VERSION=1.30.0
TIKTOKEN_VERSION=0.14.0
COMPRESSOR_VERSION=0.38.2
# o200k_base for tiktoken, taken from this crate (see below).
TIKTOKEN_RS_VERSION=0.12.1
O200K_SHA256=446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d
NPM_PACKAGES=(server-everything server-filesystem server-memory server-sequential-thinking)
PYPI_PACKAGES=(mcp-server-time mcp-server-git)

[ $# -eq 1 ] || { echo "usage: install.sh CACHE_DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stamp="$dir/installed-v2-$NPM_VERSION-$PYPI_VERSION-pw$PLAYWRIGHT_MCP_VERSION-cdt$CHROME_DEVTOOLS_MCP_VERSION"
stamp+="-fetch$FETCH_VERSION-sqlite$SQLITE_VERSION-calc$CALCULATOR_VERSION-py$PY_SDK_VERSION-mcp1$MCP1_VERSION"
stamp+="-tt$TIKTOKEN_VERSION-mcpc$COMPRESSOR_VERSION"
if [ -f "$stamp" ]; then
  echo "$dir"
  exit 0
fi

need() { command -v "$1" >/dev/null 2>&1 || { echo "install.sh: '$1' is required but not on PATH" >&2; exit 1; }; }
need node
need npm
need python3

{
  mkdir -p "$dir/npm"
  specs=()
  for p in "${NPM_PACKAGES[@]}"; do specs+=("@modelcontextprotocol/$p@$NPM_VERSION"); done
  specs+=("@playwright/mcp@$PLAYWRIGHT_MCP_VERSION" "chrome-devtools-mcp@$CHROME_DEVTOOLS_MCP_VERSION")
  (cd "$dir/npm" && [ -f package.json ] || echo '{"private":true}' > package.json)
  # No browser download: Playwright fetches browsers only on `playwright install`, and the
  # servers are pointed at the system Chromium.
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 \
    npm install --prefix "$dir/npm" --no-audit --no-fund --silent "${specs[@]}"

  python3 -m venv "$dir/venv"
  pyspecs=()
  for p in "${PYPI_PACKAGES[@]}"; do pyspecs+=("$p==$PYPI_VERSION"); done
  pyspecs+=("mcp-server-fetch==$FETCH_VERSION" "mcp==$PY_SDK_VERSION" "tiktoken==$TIKTOKEN_VERSION"
            "mcp-compressor==$COMPRESSOR_VERSION")
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check "${pyspecs[@]}"

  python3 -m venv "$dir/mcp1-venv"
  "$dir/mcp1-venv/bin/pip" install --quiet --disable-pip-version-check \
    "mcp-server-calculator==$CALCULATOR_VERSION" "mcp-server-sqlite==$SQLITE_VERSION" "mcp==$MCP1_VERSION"

  # tiktoken downloads its o200k_base table on first use from a host this machine cannot
  # reach; the same file (same SHA-256) ships in the tiktoken-rs crate. Seed tiktoken's cache
  # with it (the cache key is the SHA-1 of the table's URL), from the cargo registry's
  # sources, fetching the crate with `cargo fetch` in a scratch package if it is not there.
  mkdir -p "$dir/tiktoken"
  cargo_home=${CARGO_HOME:-$HOME/.cargo}
  table=$(ls -d "$cargo_home"/registry/src/*/tiktoken-rs-"$TIKTOKEN_RS_VERSION"/assets/o200k_base.tiktoken 2>/dev/null | head -1 || true)
  if [ -z "$table" ]; then
    need cargo
    scratch=$(mktemp -d)
    mkdir -p "$scratch/src" && touch "$scratch/src/lib.rs"
    printf '[package]\nname = "fetch-o200k"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\ntiktoken-rs = "=%s"\n' \
      "$TIKTOKEN_RS_VERSION" > "$scratch/Cargo.toml"
    (cd "$scratch" && cargo fetch --quiet)
    rm -rf "$scratch"
    table=$(ls -d "$cargo_home"/registry/src/*/tiktoken-rs-"$TIKTOKEN_RS_VERSION"/assets/o200k_base.tiktoken 2>/dev/null | head -1 || true)
    if [ -z "$table" ]; then
      crate=$(ls "$cargo_home"/registry/cache/*/tiktoken-rs-"$TIKTOKEN_RS_VERSION".crate | head -1)
      tar -xzf "$crate" -O "tiktoken-rs-$TIKTOKEN_RS_VERSION/assets/o200k_base.tiktoken" > "$dir/o200k_base.tiktoken"
      table="$dir/o200k_base.tiktoken"
    fi
  fi
  echo "$O200K_SHA256  $table" | sha256sum -c --quiet -
  key=$(printf '%s' "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken" | sha1sum | cut -d' ' -f1)
  cp "$table" "$dir/tiktoken/$key"
  TIKTOKEN_CACHE_DIR="$dir/tiktoken" "$dir/venv/bin/python" -c \
    'import tiktoken; assert tiktoken.get_encoding("o200k_base").encode("hello world") == [24912, 2375]'
} >&2

touch "$stamp"
echo "$dir"
