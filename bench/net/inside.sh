#!/bin/sh
# The part of bench/net/run-arm64 (and of Arm64VirtioNetTest) that runs inside the emulated
# arm64 host (busybox sh, in /payload: jkvm.jar, Image (the project kernel: virtio-net and IP
# autoconfiguration built in), initramfs.cpio.gz (guest/build)). Per VMM and round: a guest on a
# tap pings the host, receives MIB MiB from it over TCP, then sends MIB MiB to it; the receiving
# side times its end (connection accepted to EOF, /proc/uptime) and hashes what it got.
# The host -> guest transfer is made 1 + WARM times in the same guest: the first (h2g) is the VMM's
# first heavy traffic (a JVM compiles its data path meanwhile), the others (h2g-warm1 ..) are not.
# Prints, per run:
#   NET VMM ROUND ping=ok|failed
#   NET VMM ROUND h2g bytes=N sha256=X secs=S     (host to guest, timed in the guest; h2g-warmK the same)
#   NET VMM ROUND h2g-guest irqs=N packets=N dropped=N
#     (the guest's virtio interrupts, received packets and packets its driver dropped during it)
#   NET VMM ROUND h2g-threads NAME=TICKS ... all=TICKS  (the VMM's threads' CPU, 1/100 s, while the host sent
#     it: the JVM's own threads (JIT, GC) beside the vCPUs and the device worker; QEMU's named by -name
#     debug-threads=on; all: the whole process)
#   NET VMM ROUND host tap-drops=N retransmits=N hystart-cwnd=N
#     (whole run: frames the tap dropped for the guest, the host's TCP retransmissions, and the sum of the
#     congestion windows at which the host's HyStart ended slow start on a rising round-trip time)
#   NET VMM ROUND g2h bytes=N sha256=X secs=S     (guest to host, timed in the host)
# and first the hashes of the files sent: NET h2g-sent sha256=X, and per run NET VMM ROUND g2h-sent sha256=X.
# usage: sh inside.sh "VMMS" [MIB] [ROUNDS] [WARM]     (VMMS: jkvm, jkvm-base (jkvm-base.jar, another build), jkvm-c1,
#        jkvm-demo (needs carried.aot, the jar's AOT cache, jkvm.jar.mtime, the jar's time, and
#        demo-java-options.sh, ./demo's java options), qemu; MIB 8; ROUNDS 1; WARM 0)
# QEMU is Debian's arm64 build on /dev/vdb (arm64-host/assemble-qemu), mounted at /opt/qemu.
vmms=${1:-jkvm qemu}
mib=${2:-8}
rounds=${3:-1}
warm=${4:-0}
tap=jkvmtap0
host=10.0.2.1
guest=10.0.2.15
mac=52:54:00:12:34:56

echo "INFO uname $(uname -r) $(uname -m), $(nproc) CPUs"
# The project kernel (allnoconfig + jkvm.config: no INITRAMFS_PRESERVE_MTIME) unpacks the payload
# with the boot's time on every file, and the AOT cache checks the jar's: put the jar's back.
[ ! -f jkvm.jar.mtime ] || touch -d "@$(cat jkvm.jar.mtime)" jkvm.jar
mkdir -p /tmp
# A persistent tap both VMMs attach to (the VMM adds IFF_VNET_HDR when it attaches).
tunctl -t $tap >/dev/null && ip addr add $host/24 dev $tap && ip link set $tap up || { echo "NET setup failed: no tap"; exit 1; }
head -c $((mib << 20)) /dev/urandom > /tmp/h2g
echo "NET h2g-sent sha256=$(sha256sum /tmp/h2g | cut -c1-64)"

case " $vmms " in *" qemu "*)
  mkdir -p /opt/qemu
  if mount -t ext4 -o ro /dev/vdb /opt/qemu 2>/dev/null && [ -x /opt/qemu/usr/bin/qemu-system-aarch64 ]; then
    export $(cat /opt/qemu/env)
    echo "INFO qemu $(/opt/qemu/usr/bin/qemu-system-aarch64 --version | head -n 1)"
  else
    echo "NET setup failed: /dev/vdb is not the QEMU image (arm64-host/assemble-qemu)"; exit 1
  fi ;;
esac

# What the guest's /init runs (jkvm.cmd=, base64): ping; receive on 5001 (timed), 1 + WARM times;
# send to 5002, then wait for the host to connect to 5003, which it does once it has every byte
# (powering off earlier could lose what is still in the guest's socket buffer).
cmd="mkdir -p /tmp
echo NET-FEATURES \$(cat /sys/class/net/eth0/device/features)
busybox ping -c 3 -W 5 $host >/dev/null && echo PING-OK
counts() { echo RX-COUNTS \$1 \$(busybox awk '/virtio/ { for (i = 2; \$i ~ /^[0-9]+\$/; i++) n += \$i } END { print n + 0 }' /proc/interrupts) \$(cat /sys/class/net/eth0/statistics/rx_packets) \$(cat /sys/class/net/eth0/statistics/rx_dropped); }
k=0
while [ \$k -le $warm ]; do
  busybox nc -l -p 5001 -e sh -c 'cat /proc/uptime > /tmp/a; cat > /tmp/r; cat /proc/uptime > /tmp/b' &
  l=\$!
  counts \$k
  echo GUEST-LISTENING \$k.
  wait \$l
  counts \$k
  echo \"H2G \$k bytes=\$(wc -c < /tmp/r) sha256=\$(busybox sha256sum /tmp/r | cut -c1-64) start=\$(cut -d' ' -f1 /tmp/a) end=\$(cut -d' ' -f1 /tmp/b)\"
  rm -f /tmp/r
  k=\$((k + 1))
done
dd if=/dev/urandom of=/tmp/s bs=1M count=$mib 2>/dev/null
echo \"G2H-SENT sha256=\$(busybox sha256sum /tmp/s | cut -c1-64)\"
busybox nc -l -p 5003 -e true &
k=\$!
busybox nc $host 5002 < /tmp/s
wait \$k"
append="panic=-1 quiet ip=$guest::$host:255.255.255.0::eth0:off jkvm.cmd=$(printf '%s' "$cmd" | base64 -w 0)"

secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# The tap's dropped frames (its queue full: the VMM reads too late), the host's TCP retransmissions and
# TCPHystartDelayCwnd (slow start left early when the round trip grows: a VMM adding delay under load).
losses() { echo "$(cat /sys/class/net/$tap/statistics/tx_dropped)" \
  "$(awk '$1 == "Tcp:" && $2 !~ /^[0-9]/ { for (i = 2; i <= NF; i++) if ($i == "RetransSegs") c = i } $1 == "Tcp:" && $2 ~ /^[0-9]/ { print $c }' /proc/net/snmp)" \
  "$(awk '$1 == "TcpExt:" && $2 !~ /^[0-9]/ { for (i = 2; i <= NF; i++) if ($i == "TCPHystartDelayCwnd") c = i } $1 == "TcpExt:" && $2 ~ /^[0-9]/ { print c ? $c : 0 }' /proc/net/netstat)"; }

# Per thread of PID: tid, name (spaces as _), CPU ticks (user + system, 1/100 s) so far.
tcpu() { for t in /proc/$1/task/*; do echo "${t##*/} $(tr ' ' _ < $t/comm) $(sed 's/.*) //' $t/stat | awk '{ print $12 + $13 }')"; done; }

# The name of host -> guest transfer K: h2g for the first, h2g-warmK after it.
tag() { [ "$1" = 0 ] && echo h2g || echo "h2g-warm$1"; }

run() {   # run VMM ROUND
  rm -f /tmp/g2h /tmp/ga /tmp/gb /tmp/vm.log
  nc -l -p 5002 -e sh -c 'cat /proc/uptime > /tmp/ga; cat > /tmp/g2h; cat /proc/uptime > /tmp/gb' &
  listener=$!
  before=$(losses)
  case $1 in
    jkvm|jkvm-base) java -jar "$1.jar" run --kernel Image --initrd initramfs.cpio.gz --cpus 2 --memory 512M --timeout 900 \
            --net tap=$tap,mac=$mac --cmdline "console=ttyS0 $append" > /tmp/vm.log 2>&1 & ;;
    jkvm-c1) java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar jkvm.jar run --kernel Image --initrd initramfs.cpio.gz \
            --cpus 2 --memory 512M --timeout 900 --net tap=$tap,mac=$mac --cmdline "console=ttyS0 $append" > /tmp/vm.log 2>&1 & ;;
    jkvm-demo) . ./demo-java-options.sh
            java -XX:AOTMode=on -XX:AOTCache=carried.aot $JKVM_DEMO_JAVA_OPTS -jar jkvm.jar run --kernel Image --initrd initramfs.cpio.gz \
            --cpus 2 --memory 512M --timeout 900 --net tap=$tap,mac=$mac --cmdline "console=ttyS0 $append" > /tmp/vm.log 2>&1 & ;;
    qemu) /opt/qemu/usr/bin/qemu-system-aarch64 -accel kvm -cpu host -machine virt,gic-version=3 -smp 2 -m 512M -name qemu,debug-threads=on \
            -nographic -no-reboot -global virtio-mmio.force-legacy=false \
            -netdev tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=off -device virtio-net-device,netdev=n0,mac=$mac \
            -kernel Image -initrd initramfs.cpio.gz -append "console=ttyAMA0 $append" > /tmp/vm.log 2>&1 & ;;
  esac
  vm=$!
  k=0
  while [ $k -le "$warm" ]; do
    i=0
    while ! grep -q "GUEST-LISTENING $k\." /tmp/vm.log 2>/dev/null && [ $i -lt 900 ] && kill -0 $vm 2>/dev/null; do sleep 1; i=$((i + 1)); done
    tcpu $vm > /tmp/tc0
    i=0
    # Each try of a VMM that is gone would wait out TCP's connect timeout: stop when it has exited.
    while kill -0 $vm 2>/dev/null && ! nc $guest 5001 < /tmp/h2g; do i=$((i + 1)); [ $i -lt 30 ] || break; sleep 1; done
    tcpu $vm > /tmp/tc1
    echo "NET $1 $2 $(tag $k)-threads $(awk 'NR == FNR { b[$1] = $3; next } { d = $3 - b[$1]; if (d > 0) printf "%s=%d ", $2, d; all += d } END { printf "all=%d", all }' /tmp/tc0 /tmp/tc1)"
    k=$((k + 1))
  done
  i=0
  while [ ! -f /tmp/gb ] && [ $i -lt 900 ] && kill -0 $vm 2>/dev/null; do sleep 1; i=$((i + 1)); done
  i=0
  while kill -0 $vm 2>/dev/null && ! nc $guest 5003 < /dev/null; do i=$((i + 1)); [ $i -lt 10 ] || break; sleep 1; done
  wait $vm
  echo "NET $1 $2 vmm-exit=$?"
  echo "$before $(losses)" | awk -v p="NET $1 $2 host" '{ printf "%s tap-drops=%d retransmits=%d hystart-cwnd=%d\n", p, $4 - $1, $5 - $2, $6 - $3 }'
  kill $listener 2>/dev/null
  wait $listener 2>/dev/null
  sed 's/^/  | /' /tmp/vm.log
  grep -a '^NET-FEATURES' /tmp/vm.log | sed "s/^NET-FEATURES/NET $1 $2 features/"
  grep -q PING-OK /tmp/vm.log && echo "NET $1 $2 ping=ok" || echo "NET $1 $2 ping=failed"
  k=0
  while [ $k -le "$warm" ]; do
    line=$(grep -a "^H2G $k " /tmp/vm.log | tr -d '\r')
    a=${line##*start=}; a=${a%% *}; b=${line##*end=}
    bytes=${line#*bytes=}; bytes=${bytes%% *}; sha=${line#*sha256=}; sha=${sha%% *}
    [ -n "$line" ] && echo "NET $1 $2 $(tag $k) bytes=$bytes sha256=$sha secs=$(secs "$a" "$b")" || echo "NET $1 $2 $(tag $k) failed"
    grep -a "^RX-COUNTS $k " /tmp/vm.log | tr -d '\r' | awk -v p="NET $1 $2 $(tag $k)-guest" \
      '{ i[NR] = $3; n[NR] = $4; d[NR] = $5 } END { if (NR == 2) printf "%s irqs=%d packets=%d dropped=%d\n", p, i[2] - i[1], n[2] - n[1], d[2] - d[1] }'
    k=$((k + 1))
  done
  sent=$(grep -a '^G2H-SENT ' /tmp/vm.log | tr -d '\r'); echo "NET $1 $2 g2h-sent ${sent#G2H-SENT }"
  if [ -f /tmp/gb ]; then
    echo "NET $1 $2 g2h bytes=$(wc -c < /tmp/g2h) sha256=$(sha256sum /tmp/g2h | cut -c1-64) secs=$(secs "$(cut -d' ' -f1 /tmp/ga)" "$(cut -d' ' -f1 /tmp/gb)")"
  else
    echo "NET $1 $2 g2h failed"
  fi
}

r=1
while [ $r -le "$rounds" ]; do
  for v in $vmms; do run "$v" "$r"; done
  r=$((r + 1))
done
echo "INFO done"
