#!/bin/sh
# The part of bench/boot/run-arm64 that runs inside the emulated arm64 host (busybox sh, in
# /payload: jkvm.jar, Image, initramfs.cpio.gz, stamp, qemu-inside.sh). Every measured process runs under
# ./stamp, which prints one "STAMP NAME ..." line per process (see stamp.c).
# usage: sh inside.sh RUNS "VARIANTS"   (variants: qemu jkvm jkvm-cds jkvm-aot jkvm-serial jkvm-c1 jkvm-base
#        jkvm-base-aot jkvm-rt jkvm-rt-aot jkvm-aotc; jkvm-base runs jkvm-base.jar, another build to
#        compare with, the same way as jkvm, jkvm-base-aot with its own AOT cache; jkvm-rt* run on the
#        jlink runtime (arm64-host/assemble-runtime, a disk holding a file jkvm-runtime); jkvm-aotc
#        maps carried.aot, a cache made in an earlier boot of the host by arm64-host/aot-cache;
#        jkvm-aotc-NAME: jkvm-aotc with the java options BOOT_FLAGS gives NAME, "NAME:OPTIONS;NAME:OPTIONS";
#        jkvm-basec-NAME: the same with jkvm-base.jar and carried-base.aot, its cache made the same way)
runs=${1:-5}
variants=${2:-qemu jkvm jkvm-cds jkvm-aot}
marker=JKVM-GUEST-READY
guest="--kernel Image --initrd initramfs.cpio.gz --cpus 2 --memory 512M"
# The same command line for both; QEMU's virt board has a PL011 (ttyAMA0), jkvm a 16550 (ttyS0).
# After its marker the guest prints its clock (uptime.cmd, run-arm64 says why).
append="panic=-1 quiet jkvm.cmd=$(cat uptime.cmd)"
t() { ./stamp -t 300 "$@"; }

echo "INFO uname $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
echo "INFO java $(java -version 2>&1 | head -n 2 | tail -n 1)"
qemu=
case " $variants " in *" qemu "*) . ./qemu-inside.sh ;; esac
rt=
case " $variants " in *" jkvm-rt"*)
  mkdir -p /opt/jrt
  for d in /dev/vd[b-z]; do
    mount -t ext4 -o ro "$d" /opt/jrt 2>/dev/null || continue
    [ -f /opt/jrt/jkvm-runtime ] && { rt=/opt/jrt/bin/java; break; }
    umount /opt/jrt
  done
  echo "INFO runtime ${rt:-missing: no disk holds the jlink runtime} $(grep -h '^MODULES=' /opt/jrt/release 2>/dev/null)" ;;
esac

# flags_of NAME: the java options BOOT_FLAGS ("NAME:OPTIONS;NAME:OPTIONS...") gives NAME.
flags_of() {
  echo "${BOOT_FLAGS:-}" | tr ';' '\n' | while IFS=: read -r n f; do [ "$n" != "$1" ] || echo "$f"; done
}

run_variant() {   # run_variant NAME
  case $1 in
    qemu) [ -n "$qemu" ] || return 0
          t qemu $marker $qemu -accel kvm -cpu host -machine virt,gic-version=3 -smp 2 -m 512M \
            -nographic -no-reboot -nic none -kernel Image -initrd initramfs.cpio.gz \
            -append "console=ttyAMA0 $append" ;;
    jkvm) t -l "set up in" jkvm $marker java -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-cds) t -l "set up in" jkvm-cds $marker java -Xshare:on -XX:SharedArchiveFile=/tmp/jkvm.jsa \
                -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-aot) t -l "set up in" jkvm-aot $marker java -XX:AOTMode=on -XX:AOTCache=/tmp/jkvm.aot \
                -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-serial) t -l "set up in" jkvm-serial $marker java -XX:+UseSerialGC \
                -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-c1) t -l "set up in" jkvm-c1 $marker java -XX:TieredStopAtLevel=1 \
                -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-rt) [ -n "$rt" ] || return 0
             t -l "set up in" jkvm-rt $marker $rt -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-rt-aot) [ -n "$rt" ] || return 0
                 t -l "set up in" jkvm-rt-aot $marker $rt -XX:AOTMode=on -XX:AOTCache=/tmp/jkvm-rt.aot \
                   -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-aotc) [ -f carried.aot ] || return 0
               t -l "set up in" jkvm-aotc $marker java -XX:AOTMode=on -XX:AOTCache=carried.aot \
                 -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-aotc-*) [ -f carried.aot ] || return 0
                 t -l "set up in" "$1" $marker java -XX:AOTMode=on -XX:AOTCache=carried.aot $(flags_of "${1#jkvm-aotc-}") \
                   -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-basec-*) [ -d base ] || return 0
                  (cd base && ../stamp -t 300 -l "set up in" "$1" $marker java -XX:AOTMode=on -XX:AOTCache=../carried-base.aot \
                    $(flags_of "${1#jkvm-basec-}") -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append") ;;
    jkvm-base) [ -f jkvm-base.jar ] || return 0
               t -l "set up in" jkvm-base $marker java -jar jkvm-base.jar run $guest --cmdline "console=ttyS0 $append" ;;
    jkvm-base-aot) [ -f jkvm-base.jar ] || return 0
               t -l "set up in" jkvm-base-aot $marker java -XX:AOTMode=on -XX:AOTCache=/tmp/jkvm-base.aot \
                 -jar jkvm-base.jar run $guest --cmdline "console=ttyS0 $append" ;;
  esac
}

# Where jkvm's start-up goes (--log-level debug: a line per step, ms since the process started),
# once without and once with the AOT cache; outside the timed rounds.
marks() {   # marks NAME [JAVA OPTIONS...]
  n=$1; shift
  t -l "set up in" "$n" $marker java "$@" -jar jkvm.jar --log-level debug run $guest --cmdline "console=ttyS0 $append"
}

# jkvm-basec-*: the base jar as base/jkvm.jar, run from there, since its cache holds the class path
# jkvm.jar as trained (arm64-host/aot-cache), and a cache whose class path differs is not mapped.
if [ -f carried-base.aot ] && [ -f jkvm-base.jar ]; then
  mkdir -p base && cp -p jkvm-base.jar base/jkvm.jar && ln -sf ../Image ../initramfs.cpio.gz base/
fi

# Training runs (one guest boot each) make the archives with this very JVM and jar.
case " $variants " in *" jkvm-cds "*)
  t -l "set up in" train-cds $marker java -XX:ArchiveClassesAtExit=/tmp/jkvm.jsa \
    -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append"
  echo "INFO cds archive $(ls -l /tmp/jkvm.jsa 2>&1 | awk '{ print $5 }') bytes" ;;
esac
# train-aot is also the cold case: the first run after a build, which makes the cache.
case " $variants " in *" jkvm-aot "*)
  t -l "set up in" train-aot $marker java -XX:AOTCacheOutput=/tmp/jkvm.aot \
    -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append"
  echo "INFO aot cache $(ls -l /tmp/jkvm.aot 2>&1 | awk '{ print $5 }') bytes" ;;
esac
case " $variants " in *" jkvm-rt-aot "*) [ -z "$rt" ] || {
  t -l "set up in" train-rt-aot $marker $rt -XX:AOTCacheOutput=/tmp/jkvm-rt.aot \
    -jar jkvm.jar run $guest --cmdline "console=ttyS0 $append"
  echo "INFO rt aot cache $(ls -l /tmp/jkvm-rt.aot 2>&1 | awk '{ print $5 }') bytes"; } ;;
esac
case " $variants " in *" jkvm-base-aot "*)
  [ ! -f jkvm-base.jar ] || t -l "set up in" train-base-aot $marker java -XX:AOTCacheOutput=/tmp/jkvm-base.aot \
    -jar jkvm-base.jar run $guest --cmdline "console=ttyS0 $append" ;;
esac
case " $variants " in *" jkvm "*) marks marks ;; esac
case " $variants " in *" jkvm-base "*)   # the same marks from the other build, for before/after in one host boot
  [ ! -f jkvm-base.jar ] || t -l "set up in" marks-base $marker java -jar jkvm-base.jar --log-level debug run $guest \
    --cmdline "console=ttyS0 $append" ;;
esac
case " $variants " in *" jkvm-aot "*) marks marks-aot -XX:AOTCache=/tmp/jkvm.aot ;; esac
case " $variants " in *" jkvm-aotc "*) [ ! -f carried.aot ] || marks marks-aotc -XX:AOTCache=carried.aot ;; esac
for v in $variants; do case $v in jkvm-aotc-*) [ ! -f carried.aot ] ||
  marks "marks-aotc-${v#jkvm-aotc-}" -XX:AOTCache=carried.aot $(flags_of "${v#jkvm-aotc-}") ;;
esac; done
for v in $variants; do case $v in jkvm-basec-*) [ ! -d base ] ||
  (cd base && ../stamp -t 300 -l "set up in" "marks-basec-${v#jkvm-basec-}" $marker java -XX:AOTCache=../carried-base.aot \
    $(flags_of "${v#jkvm-basec-}") -jar jkvm.jar --log-level debug run $guest --cmdline "console=ttyS0 $append") ;;
esac; done
case " $variants " in *" jkvm-base-aot "*)
  [ ! -f jkvm-base.jar ] || t -l "set up in" marks-base-aot $marker java -XX:AOTCache=/tmp/jkvm-base.aot -jar jkvm-base.jar \
    --log-level debug run $guest --cmdline "console=ttyS0 $append" ;;
esac

# Alternating rounds: every variant once per round, the order rotated each round.
set -- $variants
n=$#
r=1
while [ $r -le "$runs" ]; do
  echo "ROUND $r"
  i=0
  while [ $i -lt $n ]; do
    k=$(( (i + r - 1) % n + 1 ))
    eval "v=\${$k}"
    run_variant "$v"
    i=$((i + 1))
  done
  # JVM start-up alone: the launcher, picocli and --version (no KVM, no guest); and the JVM's own
  # floor, `java -version` (no jar), with each option set.
  t version DONT-MATCH java -jar jkvm.jar --version
  t jvm DONT-MATCH java -version
  for v in $variants; do case $v in jkvm-aotc-*)
    f=$(flags_of "${v#jkvm-aotc-}")
    t "version-aotc-${v#jkvm-aotc-}" DONT-MATCH java -XX:AOTMode=on -XX:AOTCache=carried.aot $f -jar jkvm.jar --version
    t "jvm-${v#jkvm-aotc-}" DONT-MATCH java $f -version ;;
  esac; done
  case " $variants " in *" jkvm-aot "*)
    t version-aot DONT-MATCH java -XX:AOTCache=/tmp/jkvm.aot -jar jkvm.jar --version ;;
  esac
  case " $variants " in *" jkvm-rt-aot "*) [ -z "$rt" ] ||
    t version-rt-aot DONT-MATCH $rt -XX:AOTCache=/tmp/jkvm-rt.aot -jar jkvm.jar --version ;;
  esac
  r=$((r + 1))
done

# A 128-vCPU VM: the set-up time jkvm reports (the boot may well time out: fine); BOOT_BIG=0 skips it.
[ "${BOOT_BIG:-1}" != 0 ] || { echo "INFO done"; exit 0; }
echo "ROUND big"
t -t 120 -l "set up in" big-128 $marker java -jar jkvm.jar run --kernel Image --initrd initramfs.cpio.gz \
  --cpus 128 --memory 1G --timeout 20 --cmdline "console=ttyS0 $append"
case " $variants " in *" jkvm-aot "*)
  t -t 120 -l "set up in" big-128-aot $marker java -XX:AOTCache=/tmp/jkvm.aot -jar jkvm.jar run \
    --kernel Image --initrd initramfs.cpio.gz --cpus 128 --memory 1G --timeout 20 --cmdline "console=ttyS0 $append" ;;
esac
echo "INFO done"
