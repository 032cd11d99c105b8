#!/usr/bin/env bash
# Prints the Debian arm64 kernel package that the emulated host (arm64-host/assemble), the test
# guest (guest/build) and so the benchmarks boot: the newest linux-image-6.12.<N>+deb12-arm64-unsigned
# that apt offers today (bookworm-security replaces the name with every kernel update), or
# exactly $JKVM_ARM64_KERNEL_PKG when that is set (failing when apt no longer offers it).
# Needs the arm64 architecture and fresh apt lists (scripts/apt-suites.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
JKVM_PIN_VAR=JKVM_ARM64_KERNEL_PKG exec "$here/debian-newest.sh" name \
  'linux-image-6\.12\.[0-9]+\+deb12-arm64-unsigned' arm64 "${JKVM_ARM64_KERNEL_PKG:-}"
