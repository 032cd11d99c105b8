# The guest's command in bench/blk (jkvm.cmd of the Debian image's jkvm-init; run-arm64 puts
# SIZE_MB and RUNTIME_S in front): fio on the raw virtio-blk disk whose serial is "scratch",
# O_DIRECT through libaio, one job at a time, each printed as
#   FIO NAME <fio's terse v3 line>
# and, for the requests and interrupts each job cost (the disk's completed reads + writes from its
# stat, the sum over CPUs of its virtio device's line in /proc/interrupts), before and after it:
#   FIOSTAT NAME REQUESTS INTERRUPTS REQUESTS INTERRUPTS
d=
for s in /sys/block/vd*; do
  [ "$(cat "$s/serial" 2>/dev/null)" = scratch ] && d=/dev/${s##*/}
done
[ -n "$d" ] || { echo "FIO-ERROR no disk with serial scratch"; exit 1; }
b=${d#/dev/}
v=$(basename "$(readlink /sys/block/$b/device)")
# The image has no awk (not in the Essential set): the shell adds.
c() {
  read -r r x x x w x </sys/block/$b/stat
  n=0
  while read -r x l; do
    case "$l" in *" $v") set -- $l; while [ -n "$1" ] && [ "${1#*[!0-9]}" = "$1" ]; do n=$((n + $1)); shift; done ;; esac
  done </proc/interrupts
  echo "$((r + w)) $n"
}
echo "SCRATCH $d $(cat /sys/block/${d#/dev/}/size) sectors, root $(grep ' / ' /proc/mounts)"
fio --version
# The sequential jobs run again at the end: in the emulated host a new jkvm process compiles its data
# path (C2) through its first minute, the first two jobs, so those measure a cold VMM and the last two
# a warm one (bench/blk/README.md, 2026-12-02). The disk is written through by then, for both VMMs.
# rand-read-qd1 keeps one request in flight, as a booting system's reads mostly do: its IOPS is one
# over the time a request takes, the guest's submission to its completion.
for j in seq-write:write:1M:16 seq-read:read:1M:16 rand-read:randread:4k:16 rand-write:randwrite:4k:16 \
    seq-write-again:write:1M:16 seq-read-again:read:1M:16 rand-read-qd1:randread:4k:1; do
  IFS=: read -r name rw bs depth <<JOB
$j
JOB
  s0=$(c)
  line=$(fio --name="$name" --filename="$d" --rw="$rw" --bs="$bs" --direct=1 --ioengine=libaio --iodepth="$depth" \
    --size="${SIZE_MB}M" --runtime="$RUNTIME_S" --time_based --ramp_time=1 --randrepeat=0 \
    --output-format=terse --terse-version=3) || { echo "FIO-ERROR $name"; exit 1; }
  echo "FIOSTAT $name $s0 $(c)"
  echo "FIO $name $line"
done
