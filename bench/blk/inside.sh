#!/bin/sh
# The part of bench/blk/run-arm64 that runs inside the emulated arm64 host (busybox sh, in
# /payload: jkvm.jar (and jkvm-base.jar with BLK_BASE_JAR, base.args: BLK_BASE_ARGS), carried.aot (jkvm.jar's AOT cache), Image,
# debian-arm64.ext4, fio.cmd, up.cmd, stamp, qemu-inside.sh, demo-java-options.sh). Each VMM gets
# its own copy of the Debian image as /dev/vda (the root) and a sparse scratch disk with serial
# "scratch" that fio reads and writes; every boot runs under ./stamp ("STAMP NAME ..." lines,
# see bench/boot/stamp.c). Besides the boots to the first command, each round boots each VMM with
# jkvm.login to agetty's "login: " prompt (stamp -k ends the VMM there). By default jkvm boots twice a
# round: as "jkvm" without an AOT cache and as "jkvm-aotc" with carried.aot, on the same image;
# "jkvm-demo" is jkvm-aotc with the java options ./demo runs jkvm with in the emulated host;
# "base-demo" the same with jkvm-base.jar and its own cache, carried-base.aot (before/after in one host boot).
# usage: sh inside.sh BOOTS SCRATCH_MB ["FIO_ORDER" ["BOOT_VMMS" [IMAGES_FS [THP]]]]   (FIO_ORDER: the fio runs' order,
#        default "jkvm qemu base"; BOOT_VMMS: what boots, in the odd rounds' order, default "jkvm jkvm-aotc qemu";
#        IMAGES_FS: tmpfs, the images in /payload, or ext4: on the host's third disk, /dev/vdc, mounted at /images,
#        with links to them in /payload; THP: the transparent huge pages setting to run with, empty for the host's own)
boots=${1:-3}
scratch_mb=${2:-320}
fio_order=${3:-jkvm qemu base}
boot_vmms=${4:-jkvm jkvm-aotc qemu}
images_fs=${5:-tmpfs}
thp=${6:-}
# ./demo's java options (that file says why)
. ./demo-java-options.sh
demo_opts=$JKVM_DEMO_JAVA_OPTS
jkvm_args=
jkvm_vm="--kernel Image --cpus 2 --memory 512M --disk jkvm.ext4 --disk jkvm-scratch.raw,serial=scratch"
jar=jkvm.jar
marker=JKVM-GUEST-READY
# The same kernel command line for both; QEMU's virt board has a PL011 (ttyAMA0), jkvm a 16550 (ttyS0).
# The root is mounted read-only: a boot ends in a power-off or a kill, never an unmount, so a
# writable root would leave ext4's journal for the next boot of that image to replay (twice the
# reads), and which boot pays would depend on the order.
append="quiet panic=-1 root=/dev/vda ro rootfstype=ext4 init=/sbin/jkvm-init"
t() { ./stamp -t 900 "$@"; }
login_marker='login: '

echo "INFO uname $(uname -r) $(uname -m), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MB" }' /proc/meminfo)"
echo "INFO java $(java -version 2>&1 | head -n 2 | tail -n 1)"
. ./qemu-inside.sh
[ -n "$qemu" ] || exit 1
thp_file=/sys/kernel/mm/transparent_hugepage/enabled
if [ -n "$thp" ]; then
  echo "$thp" >$thp_file || { echo "ERROR cannot set $thp_file to $thp"; exit 1; }
fi
echo "INFO transparent huge pages: $(cat $thp_file)"
images=.
if [ "$images_fs" = ext4 ]; then
  images=/images
  mkdir -p $images && mount -t ext4 -o noatime /dev/vdc $images \
    || { echo "ERROR cannot mount the images' disk (/dev/vdc, ext4) at $images"; exit 1; }
fi
# A sparse scratch disk, made anew (a link to it in /payload when the images live elsewhere).
fresh() {
  rm -f "$images/$1" && dd if=/dev/zero of="$images/$1" bs=1M count=0 seek="$scratch_mb" 2>/dev/null
  [ "$images" = . ] || ln -sf "$images/$1" "$1"
}
for v in jkvm qemu; do
  cp debian-arm64.ext4 "$images/$v.ext4"
  [ "$images" = . ] || ln -sf "$images/$v.ext4" "$v.ext4"
  fresh "$v-scratch.raw"
done
rm debian-arm64.ext4
if [ "$images" != . ]; then
  sync && echo 3 >/proc/sys/vm/drop_caches   # the first boot of each image reads it from the disk
  echo "INFO images on $(awk -v m=$images '$2 == m { print $1 " (" $3 ")" }' /proc/mounts), page cache emptied"
fi
# base-demo runs the base jar as base/jkvm.jar from there: its cache holds the class path jkvm.jar as
# trained (arm64-host/aot-cache), and a cache whose class path differs is not mapped.
if [ -f carried-base.aot ] && [ -f jkvm-base.jar ]; then
  mkdir -p base && cp -p jkvm-base.jar base/jkvm.jar && ln -sf ../Image ../jkvm.ext4 ../jkvm-scratch.raw base/
fi

boot() {   # boot VMM NAME [KERNEL ARGUMENTS...]
  vmm=$1 name=$2 mark=$marker kill=
  shift 2
  case $name in login-*) mark=$login_marker kill=-k ;; esac
  # QEMU's virt board gives the last virtio-mmio device the first slot: its root (/dev/vda) comes last.
  case $vmm in
    jkvm) t $kill -l "set up in" "$name" "$mark" java -jar "$jar" run $jkvm_args $jkvm_vm --cmdline "console=ttyS0 $append $*" ;;
    jkvm-aotc) t $kill -l "set up in" "$name" "$mark" java -XX:AOTMode=on -XX:AOTCache=carried.aot -jar jkvm.jar run \
                 $jkvm_vm --cmdline "console=ttyS0 $append $*" ;;
    jkvm-demo) t $kill -l "set up in" "$name" "$mark" java -XX:AOTMode=on -XX:AOTCache=carried.aot $demo_opts -jar jkvm.jar run \
                 $jkvm_vm --cmdline "console=ttyS0 $append $*" ;;
    base-demo) (cd base && ../stamp -t 900 $kill -l "set up in" "$name" "$mark" java -XX:AOTMode=on -XX:AOTCache=../carried-base.aot \
                 $demo_opts -jar jkvm.jar run $jkvm_vm --cmdline "console=ttyS0 $append $*") ;;
    qemu) t $kill "$name" "$mark" $qemu -accel kvm -cpu host -machine virt,gic-version=3 -smp 2 -m 512M \
            -nographic -no-reboot -nic none -kernel Image \
            -drive if=none,id=scratch,file=qemu-scratch.raw,format=raw \
            -device virtio-blk-device,drive=scratch,serial=scratch \
            -drive if=none,id=root,file=qemu.ext4,format=raw -device virtio-blk-device,drive=root \
            -append "console=ttyAMA0 $append $*" ;;
  esac
}

# Boot to the guest's first command (jkvm-init's ready line), alternating, then powered off; and
# to the login prompt, alternating the same way.
r=1
while [ $r -le "$boots" ]; do
  echo "ROUND $r"
  if [ $((r % 2)) = 1 ]; then order=$boot_vmms; else order=$(echo "$boot_vmms" | tr ' ' '\n' | sed -n '1!G;h;$p'); fi
  # up.cmd prints the guest's clock and the root disk's counters after the ready line (BOOTREAD).
  for v in $order; do boot $v $v "jkvm.cmd=$(cat up.cmd)"; done
  for v in $order; do boot $v login-$v jkvm.login; done
  r=$((r + 1))
done
# fio inside the guest, once per entry of FIO_ORDER, in that order (base only with BLK_BASE_JAR's
# jkvm-base.jar; jkvm-aotc: jkvm.jar with the carried AOT cache; jkvm-demo: that with ./demo's options). A fresh sparse scratch disk for each
# run: writing into pages already allocated is faster.
echo "ROUND fio"
for v in $fio_order; do
  case $v in
    jkvm|base|jkvm-aotc|jkvm-demo)
      [ $v != base ] || [ -f jkvm-base.jar ] || continue
      fresh jkvm-scratch.raw
      case $v in
        jkvm) jar=jkvm.jar jkvm_args="--stats-json fio-stats.json" vmm=jkvm ;;
        base) jar=jkvm-base.jar jkvm_args=$(cat base.args 2>/dev/null) vmm=jkvm ;;
        *) vmm=$v ;;
      esac
      boot $vmm fio-$v "jkvm.cmd=$(cat fio.cmd)"
      jar=jkvm.jar jkvm_args= ;;
    qemu) fresh qemu-scratch.raw; boot qemu fio-qemu "jkvm.cmd=$(cat fio.cmd)" ;;
  esac
done
# KVM's MMIO exits over jkvm's whole fio run (boot and the four jobs, both disks), summed over the vCPUs:
# mmio_exit_kernel counts the queue notifications (ioeventfd), mmio_exit_user the transport's
# registers (interrupt status and acknowledgement).
[ -f fio-stats.json ] && echo "KVMSTATS fio-jkvm $(grep -o '"mmio_exit_[a-z]*" *: *[0-9]*' fio-stats.json | tr -d ' "' \
  | awk -F: '{ s[$1] += $2 } END { for (k in s) printf "%s=%d ", k, s[k] }')"
echo "INFO done"
