#!/bin/sh
# The part of bench/footprint/run-arm64 that runs inside the emulated arm64 host (busybox sh,
# in /payload: jkvm.jar, Image, initramfs.cpio.gz, hostile.img, hostile-pl011.img, stamp,
# qemu-inside.sh; jkvm-base.jar with FOOT_BASE_JAR).
# Every VMM runs under ./stamp -g: 3 s after the guest's marker it reads the guest RAM's
# resident size, then stops the VMM (SIGTERM); the guest stays up until then (the Linux guest
# runs `sleep` after its ready line, the bare-metal one turns its CPUs off and idles).
# usage: sh inside.sh ROUNDS "CPU COUNTS" ["VMMS"]   env: HOLD = base64 of the Linux guest's command
# VMMS (default "qemu jkvm-aot jkvm-c1 jkvm"): also jkvm-base and jkvm-base-aot, jkvm-base.jar (another
# build, e.g. main's) run as jkvm and jkvm-aot, the latter with its own cache trained here (train-base-aot);
# jkvm-opt-NAME: jkvm-aot with the java options FOOT_FLAGS ("NAME:OPTIONS;NAME:OPTIONS") gives NAME.
rounds=${1:-1}
counts=${2:-1 128 512}
vmms=${3:-qemu jkvm-aot jkvm-c1 jkvm}
mem=256
# ./jkvm's JVM flags; jkvm-aot adds the AOT cache trained below, as ./jkvm's later runs do;
# jkvm-c1 that with C1 alone (-XX:TieredStopAtLevel=1: fewer compiler threads and less code).
jvm="java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC"
linux_cmdline="panic=-1 quiet jkvm.cmd=$HOLD"
t() { ./stamp -t 300 -g $((mem * 1024)) "$@"; }

echo "INFO uname $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
echo "INFO java $(java -version 2>&1 | head -n 2 | tail -n 1)"
. ./qemu-inside.sh
[ -n "$qemu" ] || exit 1

# The cold case and the AOT cache's training: the first run of a jar, making the cache.
./stamp -t 600 -l "set up in" train-aot/linux-1 JKVM-GUEST-READY $jvm -XX:AOTCacheOutput=/tmp/jkvm.aot \
  -jar jkvm.jar run --kernel Image --initrd initramfs.cpio.gz --cpus 1 --memory ${mem}M \
  --cmdline "console=ttyS0 panic=-1 quiet"
echo "INFO aot cache $(ls -l /tmp/jkvm.aot 2>&1 | awk '{ print $5 }') bytes"
case " $vmms " in *" jkvm-base-aot "*)
  ./stamp -t 600 -l "set up in" train-base-aot/linux-1 JKVM-GUEST-READY $jvm -XX:AOTCacheOutput=/tmp/jkvm-base.aot \
    -jar jkvm-base.jar run --kernel Image --initrd initramfs.cpio.gz --cpus 1 --memory ${mem}M \
    --cmdline "console=ttyS0 panic=-1 quiet" ;;
esac

# flags_of NAME: the java options FOOT_FLAGS gives NAME.
flags_of() {
  echo "${FOOT_FLAGS:-}" | tr ';' '\n' | while IFS=: read -r n f; do [ "$n" != "$1" ] || echo "$f"; done
}

run() {   # run VMM CONFIG: CONFIG is linux-1 (the Linux guest, 1 vCPU) or bm-N (bare metal, N vCPUs)
  case $2 in
    linux-1) cpus=1 marker=JKVM-GUEST-READY
             qguest="-kernel Image -initrd initramfs.cpio.gz -append \"console=ttyAMA0 $linux_cmdline\""
             jguest="--kernel Image --initrd initramfs.cpio.gz --cmdline \"console=ttyS0 $linux_cmdline\"" ;;
    bm-*)    cpus=${2#bm-} marker="all cpus going off"
             qguest="-kernel hostile-pl011.img -append hostile.mode=cpuoff"
             jguest="--kernel hostile.img --cmdline hostile.mode=cpuoff" ;;
  esac
  case $1 in
    qemu)     eval t "$1/$2" "\"$marker\"" $qemu -accel kvm -cpu host -machine virt,gic-version=3 -smp $cpus \
                -m ${mem}M -nographic -no-reboot -nic none $qguest ;;
    jkvm)     eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -jar jkvm.jar run $jguest --cpus $cpus --memory ${mem}M ;;
    jkvm-aot) eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -XX:AOTCache=/tmp/jkvm.aot -jar jkvm.jar run \
                $jguest --cpus $cpus --memory ${mem}M ;;
    jkvm-c1)  eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -XX:TieredStopAtLevel=1 -XX:AOTCache=/tmp/jkvm.aot \
                -jar jkvm.jar run $jguest --cpus $cpus --memory ${mem}M ;;
    jkvm-opt-*) eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -XX:AOTCache=/tmp/jkvm.aot $(flags_of "${1#jkvm-opt-}") \
                -jar jkvm.jar run $jguest --cpus $cpus --memory ${mem}M ;;
    jkvm-base) eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -jar jkvm-base.jar run $jguest --cpus $cpus --memory ${mem}M ;;
    jkvm-base-aot) eval t -l "\"set up in\"" "$1/$2" "\"$marker\"" $jvm -XX:AOTCache=/tmp/jkvm-base.aot -jar jkvm-base.jar run \
                $jguest --cpus $cpus --memory ${mem}M ;;
  esac
}

for v in $vmms; do case $v in jkvm-opt-*) echo "INFO $v: $(flags_of "${v#jkvm-opt-}")" ;; esac; done
r=1
while [ $r -le "$rounds" ]; do
  echo "ROUND $r"
  for c in linux-1 $(for n in $counts; do echo bm-$n; done); do
    for v in $vmms; do run $v $c; done
  done
  r=$((r + 1))
done
echo "INFO done"
