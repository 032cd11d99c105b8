#!/usr/bin/env bash
# Adds what jkvm needs from Debian beyond the machine's bookworm suites: the arm64
# architecture (guest kernels, busybox, the arm64 JDK) and the bookworm-backports and
# trixie suites at a low pin priority, so only packages asked for by name come from them.
# The mirror is the one the machine is already configured with. Idempotent.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "apt-suites: must run as root (apt-get, dpkg)" >&2; exit 2; }

# The machine's Debian mirror: from deb822 .sources files (Debian's cloud images) or from the
# one-line sources.list (what the installer and debootstrap write). Either file may be missing,
# so no pipeline here may fail the script.
mirror=
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && [ "$f" != /etc/apt/sources.list.d/jkvm.sources ] || continue
  mirror=$(sed -n 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n' | grep -v -e security -e nodesource -e google | head -n1 || true)
  [ -z "$mirror" ] || break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}\(http[^ ]*\)[[:space:]]\+bookworm[[:space:]].*/\2/p' \
    /etc/apt/sources.list | head -n1 || true)
fi
[ -n "$mirror" ] || { echo "apt-suites: no Debian mirror found in /etc/apt; add bookworm first" >&2; exit 2; }

changed=0
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
  changed=1
fi

src=/etc/apt/sources.list.d/jkvm.sources
want=$(cat <<TXT
Types: deb
URIs: $mirror
Suites: bookworm-backports trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
TXT
)
if [ "$(cat "$src" 2>/dev/null)" != "$want" ]; then
  printf '%s\n' "$want" > "$src"
  changed=1
fi

pin=/etc/apt/preferences.d/jkvm
wantpin=$(cat <<'TXT'
Package: *
Pin: release n=trixie
Pin-Priority: 50

Package: *
Pin: release n=bookworm-backports
Pin-Priority: 100
TXT
)
if [ "$(cat "$pin" 2>/dev/null)" != "$wantpin" ]; then
  printf '%s\n' "$wantpin" > "$pin"
  changed=1
fi

stamp=/var/lib/apt/lists/.jkvm-updated
if [ "$changed" = 1 ] || [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +720)" ]; then
  apt-get update -qq
  touch "$stamp"
fi
