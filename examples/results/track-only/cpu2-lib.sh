#!/bin/sh
# What cpu2-load.sh and cpu2-duty.sh share: one_run LABEL NAME MODE runs the experiment's VM (8 vCPUs on CPUs 0-1,
# jkvm on CPU 2, mmap-shared 8 workers 5 s) with --pvlock MODE and prints its ops/s and CPU 2's busy share over it.
cpu2() { awk '$1 == "cpu2" {print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
one_run() {
  label=$1; name=$2; mode=$3
  read b0 i0 <<X
$(cpu2)
X
  java --enable-native-access=ALL-UNNAMED -jar jkvm.jar run --kernel Image --initrd workloads.cpio.gz --cpus 8 --memory 512M \
    --pin 0-1 --vmm-pin 2 --timeout 300 --pvlock "$mode" \
    --cmdline 'console=ttyS0 panic=-1 quiet jkvm.workload=mmap-shared jkvm.workers=8 jkvm.seconds=5' > run.out 2>&1
  rc=$?
  read b1 i1 <<X
$(cpu2)
X
  ops=$(sed -n 's/^RESULT mmap-shared \([0-9.]*\) .*/\1/p' run.out | head -1)
  echo "$label $name rc=$rc ops=$ops cpu2_busy=$(awk -v b=$((b1-b0)) -v i=$((i1-i0)) 'BEGIN {printf "%.3f", b/(b+i)}')"
  [ -n "$ops" ] || grep -v "^  [0-9]" run.out | tail -8
}
