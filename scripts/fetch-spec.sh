#!/usr/bin/env bash
# Fetches the official TOON conformance suite from upstream and checks that it is the copy
# bundled in tests/fixtures/toon-spec (github.com/toon-format/spec at the pinned release).
# The clone is left in target/toon-spec; `TOON_SPEC_DIR=target/toon-spec cargo test --test
# conformance` runs the tests against it. Needs git and network access.
set -euo pipefail
cd "$(dirname "$0")/.."

REPO=${TOON_SPEC_REPO:-https://github.com/toon-format/spec}
TAG=v4.1.1
DEST=target/toon-spec

# One sha256 over `sha256sum` of every fixture file, by path relative to the fixtures folder.
fixtures_sha256() {
  (cd "$1" && find decode encode -type f -name '*.json' | LC_ALL=C sort | xargs sha256sum) |
    sha256sum | cut -d' ' -f1
}

bundled=$(fixtures_sha256 tests/fixtures/toon-spec)
rm -rf "$DEST"
mkdir -p target
git -c advice.detachedHead=false clone --quiet --depth 1 --branch "$TAG" "$REPO" "$DEST"
upstream=$(fixtures_sha256 "$DEST/tests/fixtures")
if [ "$upstream" != "$bundled" ]; then
  echo "error: $REPO $TAG differs from tests/fixtures/toon-spec" >&2
  echo "  upstream $upstream, bundled $bundled" >&2
  diff -rq "$DEST/tests/fixtures" tests/fixtures/toon-spec | grep -v 'Only in tests' >&2 || true
  exit 1
fi
echo "$DEST: $REPO $TAG, fixtures identical to tests/fixtures/toon-spec"
