package org.jkvm.pvlock;

import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.bus.Hypercall;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.HypercallHandler;

/**
 * Answers the two SMCCC calls the SMCCC filter forwards to jkvm: the vendor-hyp features call
 * (the kernel's own bitmap plus the PV-lock bit) and the PV-lock call (the calling vCPU's
 * structure address; in userspace mode the first one starts the preemption tracker). Arguments
 * are never read (no register access, and no argument can confuse it).
 */
final class PvLockCalls implements HypercallHandler {
    static final long FEATURES = KvmArm64.ARM_SMCCC_VENDOR_HYP_KVM_FEATURES_FUNC_ID();
    static final long PV_LOCK = KvmArm64.ARM_SMCCC_VENDOR_HYP_KVM_PV_LOCK_FUNC_ID();
    static final long PV_LOCK_BIT = 1L << KvmArm64.ARM_SMCCC_KVM_FUNC_PV_LOCK();

    private final long kernelBitmap;
    private final PvLockRegion region;
    private final PvLockStats stats;
    private final UserspacePreemptionTracker tracker;

    /** {@code tracker}: told of the PV-lock calls in userspace mode, else null. */
    PvLockCalls(long kernelBitmap, PvLockRegion region, PvLockStats stats, UserspacePreemptionTracker tracker) {
        this.kernelBitmap = kernelBitmap;
        this.region = region;
        this.stats = stats;
        this.tracker = tracker;
    }

    @Override
    public void call(int vcpu, long function, Hypercall call) {
        if (function == FEATURES) {
            stats.featureCall(vcpu);
            call.result(0, kernelBitmap | PV_LOCK_BIT);
        } else if (function == PV_LOCK) {
            stats.pvLockCall(vcpu);
            if (tracker != null) tracker.guestAsked(vcpu);
            call.result(0, region.address(vcpu));
        } else {
            call.result(0, HypercallBus.NOT_SUPPORTED);
        }
    }
}
