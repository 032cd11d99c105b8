#!/usr/bin/env bash
# Makes a Docker engine available for the container test tier, as CI needs it (root, a clean
# machine, no daemons): installs Debian's docker.io if there is no dockerd, starts dockerd in
# the background if its socket does not answer, and waits for it. Idempotent; a warm run
# takes well under a second. Prints one line on success (stdout), errors on stderr.
#
# Storage driver: overlay2 (works on this kernel, also when / is itself an overlay);
# override with JKVM_DOCKER_STORAGE_DRIVER. dockerd's log: $JKVM_CACHE/dockerd.log.
set -euo pipefail

cache=${JKVM_CACHE:-$HOME/.cache/jkvm}
sock=/var/run/docker.sock
driver=${JKVM_DOCKER_STORAGE_DRIVER:-overlay2}
say() { echo "docker-up: $*" >&2; }

answers() { # is an engine listening on the socket? (the CLI may be missing: ask with curl-less bash)
  [ -S "$sock" ] || return 1
  if command -v docker >/dev/null 2>&1; then
    docker -H "unix://$sock" version --format '{{.Server.Version}}' >/dev/null 2>&1
  else
    return 1
  fi
}

if answers; then
  echo "docker-up: engine $(docker -H "unix://$sock" version --format '{{.Server.Version}}') ready at $sock"
  exit 0
fi

[ "$(id -u)" = 0 ] || { say "no Docker engine answers at $sock; run this script as root to install/start one"; exit 2; }

if ! command -v dockerd >/dev/null 2>&1; then
  say "installing Debian's docker.io"
  export DEBIAN_FRONTEND=noninteractive
  # The lists may be stale or never fetched on a fresh machine.
  apt-get install -y -qq --no-install-recommends docker.io >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends docker.io >/dev/null; }
  # The package's postinst may have started it through systemd (not on CI): check again.
  if answers; then
    echo "docker-up: engine $(docker -H "unix://$sock" version --format '{{.Server.Version}}') ready at $sock"
    exit 0
  fi
fi

mkdir -p "$cache"
log=$cache/dockerd.log
if ! pgrep -x dockerd >/dev/null 2>&1; then
  # No systemd here: start it detached from this shell so it outlives the caller.
  setsid nohup dockerd --storage-driver="$driver" --host="unix://$sock" \
    >>"$log" 2>&1 </dev/null &
fi

for _ in $(seq 1 150); do # up to 30 s
  if answers; then
    echo "docker-up: engine $(docker -H "unix://$sock" version --format '{{.Server.Version}}') ready at $sock (log: $log)"
    exit 0
  fi
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    say "dockerd exited; the end of $log:"
    tail -n 15 "$log" >&2
    exit 1
  fi
  sleep 0.2
done
say "dockerd did not answer at $sock within 30 s; see $log"
exit 1
