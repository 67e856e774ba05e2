#!/usr/bin/env bash
# Installs the Debian packages the gateway's operating tests run (.ci/run calls it before the
# test command): nginx for the scale-out test, prometheus for `promtool check metrics`,
# chromium for the status page; and what runs the Linux arm64 builds of scripts/test-wheel.sh
# and scripts/test-npm.sh on this machine: qemu's user-mode emulator (qemu-user: 12 MB to
# fetch, qemu-user-static 63 MB) and the arm64 C library the binary links (Debian's cross
# package, in /usr/aarch64-linux-gnu, read by scripts/run-arm64.sh). Each is installed only when its command (or file) is missing; without
# root (or sudo) the script says what is missing and the tests that need it say they skipped.
# The Rust target those builds need is not a Debian package: scripts/test-wheel.sh adds it.
set -euo pipefail

# command:package, or /file:package
wanted=(nginx:nginx promtool:prometheus chromium:chromium
  qemu-aarch64:qemu-user
  /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1:libc6-arm64-cross)

missing=()
for pair in "${wanted[@]}"; do
  cmd=${pair%%:*}
  pkg=${pair#*:}
  case "$cmd" in
    /*) [ -e "$cmd" ] || missing+=("$pkg") ;;
    *) if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
      missing+=("$pkg")
    fi ;;
  esac
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-test-tools: missing ${missing[*]} and no root to install them: the tests that need them will say they skipped" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-tools: missing ${missing[*]} and no apt-get: install them with this system's packages" >&2
  exit 0
fi
echo "install-test-tools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2 \
  || { "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >&2; }
# Debian's nginx package starts a system nginx on port 80; the tests run their own.
if [[ " ${missing[*]} " == *" nginx "* ]] && command -v systemctl >/dev/null 2>&1; then
  "${sudo[@]}" systemctl disable --now nginx >/dev/null 2>&1 || true
fi
