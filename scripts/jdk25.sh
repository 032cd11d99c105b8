#!/usr/bin/env bash
# Prints the home of a JDK 25 (or newer) to use for jkvm. Looks at $JAVA_HOME, then the
# JDKs under /usr/lib/jvm (Temurin or Debian's). With --install and none found, installs
# Debian trixie's openjdk-25-jdk-headless (it pulls trixie's libc6; nothing else changes).
set -euo pipefail

major() { # prints the feature version of the JDK at $1, or nothing
  local rel="$1/release"
  [ -x "$1/bin/javac" ] && [ -r "$rel" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$rel"
}

find_jdk() {
  local cand v
  for cand in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$cand" ] && [ -d "$cand" ] || continue
    v=$(major "$cand")
    if [ -n "$v" ] && [ "$v" -ge 25 ]; then
      readlink -f "$cand"
      return 0
    fi
  done
  return 1
}

if find_jdk; then exit 0; fi
if [ "${1:-}" != "--install" ]; then
  echo "no JDK 25 found (JAVA_HOME, /usr/lib/jvm/*): run ./setup to install one" >&2
  exit 1
fi
here=$(cd "$(dirname "$0")" && pwd)
"$here/apt-suites.sh"
echo "installing openjdk-25-jdk-headless from Debian trixie" >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t trixie openjdk-25-jdk-headless >&2
find_jdk || { echo "openjdk-25 installed but no JDK 25 found under /usr/lib/jvm" >&2; exit 1; }
