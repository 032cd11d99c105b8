#!/usr/bin/env bash
# Resolves a Debian package whose name or version moves (a kernel's name carries its version,
# and Debian drops the old name from the mirror with every security update) to the newest one
# of a series that this machine's apt sources offer today, so no script names a version that
# will one day be gone. An optional pin takes exactly that one, and fails loudly when apt no
# longer offers it.
#
# usage:
#   scripts/debian-newest.sh name ERE ARCH [PIN]          the newest package NAME matching ^ERE$
#                                                        that has an installation candidate for ARCH
#   scripts/debian-newest.sh version PKG ERE ARCH [PIN]   the newest VERSION of PKG (for ARCH)
#                                                        matching ^ERE$ that apt offers
# PIN: a name (or version) to take instead of the newest; empty means none. The caller names the
# environment variable it came from in JKVM_PIN_VAR, for the message.
# Prints the result on stdout. Exit 1 with a message naming what was asked when nothing
# matches or the pin is gone. Reads apt's lists only (apt-cache): run scripts/apt-suites.sh
# (which also runs apt-get update) first; APT_CONFIG is honoured like any apt tool's.
set -euo pipefail

die() { echo "debian-newest: $*" >&2; exit 1; }
# apt keeps no binary cache on these machines, and rebuilding it costs ~2.5 s a call: keep one.
cachedir=${JKVM_CACHE:-$HOME/.cache/jkvm}/apt-resolve
mkdir -p "$cachedir"
apt_cache() { apt-cache -o "Dir::Cache::pkgcache=$cachedir/pkgcache.bin" "$@"; }
usage() { sed -n '8,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# has_candidate NAME ARCH: apt would install some version of NAME:ARCH
has_candidate() {
  local c
  c=$(apt_cache policy "$1:$2" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

# versions PKG ARCH: every version apt offers, one a line
versions() {
  apt_cache madison "$1:$2" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }'
}

# newest_version: the greatest of stdin's versions by dpkg's ordering
newest_version() {
  local best= v
  while IFS= read -r v; do
    [ -n "$v" ] || continue
    if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then best=$v; fi
  done
  printf '%s' "$best"
}

pinned_gone() { # WHAT PIN NEWEST
  local var=${JKVM_PIN_VAR:-the pin}
  die "$1 $2 (from $var) is no longer offered by apt; the newest of the series is ${3:-none}.
Unset $var to take the newest, or set it to a version apt-cache lists."
}

mode=${1:-}
case $mode in
  name)
    [ $# -ge 3 ] || usage
    ere=$2 arch=$3 pin=${4:-}
    newest=
    # newest first by the version inside the name
    while IFS= read -r n; do
      if has_candidate "$n" "$arch"; then newest=$n; break; fi
    done < <(apt_cache pkgnames 2>/dev/null | grep -E "^($ere)\$" | sort -V -r || true)
    if [ -n "$pin" ]; then
      has_candidate "$pin" "$arch" || pinned_gone "package" "$pin" "$newest"
      printf '%s\n' "$pin"
      exit 0
    fi
    [ -n "$newest" ] || die "apt offers no package matching ^($ere)\$ for $arch (is scripts/apt-suites.sh applied? apt-get update?)"
    printf '%s\n' "$newest"
    ;;
  version)
    [ $# -ge 4 ] || usage
    pkg=$2 ere=$3 arch=$4 pin=${5:-}
    offered=$(versions "$pkg" "$arch")
    newest=$(grep -E "^($ere)\$" <<<"$offered" | newest_version || true)
    if [ -n "$pin" ]; then
      grep -qxF -- "$pin" <<<"$offered" || pinned_gone "$pkg" "$pin" "$newest"
      printf '%s\n' "$pin"
      exit 0
    fi
    [ -n "$newest" ] || die "apt offers no version of $pkg:$arch matching ^($ere)\$ (is scripts/apt-suites.sh applied? apt-get update?)"
    printf '%s\n' "$newest"
    ;;
  -h|--help) usage ;;
  *) usage ;;
esac
