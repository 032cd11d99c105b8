#!/bin/sh
# P2 (run inside the emulated host, from a payload with jkvm.jar, duty.sh, the project kernel as Image and the
# workloads initramfs as workloads.cpio.gz): off / track-only / off with duty.sh on CPU 2 at 200 and 1000 iterations,
# in turn, 3 rounds; per run the RESULT ops/s and CPU 2's busy share over the run (/proc/stat).
cpu2() { awk '$1 == "cpu2" {print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
one() {
  name=$1; mode=$2
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
  echo "P2 $name rc=$rc ops=$ops cpu2_busy=$(awk -v b=$((b1-b0)) -v i=$((i1-i0)) 'BEGIN {printf "%.3f", b/(b+i)}')"
  [ -n "$ops" ] || grep -v "^  [0-9]" run.out | tail -8
}
for r in 1 2 3; do
  one off off
  one track-only track-only
  for n in 200 1000; do
    taskset -c 2 ./duty.sh $n & h=$!
    one duty$n off
    kill $h
  done
done
