package org.jkvm.kvm;

/** An in-kernel device made with KVM_CREATE_DEVICE (e.g. the arm64 vGICv3 or its ITS). */
public final class DeviceFd extends KvmFd {
    private final int type;

    DeviceFd(int fd, int type) {
        super(fd, "device type " + type);
        this.type = type;
    }

    /** Its KVM_DEV_TYPE_* number. */
    public int type() {
        return type;
    }
}
