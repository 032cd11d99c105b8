# Sourced by the benchmarks' inside.sh (busybox sh, in the emulated arm64 host): mounts the QEMU
# image of arm64-host/assemble-qemu (the second disk, /dev/vdb) at /opt/qemu and sets qemu= to
# its qemu-system-aarch64, with its library path exported; qemu= stays empty when it is missing.
qemu=
mkdir -p /opt/qemu
if mount -t ext4 -o ro /dev/vdb /opt/qemu 2>/dev/null && [ -x /opt/qemu/usr/bin/qemu-system-aarch64 ]; then
  export $(cat /opt/qemu/env)
  qemu=/opt/qemu/usr/bin/qemu-system-aarch64
  echo "INFO qemu $($qemu --version | head -n 1)"
else
  echo "INFO qemu missing: /dev/vdb is not the QEMU image (arm64-host/assemble-qemu)"
fi
