# Sourced by a benchmark's inside.sh in the emulated arm64 host: mounts Debian's arm64 QEMU
# (arm64-host/assemble-qemu, attached to the host as /dev/vdb) at /opt/qemu, exports the
# library path it needs, and sets qemu to its binary; qemu stays empty, with an INFO line, when
# /dev/vdb is not that image.
qemu=
mkdir -p /opt/qemu
if mount -t ext4 -o ro /dev/vdb /opt/qemu 2>/dev/null && [ -x /opt/qemu/usr/bin/qemu-system-aarch64 ]; then
  export $(cat /opt/qemu/env)
  qemu=/opt/qemu/usr/bin/qemu-system-aarch64
  echo "INFO qemu $($qemu --version | head -n 1)"
else
  echo "INFO qemu missing: /dev/vdb is not the QEMU image (arm64-host/assemble-qemu)"
fi
