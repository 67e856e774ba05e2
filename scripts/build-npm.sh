#!/usr/bin/env bash
# Builds the npm packages of the `toon` command, as biome and esbuild ship their binaries: the
# main package `toon-gateway` (npm/toon-gateway: a Node launcher, bin `toon`) and one package
# per platform carrying the binary (npm/toon-gateway-linux-x64, npm/toon-gateway-linux-arm64),
# which the main one lists as optionalDependencies so that npm installs only the one whose
# `os`/`cpu`/`libc` fit the machine. The binaries are the ones in the Python wheels
# (scripts/build-wheels.sh: release builds linked by zig for glibc 2.17), taken out of them,
# so that both distributions carry the same bytes. Packs each package with `npm pack` into
# target/npm/ and prints the tarballs' paths, one a line (the main package's first); a
# platform whose binary was not built here (TOON_SKIP_ARM64=1) is left out, saying so.
#
#   scripts/build-npm.sh
#
# Needs Node's npm and what scripts/build-wheels.sh needs. See docs/install.md.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "build-npm: FAILED: $*" >&2
  exit 1
}
command -v npm >/dev/null 2>&1 || fail "npm is required but not on PATH (Debian: apt-get install npm)"
root=$(pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

# Every package is Cargo.toml's version, and the main one pins each platform's to it
# (tests/repo/npm.rs checks this too, without building).
main=npm/toon-gateway
for dir in npm/*/; do
  dir=${dir%/}
  got=$(node -p "require('./$dir/package.json').version")
  [ "$got" = "$version" ] || fail "$dir/package.json has version $got, Cargo.toml $version"
done

wheels=$(scripts/build-wheels.sh) || fail "scripts/build-wheels.sh failed"

out=$root/target/npm
rm -rf "$out/packages" "$out"/*.tgz
mkdir -p "$out/packages"
cp -R "$main" "$out/packages/"
cp LICENSE "$out/packages/toon-gateway/"
tarballs=("$out/packages/toon-gateway")
for dir in npm/toon-gateway-*/; do
  dir=${dir%/}
  name=$(basename "$dir")
  cpu=$(node -p "require('./$dir/package.json').cpu[0]")
  # npm's cpu names the wheel's platform tag in its own words.
  case "$cpu" in
    x64) arch=x86_64 ;;
    arm64) arch=aarch64 ;;
    *) fail "$dir: no wheel platform for npm's cpu $cpu" ;;
  esac
  wheel=$(grep "_$arch\.whl\$" <<<"$wheels" || true)
  if [ -z "$wheel" ]; then
    echo "build-npm: no $arch wheel was built here: $name left out" >&2
    continue
  fi
  cp -R "$dir" "$out/packages/"
  cp LICENSE "$out/packages/$name/"
  mkdir -p "$out/packages/$name/bin"
  # The wheel's script is the binary itself (maturin's `bin` bindings).
  python3 - "$wheel" "toon_gateway-$version.data/scripts/toon" "$out/packages/$name/bin/toon" <<'EOF' ||
import shutil, sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest, "wb") as dst:
    shutil.copyfileobj(src, dst)
EOF
    fail "no $arch binary in $wheel"
  chmod 755 "$out/packages/$name/bin/toon"
  tarballs+=("$out/packages/$name")
done

for package in "${tarballs[@]}"; do
  file=$(cd "$out" && npm pack --silent "$package") || fail "npm pack $package failed"
  echo "$out/$file"
done
