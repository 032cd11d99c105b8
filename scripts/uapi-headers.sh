#!/usr/bin/env bash
# Fetches the Linux 6.12 uapi headers jkvm's generated bindings and conformance test are
# built from, without installing anything into the system: `apt-get download` of two pinned
# Debian trixie packages, unpacked with `dpkg -x` into a cache.
#
#   x86_64:  linux-libc-dev             (arch all; /usr/include + /usr/include/x86_64-linux-gnu)
#   aarch64: linux-libc-dev-arm64-cross (arch all; /usr/aarch64-linux-gnu/include)
#
# Cache: ${JKVM_CACHE:-$HOME/.cache/jkvm}/uapi/<package>_<version>/  (a warm run does nothing,
# not even apt). Needs the trixie suite in apt's lists: run scripts/apt-suites.sh (root) and
# `apt-get update` once.
#
# Output (stdout), one KEY=VALUE per line, shell-quoted, so `eval "$(scripts/uapi-headers.sh)"`
# works and other tools can parse it:
#   JKVM_UAPI_VERSION_X86_64   pinned linux-libc-dev version
#   JKVM_UAPI_VERSION_AARCH64  pinned linux-libc-dev-arm64-cross version
#   JKVM_UAPI_X86_64           include dirs for x86_64, ':'-separated, in -I order
#   JKVM_UAPI_AARCH64          include dirs for aarch64, ':'-separated, in -I order
# `scripts/uapi-headers.sh --dirs x86_64|aarch64` prints just that arch's dirs, one a line.
# Progress and errors go to stderr.
set -euo pipefail

# Pinned: the generated code in kvm-bindings and its conformance test are made from exactly
# these. Change them only together with kvm-bindings/regen (and say so in BINDINGS.md).
X86_PKG=linux-libc-dev
X86_VER=6.12.117-1
ARM_PKG=linux-libc-dev-arm64-cross
ARM_VER=6.12.38-1cross1

cache=${JKVM_CACHE:-$HOME/.cache/jkvm}/uapi

die() { echo "uapi-headers: $*" >&2; exit 2; }

# fetch PKG VERSION -> prints the unpacked root
fetch() {
  local pkg=$1 ver=$2 dest="$cache/${1}_${2}"
  if [ -f "$dest/.complete" ]; then
    printf '%s\n' "$dest"
    return
  fi
  command -v apt-get >/dev/null && command -v dpkg >/dev/null \
    || die "need apt-get and dpkg (Debian/Ubuntu) to fetch $pkg=$ver"
  mkdir -p "$cache"
  local tmp
  tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
  # apt's _apt sandbox user must be able to write the download dir.
  chmod 0777 "$tmp"
  echo "uapi-headers: downloading $pkg=$ver" >&2
  local sandbox=()
  # As root, a cache under a 0700 home is out of _apt's reach: download as root, quietly.
  [ "$(id -u)" = 0 ] && sandbox=(-o APT::Sandbox::User=root)
  if ! (cd "$tmp" && apt-get download -q "${sandbox[@]}" "$pkg=$ver" >&2); then
    rm -rf "$tmp"
    die "cannot download $pkg=$ver. It comes from Debian trixie: run (as root)
  scripts/apt-suites.sh && apt-get update
then check 'apt-cache policy $pkg' lists $ver. If trixie no longer carries $ver, pick the
version it has, update the pins in scripts/uapi-headers.sh, rerun kvm-bindings/regen and the
conformance test, and record the change in kvm-bindings/BINDINGS.md."
  fi
  local deb
  deb=$(ls "$tmp"/*.deb)
  mkdir -p "$tmp/root"
  dpkg -x "$deb" "$tmp/root"
  touch "$tmp/root/.complete"
  rm -rf "$dest"
  mv "$tmp/root" "$dest"
  rm -rf "$tmp"
  printf '%s\n' "$dest"
}

# resolve PKG PINNED -> prints the version to use: the pin when it is cached or offered;
# otherwise (Debian replaces point releases) the newest 6.12.x offered, with a warning. The
# uapi of one stable series does not change, and the conformance test checks it against the
# generated code in any case.
resolve() {
  local pkg=$1 pin=$2 offered
  if [ -f "$cache/${pkg}_${pin}/.complete" ]; then printf '%s\n' "$pin"; return; fi
  offered=$(apt-cache madison "$pkg" 2>/dev/null | awk -F'|' '{gsub(/ /,"",$2); print $2}')
  if grep -qxF "$pin" <<<"$offered"; then printf '%s\n' "$pin"; return; fi
  local other
  other=$(grep -E "^$(cut -d. -f1,2 <<<"$pin" | sed 's/\./\\./')\." <<<"$offered" | sort -V | tail -n1 || true)
  if [ -n "$other" ]; then
    echo "uapi-headers: $pkg $pin is no longer offered; using $other of the same series" >&2
    printf '%s\n' "$other"
  else
    printf '%s\n' "$pin"
  fi
}

X86_VER=$(resolve "$X86_PKG" "$X86_VER")
ARM_VER=$(resolve "$ARM_PKG" "$ARM_VER")
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
