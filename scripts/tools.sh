#!/usr/bin/env bash
# Reads scripts/tools.list, the one list of the tools jkvm's scripts call.
#
# usage: scripts/tools.sh missing JOB    the packages JOB (build|demo|tests) needs that this
#                                        machine lacks, one "PACKAGE[/SUITE]" a line
#        scripts/tools.sh check JOB      exit 1 naming every tool JOB needs that is not there
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

rank() { case $1 in build) echo 1 ;; demo) echo 2 ;; tests) echo 3 ;; *) return 1 ;; esac; }

[ $# = 2 ] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
want=$(rank "$2") || { echo "tools: unknown job '$2' (build, demo or tests)" >&2; exit 2; }

present() { case $1 in /*) [ -e "$1" ] ;; *) command -v "$1" >/dev/null 2>&1 ;; esac; }

missing_tools=() missing_pkgs=()
while read -r tool pkg job; do
  case $tool in ''|'#'*) continue ;; esac
  r=$(rank "$job") || { echo "tools: bad job '$job' for $tool in tools.list" >&2; exit 2; }
  [ "$r" -le "$want" ] || continue
  present "$tool" && continue
  missing_tools+=("$tool ($pkg)")
  case " ${missing_pkgs[*]-} " in *" $pkg "*) ;; *) missing_pkgs+=("$pkg") ;; esac
done <"$here/tools.list"

case $1 in
  missing) [ ${#missing_pkgs[@]} = 0 ] || printf '%s\n' "${missing_pkgs[@]}" ;;
  check)
    if [ ${#missing_tools[@]} -gt 0 ]; then
      echo "tools: $2 needs what this machine lacks: ${missing_tools[*]}" >&2
      exit 1
    fi
    echo "tools: everything $2 needs is installed"
    ;;
  *) echo "tools: unknown command '$1' (missing or check)" >&2; exit 2 ;;
esac
