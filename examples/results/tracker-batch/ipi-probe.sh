#!/bin/sh
# P3 (run inside the emulated host, --smp 3, from a payload with jkvm.jar, the project kernel as Image and the workloads
# initramfs as workloads.cpio.gz): the experiment's VM (8 vCPUs on CPUs 0-1, jkvm on CPU 2, mmap-shared 8 workers 5 s)
# with --pvlock off, track-only, and track-only --pvlock-batch 1, in turn, 4 rounds; per run the guest's ops/s, the
# tracker's wake-ups, the IPIs each CPU took over the run (every IPI row of /proc/interrupts) and CPU 2's busy share.
ipis() { awk '$1 ~ /^IPI/ {a += $2; b += $3; c += $4} END {print a, b, c}' /proc/interrupts; }
cpu2() { awk '$1 == "cpu2" {print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
one_run() {
  name=$1; shift
  read a0 b0 c0 <<X
$(ipis)
X
  read u0 i0 <<X
$(cpu2)
X
  rm -f stats.json
  java --enable-native-access=ALL-UNNAMED -jar jkvm.jar run --kernel Image --initrd workloads.cpio.gz --cpus 8 --memory 512M \
    --pin 0-1 --vmm-pin 2 --timeout 300 --stats-json stats.json "$@" \
    --cmdline 'console=ttyS0 panic=-1 quiet jkvm.workload=mmap-shared jkvm.workers=8 jkvm.seconds=5' > run.out 2>&1
  rc=$?
  read a1 b1 c1 <<X
$(ipis)
X
  read u1 i1 <<X
$(cpu2)
X
  ops=$(sed -n 's/^RESULT mmap-shared \([0-9.]*\) .*/\1/p' run.out | head -1)
  wakeups=$(sed -n 's/.*"tracker_wakeups": \([0-9][0-9]*\).*/\1/p' stats.json 2>/dev/null | head -1)
  echo "$name rc=$rc ops=$ops wakeups=${wakeups:-0} ipi_cpu0=$((a1 - a0)) ipi_cpu1=$((b1 - b0)) ipi_cpu2=$((c1 - c0))" \
    "cpu2_busy=$(awk -v b=$((u1 - u0)) -v i=$((i1 - i0)) 'BEGIN {printf "%.3f", b / (b + i)}')"
  [ -n "$ops" ] || grep -v "^  [0-9]" run.out | tail -8
}
for r in 1 2 3 4; do
  one_run off --pvlock off
  one_run track-only --pvlock track-only
  one_run track-1ms --pvlock track-only --pvlock-batch 1
done
