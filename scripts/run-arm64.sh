#!/usr/bin/env bash
# Runs a Linux arm64 (aarch64, glibc) program on this x86-64 machine under qemu's user-mode
# emulation, with Debian's arm64 C library as its root for the dynamic loader: how
# scripts/test-wheel.sh and scripts/test-npm.sh run the arm64 `toon` they built, as a client
# config's command would run it on an arm64 machine (stdin, stdout, arguments and the exit
# status are the program's own).
#
#   scripts/run-arm64.sh PROGRAM [ARGS...]
#
# Needs qemu-aarch64 (Debian's qemu-user) or qemu-aarch64-static (qemu-user-static), and
# libc6-arm64-cross (the binary links only the C library's own libraries; zig links the
# unwinder in): scripts/install-test-tools.sh installs them.
# QEMU_LD_PREFIX names another arm64 root.
set -euo pipefail

root=${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}
qemu=$(command -v qemu-aarch64 || command -v qemu-aarch64-static || true)
if [ -z "$qemu" ]; then
  echo "run-arm64: no qemu-aarch64 or qemu-aarch64-static on PATH (Debian: apt-get install qemu-user; scripts/install-test-tools.sh installs it)" >&2
  exit 127
fi
if [ ! -e "$root/lib/ld-linux-aarch64.so.1" ]; then
  echo "run-arm64: no arm64 C library in $root (Debian: apt-get install libc6-arm64-cross; scripts/install-test-tools.sh installs it)" >&2
  exit 127
fi
exec "$qemu" -L "$root" "$@"
