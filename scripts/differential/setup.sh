# Sourced by scripts/differential.sh and scripts/stream-differential.sh: from the
# repository's root, the reference package @toon-format/toon 4.4.0 installed (once) into
# target/differential, named by $dir.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir=target/differential
mkdir -p "$dir"
if [ ! -d "$dir/node_modules/@toon-format/toon" ]; then
    npm install --prefix "$dir" --no-save --no-audit --no-fund @toon-format/toon@4.4.0 >/dev/null
fi
