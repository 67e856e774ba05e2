#!/usr/bin/env bash
# Installs the Debian packages the gateway's operating tests run (.ci/run calls it before the
# test command): nginx for the scale-out test, prometheus for `promtool check metrics`,
# chromium for the status page. Each is installed only when its command is missing; without
# root (or sudo) the script says what is missing and the tests that need it say they skipped.
set -euo pipefail

# command:package
wanted=(nginx:nginx promtool:prometheus chromium:chromium)

missing=()
for pair in "${wanted[@]}"; do
  cmd=${pair%%:*}
  pkg=${pair#*:}
  if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
    missing+=("$pkg")
  fi
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
