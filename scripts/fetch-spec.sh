#!/usr/bin/env bash
# Fetches the official TOON conformance suite the tests run (tests/conformance.rs) into
# target/toon-spec: github.com/toon-format/spec at the pinned release, checked against the
# fixtures this crate was verified with (538 cases). Needs git and network access.
#
#   scripts/fetch-spec.sh            # then: cargo test --all-features
#
# Set TOON_SPEC_DIR to use a checkout elsewhere, or TOON_SKIP_SPEC=1 to skip those tests.
set -euo pipefail
cd "$(dirname "$0")/.."

REPO=${TOON_SPEC_REPO:-https://github.com/toon-format/spec}
TAG=v4.1.1
# sha256 over `sha256sum` of every file under tests/fixtures, sorted by path (C locale).
FIXTURES_SHA256=814fe35274a3e7595919df8e1a94c1813aea485b713a588bf0756def88b29db6
DEST=target/toon-spec

fixtures_sha256() {
  (cd "$1" && find tests/fixtures -type f | LC_ALL=C sort | xargs sha256sum) | sha256sum | cut -d' ' -f1
}

if [ -d "$DEST/tests/fixtures" ] && [ "$(fixtures_sha256 "$DEST")" = "$FIXTURES_SHA256" ]; then
  echo "$DEST: already there"
  exit 0
fi
rm -rf "$DEST.tmp"
mkdir -p target
git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$TAG" "$REPO" "$DEST.tmp"
got=$(fixtures_sha256 "$DEST.tmp")
if [ "$got" != "$FIXTURES_SHA256" ]; then
  echo "error: $REPO $TAG has different fixtures than the ones pinned here" >&2
  echo "  expected $FIXTURES_SHA256, got $got (left in $DEST.tmp for inspection)" >&2
  exit 1
fi
rm -rf "$DEST"
mv "$DEST.tmp" "$DEST"
echo "$DEST: $REPO $TAG"
