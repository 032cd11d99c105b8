#!/bin/sh
# P2 (run inside the emulated host, from a payload with jkvm.jar, cpu2-lib.sh, duty.sh, the project kernel as Image and the
# workloads initramfs as workloads.cpio.gz): off / track-only / off with duty.sh on CPU 2 at 200 and 1000 iterations,
# in turn, 3 rounds; per run the RESULT ops/s and CPU 2's busy share over the run (/proc/stat).
. ./cpu2-lib.sh
for r in 1 2 3; do
  one_run P2 off off
  one_run P2 track-only track-only
  for n in 200 1000; do
    taskset -c 2 ./duty.sh $n & h=$!
    one_run P2 duty$n off
    kill $h
  done
done
