package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * An open KVM file descriptor (system, VM, vCPU or device). Runs ioctls on it, turning failures
 * into {@link KvmException}s that name the ioctl, its arguments and what the descriptor is, and
 * offers the device-attribute ioctls that VM, vCPU and device fds share. Closing is idempotent.
 */
public abstract sealed class KvmFd implements AutoCloseable permits Kvm, VmFd, VcpuFd, DeviceFd {
    private static final long SET_DEVICE_ATTR = HostUapi.request(UapiConstant.KVM_SET_DEVICE_ATTR);
    private static final long GET_DEVICE_ATTR = HostUapi.request(UapiConstant.KVM_GET_DEVICE_ATTR);
    private static final long HAS_DEVICE_ATTR = HostUapi.request(UapiConstant.KVM_HAS_DEVICE_ATTR);
    private static final long GET_STATS_FD = HostUapi.request(UapiConstant.KVM_GET_STATS_FD);
    private static final GroupLayout DEVICE_ATTR = HostUapi.struct(UapiStruct.kvm_device_attr);
    private static final long ATTR_GROUP = HostUapi.offset(UapiStruct.kvm_device_attr, "group");
    private static final long ATTR_ATTR = HostUapi.offset(UapiStruct.kvm_device_attr, "attr");
    private static final long ATTR_ADDR = HostUapi.offset(UapiStruct.kvm_device_attr, "addr");

    private final int fd;
    private final String description;
    private volatile boolean closed;

    KvmFd(int fd, String description) {
        this.fd = fd;
        this.description = description;
    }

    /** The raw file descriptor number, for diagnostics and for passing to other ioctls. */
    public final int fd() {
        return fd;
    }

    /** What this descriptor is, e.g. "vcpu 3". */
    public final String description() {
        return description;
    }

    final int ioctl(String name, long request, MemorySegment arg, Object args) {
        int rc = Libc.ioctl(fd, request, arg);
        if (rc < 0) throw failure(name, args);
        return rc;
    }

    final int ioctl(String name, long request, long arg) {
        int rc = Libc.ioctl(fd, request, arg);
        if (rc < 0) throw failure(name, arg);
        return rc;
    }

    final KvmException failure(String name, Object args) {
        return new KvmException(name, description + (args == null ? "" : ", " + args), Libc.errno());
    }

    /** KVM_SET_DEVICE_ATTR: sets {@code group/attr} from the memory at {@code value}. */
    public void setDeviceAttr(int group, long attr, MemorySegment value) {
        try (Arena a = Arena.ofConfined()) {
            ioctl("KVM_SET_DEVICE_ATTR", SET_DEVICE_ATTR, deviceAttr(a, group, attr, value),
                    attrText(group, attr, value));
        }
    }

    /** KVM_SET_DEVICE_ATTR with a 64-bit value (KVM reads it through the attribute's addr). */
    public void setDeviceAttr(int group, long attr, long value) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocateFrom(JAVA_LONG, value);
            ioctl("KVM_SET_DEVICE_ATTR", SET_DEVICE_ATTR, deviceAttr(a, group, attr, v),
                    "group=" + group + ", attr=" + attr + ", value=0x" + Long.toHexString(value));
        }
    }

    /** KVM_SET_DEVICE_ATTR for attributes that take no value (addr 0), e.g. a GIC's init. */
    public void setDeviceAttr(int group, long attr) {
        setDeviceAttr(group, attr, MemorySegment.NULL);
    }

    /** KVM_GET_DEVICE_ATTR: reads a 64-bit attribute value. */
    public long getDeviceAttr(int group, long attr) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(JAVA_LONG);
            ioctl("KVM_GET_DEVICE_ATTR", GET_DEVICE_ATTR, deviceAttr(a, group, attr, v),
                    "group=" + group + ", attr=" + attr);
            return v.get(JAVA_LONG, 0);
        }
    }

    /**
     * KVM_HAS_DEVICE_ATTR: whether this descriptor accepts {@code group/attr}. ENXIO (what both
     * an unknown group and an unknown attribute answer) is "no"; any other error is thrown.
     */
    public boolean hasDeviceAttr(int group, long attr) {
        try (Arena a = Arena.ofConfined()) {
            int rc = Libc.ioctl(fd, HAS_DEVICE_ATTR, deviceAttr(a, group, attr, MemorySegment.NULL));
            if (rc == 0) return true;
            int errno = Libc.errno();
            if (errno == Libc.ENXIO) return false;
            throw new KvmException("KVM_HAS_DEVICE_ATTR",
                    description + ", group=" + group + ", attr=" + attr, errno);
        }
    }

    private static MemorySegment deviceAttr(Arena a, int group, long attr, MemorySegment value) {
        MemorySegment s = a.allocate(DEVICE_ATTR);
        s.set(JAVA_INT, ATTR_GROUP, group);
        s.set(JAVA_LONG, ATTR_ATTR, attr);
        s.set(JAVA_LONG, ATTR_ADDR, value.address());
        return s;
    }

    private static String attrText(int group, long attr, MemorySegment value) {
        return "group=" + group + ", attr=" + attr + ", addr=0x" + Long.toHexString(value.address());
    }

    /** KVM_GET_STATS_FD on a VM or vCPU descriptor, then its header and descriptors read once. */
    final StatsFd openStats() {
        return StatsFd.open(ioctl("KVM_GET_STATS_FD", GET_STATS_FD, 0L), description);
    }

    /** Whether {@link #close} has run. */
    public final boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        Libc.close(fd);
    }

    @Override
    public String toString() {
        return description + " (fd " + fd + ")";
    }
}
