# shellcheck shell=bash
# What the scripts that assemble something from Debian packages without installing them share
# (arm64-host/assemble, arm64-host/assemble-qemu, guest/build, guest/workloads/build,
# containers/build, scripts/uapi-headers.sh): the exact .deb files and SHA256s apt's lists name
# for a set of packages, a build key made from them, the .debs kept in the caller's cache
# (checked against apt's SHA256; a missing or bad one is downloaded again), unpacked with
# dpkg-deb, and the files no build uses any more deleted.
# Sourced. The caller defines log MSG (progress on stderr) and die MSG (exits).
#
#   debs_init DIR [DEBS...]  DIR: the caller's cache (.debs in DIR/debs, apt's package cache in
#                            DIR/apt); DEBS: other callers' debs/ directories, read for verified
#                            copies, never written
#   debs_need_arm64          apt knows the arm64 architecture (scripts/apt-suites.sh, run as root)
#   debs_closure SUITE PKG:ARCH...   "NAME ARCH VERSION" a line: what apt would install for the
#                            PKGs from SUITE on an empty system, without recommends
#   debs_resolve SPEC...     PKG:ARCH[/SUITE|=VERSION] -> DEBS_FILES, "FILE SHA256:HEX" a line, sorted
#   debs_key LINE...         16 hex digits of sha256(the LINEs, this file, DEBS_FILES)
#   debs_fetch               a verified copy of every file of DEBS_FILES
#   debs_unpack DEST [GLOB [MEMBER...]]   dpkg-deb -x of each file whose name matches GLOB (a
#                            [[ ]] pattern, !(...) included; default all), only the MEMBERs (tar
#                            wildcards) when given
#   debs_prune [KEEP]        delete DIR/debs' files this build did not use and, given KEEP, every
#                            directory of DIR but debs, apt, current and KEEP (older builds)

DEBS_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/debs.sh
DEBS_CACHE='' DEBS_DIR='' DEBS_FILES=''
DEBS_ALSO=() DEBS_APT_OPTS=()
declare -A DEBS_PATH=()   # FILE -> its verified copy

debs_init() {
  local t
  for t in apt-get dpkg-deb tar sha256sum; do command -v $t >/dev/null || die "missing tool: $t"; done
  DEBS_CACHE=$1 DEBS_DIR=$1/debs
  shift
  DEBS_ALSO=("$@")
  mkdir -p "$DEBS_DIR" "$DEBS_CACHE/apt"
  # the empty status's mtime keys apt's cache: made once
  [ -e "$DEBS_CACHE/apt/empty-status" ] || : >"$DEBS_CACHE/apt/empty-status"
  # apt keeps no package cache on these machines: one here (~1 s a call, not ~3 s). Every call
  # sees an empty dpkg status (the closure's) so that cache stays valid; nothing here installs.
  # The cache may be out of the _apt sandbox user's reach (a 0700 home).
  DEBS_APT_OPTS=(-o "Dir::Cache::pkgcache=$DEBS_CACHE/apt/pkgcache.bin" -o Dir::Cache::srcpkgcache=
    -o "Dir::State::status=$DEBS_CACHE/apt/empty-status" -o APT::Sandbox::User=root)
}

debs_need_arm64() {
  if [ "$(id -u)" = 0 ]; then "${DEBS_SH%/*}/apt-suites.sh"; fi
  dpkg --print-foreign-architectures | grep -qx arm64 \
    || die "the arm64 architecture is not configured; run scripts/apt-suites.sh as root"
}

# apt's solver takes 5-20 s: its answer is kept while apt's lists, pins and sources are unchanged.
debs_closure() {
  local suite=$1 key kept sim
  shift
  key=$( { echo "$suite $*"; stat -c '%n %Y %s' /var/lib/apt/lists/*Packages* /etc/apt/preferences.d/* \
    /etc/apt/sources.list.d/* 2>/dev/null || true; } | sha256sum | cut -c1-16)
  kept=$DEBS_CACHE/apt/closure-$key
  if [ ! -s "$kept" ]; then
    sim=$(apt-get "${DEBS_APT_OPTS[@]}" -o APT::Install-Recommends=false -o APT::Install-Suggests=false \
            -s -t "$suite" install "$@" 2>&1) \
      || die "apt could not resolve $* from $suite (scripts/apt-suites.sh applied? apt-get update?):
$sim"
    rm -f "$DEBS_CACHE"/apt/closure-*
    # 'Inst NAME[:ARCH] (VERSION SUITES [ARCH])'
    awk '$1 == "Inst" && match($0, /\[[a-z0-9]+\]\)/) {
        n = $2; sub(/:.*/, "", n); v = $3; sub(/^\(/, "", v)
        print n, substr($0, RSTART + 1, RLENGTH - 3), v }' <<<"$sim" >"$kept.tmp"
    [ -s "$kept.tmp" ] || die "apt resolved nothing for $* from $suite:
$sim"
    mv "$kept.tmp" "$kept"
  fi
  cat "$kept"
}

debs_resolve() {
  local uris
  uris=$(apt-get "${DEBS_APT_OPTS[@]}" download --print-uris "$@") \
    || die "apt could not resolve $* (scripts/apt-suites.sh applied? apt-get update?)"
  # lines: 'URL' FILE SIZE SHA256:HEX
  DEBS_FILES=$(awk '{ print $2, $4 }' <<<"$uris" | LC_ALL=C sort)
  [ "$(wc -l <<<"$DEBS_FILES")" = $# ] || die "unexpected apt answer for $*:
$uris"
}

debs_key() {
  { printf '%s\n' "$@"; sha256sum <"$DEBS_SH"; echo "$DEBS_FILES"; } | sha256sum | cut -c1-16
}

# _debs_find FILE SHA256:HEX: a copy with that hash in one of the debs/ directories (-> DEBS_PATH)
_debs_find() {
  local d
  [ -z "${DEBS_PATH[$1]:-}" ] || return 0
  for d in "${DEBS_ALSO[@]}" "$DEBS_DIR"; do
    if [ -e "$d/$1" ] && [ "$(sha256sum <"$d/$1" | cut -d' ' -f1)" = "${2#SHA256:}" ]; then
      DEBS_PATH[$1]=$d/$1
      return 0
    fi
  done
  return 1
}

debs_fetch() {
  local f h v a out need=()
  while read -r f h; do
    _debs_find "$f" "$h" && continue
    rm -f "$DEBS_DIR/$f"
    # NAME_VERSION_ARCH.deb, the version's ':' written %3a -> NAME:ARCH=VERSION
    v=${f#*_} a=${f##*_}; v=${v%_*}
    need+=("${f%%_*}:${a%.deb}=${v//%3a/:}")
  done <<<"$DEBS_FILES"
  [ ${#need[@]} -gt 0 ] || return 0
  log "downloading ${#need[@]} of $(wc -l <<<"$DEBS_FILES") package(s)"
  out=$(cd "$DEBS_DIR" && apt-get "${DEBS_APT_OPTS[@]}" -q download "${need[@]}" 2>&1) \
    || die "apt-get download failed:
$out"
  while read -r f h; do
    _debs_find "$f" "$h" || die "bad download: $DEBS_DIR/$f"
  done <<<"$DEBS_FILES"
}

debs_unpack() {
  local dest=$1 glob=${2:-*} f h p
  shift $(($# < 2 ? $# : 2))
  mkdir -p "$dest"
  while read -r f h; do
    # shellcheck disable=SC2053 # GLOB is a pattern
    [[ $f == $glob ]] || continue
    p=${DEBS_PATH[$f]:-}
    [ -n "$p" ] || die "$f is not fetched"
    if [ $# = 0 ]; then
      dpkg-deb -x "$p" "$dest"
    else
      dpkg-deb --fsys-tarfile "$p" | tar -x -C "$dest" --wildcards "$@"
    fi
  done <<<"$DEBS_FILES"
}

# shellcheck disable=SC2120 # KEEP is optional
debs_prune() {
  local f d
  for f in "$DEBS_DIR"/*.deb; do
    [ -e "$f" ] || continue
    [ "${DEBS_PATH[${f##*/}]:-}" = "$f" ] || rm -f "$f"
  done
  [ $# = 1 ] || return 0
  for d in "$DEBS_CACHE"/*/; do
    d=${d%/}
    case ${d##*/} in debs|apt|current|"$1") ;; *) rm -rf "$d" ;; esac
  done
}
