package org.jkvm.vmm.arch.aarch64;

import org.jkvm.kvm.DeviceFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;

/**
 * The in-kernel GICv3 (distributor and one redistributor per vCPU) and its ITS. Created after
 * the vCPUs, then initialised, which is the order KVM requires for a v3 GIC.
 */
public final class GicV3 implements AutoCloseable {
    /** SPIs the distributor offers beyond the 32 private interrupts (a multiple of 32). */
    public static final int SPIS = 96;

    private final DeviceFd gic;
    private final DeviceFd its;
    private final int vcpus;

    private GicV3(DeviceFd gic, DeviceFd its, int vcpus) {
        this.gic = gic;
        this.its = its;
        this.vcpus = vcpus;
    }

    /** Creates and initialises the GIC for a VM whose {@code vcpus} vCPUs all exist already. */
    public static GicV3 create(VmFd vm, int vcpus, boolean withIts) {
        DeviceFd gic = vm.createDevice(KvmArm64.KVM_DEV_TYPE_ARM_VGIC_V3());
        DeviceFd its = null;
        try {
            int addr = KvmArm64.KVM_DEV_ARM_VGIC_GRP_ADDR();
            gic.setDeviceAttr(addr, KvmArm64.KVM_VGIC_V3_ADDR_TYPE_DIST(), Arm64Layout.GIC_DIST);
            gic.setDeviceAttr(addr, KvmArm64.KVM_VGIC_V3_ADDR_TYPE_REDIST(), Arm64Layout.GIC_REDIST);
            gic.setDeviceAttr(KvmArm64.KVM_DEV_ARM_VGIC_GRP_NR_IRQS(), 0, 32 + SPIS);
            gic.setDeviceAttr(KvmArm64.KVM_DEV_ARM_VGIC_GRP_CTRL(), KvmArm64.KVM_DEV_ARM_VGIC_CTRL_INIT());
            if (withIts) {
                its = vm.createDevice(KvmArm64.KVM_DEV_TYPE_ARM_VGIC_ITS());
                its.setDeviceAttr(addr, KvmArm64.KVM_VGIC_ITS_ADDR_TYPE(), Arm64Layout.GIC_ITS);
                its.setDeviceAttr(KvmArm64.KVM_DEV_ARM_VGIC_GRP_CTRL(), KvmArm64.KVM_DEV_ARM_VGIC_CTRL_INIT());
            }
            return new GicV3(gic, its, vcpus);
        } catch (RuntimeException e) {
            if (its != null) its.close();
            gic.close();
            throw e;
        }
    }

    /** The distributor's size. */
    public static long distributorSize() {
        return KvmArm64.KVM_VGIC_V3_DIST_SIZE();
    }

    /** The redistributor region's size for {@code vcpus}. */
    public static long redistributorSize(int vcpus) {
        return (long) vcpus * KvmArm64.KVM_VGIC_V3_REDIST_SIZE();
    }

    /** Whether an ITS was created. */
    public boolean hasIts() {
        return its != null;
    }

    /** How many vCPUs it serves. */
    public int vcpus() {
        return vcpus;
    }

    @Override
    public void close() {
        if (its != null) its.close();
        gic.close();
    }
}
