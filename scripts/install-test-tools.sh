#!/usr/bin/env bash
# Installs the Debian packages some end-to-end tests use when they are missing: `promtool`
# (package `prometheus`: tests/proxy/observe.rs checks the proxy's /metrics text with it) and
# `chromium` (the status page rendered headless). Idempotent; as root with apt-get (CI, the
# project's machines), else it says what is missing and the tests that need it say they skip.
set -euo pipefail

missing=()
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
else
  echo "install-test-tools: missing Debian packages: ${missing[*]} (not root or no apt-get);" \
       "the tests that need them will say they skip" >&2
fi
