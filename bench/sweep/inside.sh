#!/bin/sh
# The part of bench/sweep/run-arm64 that runs inside the emulated arm64 host (busybox sh, in /payload:
# jkvm.jar, carried.aot, Image, sweep.json, the guest's files, stamp, qemu-inside.sh,
# demo-java-options.sh). Every measured process runs under ./stamp ("STAMP NAME ..." lines).
# usage: sh inside.sh RUNS GUEST   (GUEST: initramfs, workloads.cpio.gz; debian: debian.ext4 read-only and
#        the command in stress.cmd, base64)
runs=${1:-5}
marker=JKVM-GUEST-READY
# Each guest prints the marker, runs its workload (a CPU-bound second), prints its result and powers off:
# the guest an experiment's run boots, with the arguments the experiment gives it.
case ${2:-initramfs} in
  initramfs)
    args="panic=-1 quiet jkvm.workload=cpu jkvm.workers=1 jkvm.seconds=1"
    qemu_guest="-initrd workloads.cpio.gz"
    jkvm_guest="--initrd workloads.cpio.gz" ;;
  debian)
    args="panic=-1 quiet root=/dev/vda ro rootfstype=ext4 init=/sbin/jkvm-init jkvm.cmd=$(cat stress.cmd)"
    qemu_guest="-drive if=none,id=root,file=debian.ext4,format=raw,readonly=on -device virtio-blk-device,drive=root"
    jkvm_guest="--disk debian.ext4,ro" ;;
  *) echo "ERROR unknown guest $2"; exit 1 ;;
esac
. ./demo-java-options.sh
java_opts="-XX:AOTMode=on -XX:AOTCache=carried.aot $JKVM_DEMO_JAVA_OPTS"
t() { ./stamp -t 300 "$@"; }

echo "INFO uname $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
echo "INFO java $(java -version 2>&1 | head -n 2 | tail -n 1); options $java_opts"
echo "INFO guest ${2:-initramfs}: $args"
. ./qemu-inside.sh
[ -n "$qemu" ] || { echo "INFO no QEMU: nothing to compare with"; exit 1; }

boot() {   # boot qemu|jkvm-run: one process, one boot
  case $1 in
    qemu) t qemu $marker $qemu -accel kvm -cpu host -machine virt,gic-version=3 -smp 2 -m 512M \
            -nographic -no-reboot -nic none -kernel Image $qemu_guest -append "console=ttyAMA0 $args" ;;
    # the experiment's variant has PV lock off; jkvm run's other defaults are the experiment's
    jkvm-run) t -l "set up in" jkvm-run $marker java $java_opts -jar jkvm.jar run --kernel Image \
                $jkvm_guest --cpus 2 --memory 512M --pvlock off --cmdline "console=ttyS0 $args" ;;
  esac
}

# The sweep: one jkvm experiment process booting the same guest RUNS times (sweep.json), each run's
# time from its start to the guest's marker in the results log's ms_to_ready.
sweep() {
  rm -f sweep.results.jsonl
  t sweep DONT-MATCH java $java_opts -jar jkvm.jar experiment run sweep.json --out out
  # a line per run, in the order they ran; "-" where a run has no such figure (e.g. no ready line)
  awk 'function f(k) { return match($0, "\"" k "\":[0-9.]+") ? substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) : "-" }
    { print "SWEEP repetition:" f("repetition") " wall_s:" f("wall_s") " ms_to_ready:" f("ms_to_ready") " ok:" (index($0, "\"error\":null") ? 1 : 0) }' \
    sweep.results.jsonl
}

# Rounds of one QEMU boot and one jkvm run, the order alternating; the sweep after the first half of
# them, so that both VMMs' single boots come from before and after it.
half=$(( (runs + 1) / 2 ))
r=1
while [ $r -le "$runs" ]; do
  echo "ROUND $r"
  if [ $((r % 2)) = 1 ]; then boot qemu; boot jkvm-run; else boot jkvm-run; boot qemu; fi
  [ $r != "$half" ] || { echo "ROUND sweep"; sweep; }
  r=$((r + 1))
done
echo "INFO done"
