#!/bin/sh
# P1 (run inside the emulated host, from a payload with jkvm.jar, cpu2-lib.sh, the project kernel as Image and the workloads
# initramfs as workloads.cpio.gz): off / track-only / off with a busy loop on CPU 2, in turn, 4 rounds; per run the
# RESULT ops/s and CPU 2's busy share over the run (/proc/stat).
. ./cpu2-lib.sh
for r in 1 2 3 4; do
  one_run P1 off off
  one_run P1 track-only track-only
  taskset -c 2 sh -c 'while :; do :; done' & h=$!
  one_run P1 hog2 off
  kill $h
done
