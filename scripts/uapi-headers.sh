#!/usr/bin/env bash
# Fetches the Linux 6.12 uapi headers jkvm's generated bindings and conformance test are
# built from, without installing anything into the system: `apt-get download` of the newest
# 6.12 versions of two Debian trixie packages, unpacked with `dpkg-deb -x` into a cache
# (scripts/debs.sh).
#
#   x86_64:  linux-libc-dev             (arch all; /usr/include + /usr/include/x86_64-linux-gnu)
#   aarch64: linux-libc-dev-arm64-cross (arch all; /usr/aarch64-linux-gnu/include)
#
# Cache: ${JKVM_CACHE:-$HOME/.cache/jkvm}/uapi/<package>_<version>/  (a warm run only asks
# apt-cache which versions are offered; the last .deb fetched stays in uapi/debs). Needs the
# trixie suite in apt's lists: run scripts/apt-suites.sh (root) and `apt-get update` once.
#
# Output (stdout), one KEY=VALUE per line, shell-quoted, so `eval "$(scripts/uapi-headers.sh)"`
# works and other tools can parse it:
#   JKVM_UAPI_VERSION_X86_64   the linux-libc-dev version used
#   JKVM_UAPI_VERSION_AARCH64  the linux-libc-dev-arm64-cross version used
#   JKVM_UAPI_X86_64           include dirs for x86_64, ':'-separated, in -I order
#   JKVM_UAPI_AARCH64          include dirs for aarch64, ':'-separated, in -I order
# `scripts/uapi-headers.sh --dirs x86_64|aarch64` prints just that arch's dirs, one a line.
# Progress and errors go to stderr.
set -euo pipefail

# The series: kvm-bindings' generated code and its conformance test are made from the 6.12
# uapi headers (BINDINGS.md records the versions they were generated from). The newest 6.12.x
# of each package that apt offers is used: Debian replaces point releases, and the uapi of one
# stable series does not change (the conformance test checks it against the generated code in
# any case). JKVM_UAPI_X86_64_VERSION / JKVM_UAPI_AARCH64_VERSION pin exact versions (failing
# when apt no longer offers them).
X86_PKG=linux-libc-dev
ARM_PKG=linux-libc-dev-arm64-cross
SERIES='6\.12\..*'

cache=${JKVM_CACHE:-$HOME/.cache/jkvm}/uapi

log() { echo "uapi-headers: $*" >&2; }
die() { log "$@"; exit 2; }
# shellcheck source-path=SCRIPTDIR source=debs.sh
. "$(dirname "${BASH_SOURCE[0]}")/debs.sh"

# fetch PKG VERSION -> prints the unpacked root
fetch() {
  local pkg=$1 ver=$2 dest="$cache/${1}_${2}" tmp
  if [ -f "$dest/.complete" ]; then
    printf '%s\n' "$dest"
    return
  fi
  debs_init "$cache"
  debs_resolve "$pkg=$ver"
  debs_fetch
  tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
  debs_unpack "$tmp/root"
  touch "$tmp/root/.complete"
  rm -rf "$dest"
  mv "$tmp/root" "$dest"
  rm -rf "$tmp"
  debs_prune
  printf '%s\n' "$dest"
}

# resolve PKG PIN_VARIABLE -> the version to use
resolve() {
  local pin=${!2:-}
  JKVM_PIN_VAR=$2 "$(dirname "${BASH_SOURCE[0]}")/debian-newest.sh" version "$1" "$SERIES" all "$pin" \
    || die "no $1 of the 6.12 series to use (see above)"
}

X86_VER=$(resolve "$X86_PKG" JKVM_UAPI_X86_64_VERSION)
ARM_VER=$(resolve "$ARM_PKG" JKVM_UAPI_AARCH64_VERSION)
x86_root=$(fetch "$X86_PKG" "$X86_VER")
arm_root=$(fetch "$ARM_PKG" "$ARM_VER")

x86_dirs="$x86_root/usr/include/x86_64-linux-gnu:$x86_root/usr/include"
arm_dirs="$arm_root/usr/aarch64-linux-gnu/include"

[ -f "$x86_root/usr/include/linux/kvm.h" ] && [ -f "$x86_root/usr/include/x86_64-linux-gnu/asm/kvm.h" ] \
  || die "$x86_root lacks linux/kvm.h or x86_64 asm/kvm.h; delete it and rerun"
[ -f "$arm_root/usr/aarch64-linux-gnu/include/linux/kvm.h" ] && [ -f "$arm_root/usr/aarch64-linux-gnu/include/asm/kvm.h" ] \
  || die "$arm_root lacks linux/kvm.h or arm64 asm/kvm.h; delete it and rerun"

case "${1:-}" in
  "")
    printf 'JKVM_UAPI_VERSION_X86_64=%q\n' "$X86_VER"
    printf 'JKVM_UAPI_VERSION_AARCH64=%q\n' "$ARM_VER"
    printf 'JKVM_UAPI_X86_64=%q\n' "$x86_dirs"
    printf 'JKVM_UAPI_AARCH64=%q\n' "$arm_dirs"
    ;;
  --dirs)
    case "${2:-}" in
      x86_64) tr ':' '\n' <<<"$x86_dirs" ;;
      aarch64) tr ':' '\n' <<<"$arm_dirs" ;;
      *) die "--dirs needs x86_64 or aarch64" ;;
    esac
    ;;
  -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown argument '$1' (try --help)" ;;
esac
