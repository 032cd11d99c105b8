#!/usr/bin/env bash
# Compiles layout.c for one architecture against the pinned uapi headers (first on the
# include path) and the project headers, runs it, and prints its "kind name value" lines.
#   x86_64:  gcc, run natively
#   aarch64: aarch64-linux-gnu-gcc -static, run under qemu-aarch64-static
# Exit 77 (stderr: what is missing and how to get it) when a tool or the headers are
# missing; LayoutConformanceTest then skips instead of failing.
# Usage: run-layout.sh x86_64|aarch64
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
module=$(cd "$here/../../.." && pwd)
repo=$(cd "$module/.." && pwd)
arch=${1:?usage: run-layout.sh x86_64|aarch64}

skip() { echo "$*" >&2; exit 77; }

case "$arch" in
  x86_64)
    [ "$(uname -m)" = x86_64 ] || skip "x86_64 conformance needs an x86_64 build machine (this is $(uname -m))"
    cc=gcc; run=()
    command -v gcc >/dev/null || skip "missing gcc: apt-get install gcc libc6-dev"
    ;;
  aarch64)
    cc=aarch64-linux-gnu-gcc; run=(qemu-aarch64-static)
    if [ "$(uname -m)" = aarch64 ]; then cc=gcc; run=(); fi
    command -v "$cc" >/dev/null \
      || skip "missing $cc: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
    [ ${#run[@]} -eq 0 ] || command -v "${run[0]}" >/dev/null \
      || skip "missing qemu-aarch64-static: apt-get install qemu-user-static"
    ;;
  *) echo "run-layout: unknown architecture '$arch'" >&2; exit 2 ;;
esac

[ -f "$here/constants_$arch.inc" ] || { echo "run-layout: $here/constants_$arch.inc missing: run kvm-bindings/regen" >&2; exit 2; }

env_out=$("$repo/scripts/uapi-headers.sh" 2>"${TMPDIR:-/tmp}/jkvm-uapi-headers.$$.log") || {
  msg=$(cat "${TMPDIR:-/tmp}/jkvm-uapi-headers.$$.log"); rm -f "${TMPDIR:-/tmp}/jkvm-uapi-headers.$$.log"
  skip "missing the pinned 6.12 uapi headers (scripts/uapi-headers.sh failed): $msg"
}
rm -f "${TMPDIR:-/tmp}/jkvm-uapi-headers.$$.log"
eval "$env_out"
if [ "$arch" = x86_64 ]; then dirs=$JKVM_UAPI_X86_64; else dirs=$JKVM_UAPI_AARCH64; fi

incs=()
while IFS= read -r d; do incs+=("-I$d"); done < <(tr ':' '\n' <<<"$dirs")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cc" -std=gnu11 -O0 -w -static "${incs[@]}" "-I$module/include" "-I$here" \
  -o "$work/layout" "$here/layout.c"
"${run[@]}" "$work/layout"
