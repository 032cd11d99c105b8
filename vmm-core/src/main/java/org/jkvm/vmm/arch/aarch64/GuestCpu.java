package org.jkvm.vmm.arch.aarch64;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.IntConsumer;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.config.CpuOptions;

/**
 * The optional CPU features the guest's vCPUs have: those asked for ({@link CpuOptions}) that the
 * host's KVM offers. Both are vCPU features at KVM_ARM_VCPU_INIT; SVE then needs
 * KVM_ARM_VCPU_FINALIZE on every vCPU before it first runs, and jkvm leaves the vector lengths at
 * KVM's default, every length the host supports, as QEMU's {@code -cpu host} does.
 *
 * <p>Without them a guest's kernel finds neither in its ID registers: no return-address signing
 * in the guest kernel and its programs (Debian's arm64 binaries are built for it), no SVE code in
 * its libraries, whereas a guest of the same host under QEMU has both.
 *
 * @param ptrAuth the vCPUs have pointer authentication (address and generic keys, which KVM grants together)
 * @param sve     the vCPUs have SVE
 */
public record GuestCpu(boolean ptrAuth, boolean sve) {
    private static final System.Logger LOG = System.getLogger(GuestCpu.class.getName());

    /**
     * What the guest gets of {@code asked}; a feature asked for that the host lacks is logged and left out.
     *
     * @param ptrAuthOffered KVM_CAP_ARM_PTRAUTH_ADDRESS and KVM_CAP_ARM_PTRAUTH_GENERIC
     * @param sveOffered     KVM_CAP_ARM_SVE
     */
    public static GuestCpu choose(CpuOptions asked, boolean ptrAuthOffered, boolean sveOffered) {
        if (asked.ptrAuth() && !ptrAuthOffered) {
            LOG.log(Level.INFO, "this host offers no pointer authentication to guests (KVM_CAP_ARM_PTRAUTH_ADDRESS"
                    + " and _GENERIC); the guest runs without it");
        }
        if (asked.sve() && !sveOffered) LOG.log(Level.INFO, "this host offers no SVE to guests (KVM_CAP_ARM_SVE); the guest runs without it");
        return new GuestCpu(asked.ptrAuth() && ptrAuthOffered, asked.sve() && sveOffered);
    }

    /** {@code init} with the vCPU features of what is on. */
    public Arm64.VcpuInit features(Arm64.VcpuInit init) {
        Arm64.VcpuInit with = init;
        if (ptrAuth) with = with.with(KvmArm64.KVM_ARM_VCPU_PTRAUTH_ADDRESS()).with(KvmArm64.KVM_ARM_VCPU_PTRAUTH_GENERIC());
        if (sve) with = with.with(KvmArm64.KVM_ARM_VCPU_SVE());
        return with;
    }

    /**
     * After a vCPU's KVM_ARM_VCPU_INIT, what its features need before it runs, through
     * {@code finalizer}: that vCPU's KVM_ARM_VCPU_FINALIZE ({@link VcpuFd#armVcpuFinalize}).
     */
    public void finish(IntConsumer finalizer) {
        if (sve) finalizer.accept(KvmArm64.KVM_ARM_VCPU_SVE());
    }

    /** The features on, by the names {@code --cpu} takes them ({@link CpuOptions#names}). */
    public List<String> names() {
        return new CpuOptions(ptrAuth, sve).names();
    }
}
