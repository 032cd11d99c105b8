# Sourced by the benchmarks' scripts on this machine. `built SCRIPT ARGS...` runs a build script
# that prints KEY=VALUE lines on success and sets them here (the builds' values are cache paths
# and versions, without spaces). A failed build stops the benchmark and names the build:
# `eval "$(SCRIPT)"` alone evaluates the failed build's empty output, succeeds, and the benchmark
# runs on to an unbound variable.
built() {
  local vars status=0
  vars=$("$@") || status=$?
  [ "$status" = 0 ] || { echo "${0##*/}: $1 failed (status $status)" >&2; exit 1; }
  eval "$vars"
}
