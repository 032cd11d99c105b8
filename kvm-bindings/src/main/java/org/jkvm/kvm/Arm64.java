package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.kvm.sys.aarch64.kvm_smccc_filter;
import org.jkvm.kvm.sys.aarch64.kvm_vcpu_events;
import org.jkvm.kvm.sys.aarch64.kvm_vcpu_init;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/** The arm64-only ioctls behind {@link VmFd} and {@link VcpuFd}. */
public final class Arm64 {
    private Arm64() {}

    private static final int FEATURE_WORDS = (int) kvm_vcpu_init.features$layout().elementCount();

    /**
     * The argument of KVM_ARM_VCPU_INIT: a CPU target (KVM_ARM_TARGET_*) and a set of feature
     * bits (KVM_ARM_VCPU_* numbers, e.g. POWER_OFF, PSCI_0_2, PMU_V3).
     */
    public record VcpuInit(int target, BitSet features) {
        public VcpuInit {
            features = (BitSet) features.clone();
        }

        /** The same target with one more feature bit. */
        public VcpuInit with(int feature) {
            BitSet f = (BitSet) features.clone();
            f.set(feature);
            return new VcpuInit(target, f);
        }
    }

    private static void requireHost(String ioctl) {
        if (HostUapi.ARCH != Arch.AARCH64) {
            throw new UnsupportedOperationException(ioctl + " exists on arm64 hosts only; this is " + HostUapi.ARCH);
        }
    }

    static VcpuInit preferredTarget(VmFd vm) {
        requireHost("KVM_ARM_PREFERRED_TARGET");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment init = a.allocate(kvm_vcpu_init.layout());
            vm.ioctl("KVM_ARM_PREFERRED_TARGET", HostUapi.unsigned(KvmArm64.KVM_ARM_PREFERRED_TARGET()), init, null);
            BitSet features = new BitSet();
            for (int w = 0; w < FEATURE_WORDS; w++) {
                int word = kvm_vcpu_init.features(init, w);
                for (int b = 0; b < 32; b++) if ((word >>> b & 1) != 0) features.set(32 * w + b);
            }
            return new VcpuInit(kvm_vcpu_init.target(init), features);
        }
    }

    static void vcpuInit(VcpuFd vcpu, VcpuInit init) {
        requireHost("KVM_ARM_VCPU_INIT");
        if (init.features().length() > 32 * FEATURE_WORDS) {
            throw new IllegalArgumentException("KVM_ARM_VCPU_INIT takes features below " + 32 * FEATURE_WORDS);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = a.allocate(kvm_vcpu_init.layout());
            kvm_vcpu_init.target(s, init.target());
            long featuresAt = kvm_vcpu_init.features$offset();
            for (int f = init.features().nextSetBit(0); f >= 0; f = init.features().nextSetBit(f + 1)) {
                long at = featuresAt + 4L * (f / 32);
                s.set(JAVA_INT, at, s.get(JAVA_INT, at) | 1 << (f % 32));
            }
            vcpu.ioctl("KVM_ARM_VCPU_INIT", HostUapi.unsigned(KvmArm64.KVM_ARM_VCPU_INIT()), s,
                    "target=" + init.target() + ", features=" + init.features());
        }
    }

    static void vcpuFinalize(VcpuFd vcpu, int feature) {
        requireHost("KVM_ARM_VCPU_FINALIZE");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment what = a.allocate(JAVA_INT);
            what.set(JAVA_INT, 0, feature);
            vcpu.ioctl("KVM_ARM_VCPU_FINALIZE", HostUapi.unsigned(KvmArm64.KVM_ARM_VCPU_FINALIZE()), what,
                    "feature=" + feature);
        }
    }

    /**
     * What KVM does with a range of SMCCC function ids a guest calls (HVC or SMC): answer them
     * itself, deny them, or forward them to the VMM as KVM_EXIT_HYPERCALL.
     */
    public enum SmcccAction {
        HANDLE(KvmArm64.KVM_SMCCC_FILTER_HANDLE()),
        DENY(KvmArm64.KVM_SMCCC_FILTER_DENY()),
        FORWARD_TO_USER(KvmArm64.KVM_SMCCC_FILTER_FWD_TO_USER());

        private final int number;

        SmcccAction(int number) {
            this.number = number;
        }
    }

    static void setSmcccFilter(VmFd vm, long firstFunction, int count, SmcccAction action) {
        requireHost("KVM_ARM_VM_SMCCC_FILTER");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment f = a.allocate(kvm_smccc_filter.layout());
            kvm_smccc_filter.base(f, (int) firstFunction);
            kvm_smccc_filter.nr_functions(f, count);
            kvm_smccc_filter.action(f, (byte) action.number);
            vm.setDeviceAttr(KvmArm64.KVM_ARM_VM_SMCCC_CTRL(), KvmArm64.KVM_ARM_VM_SMCCC_FILTER(), f);
        }
    }

    static void injectExternalDataAbort(VcpuFd vcpu) {
        requireHost("KVM_SET_VCPU_EVENTS");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment events = a.allocate(kvm_vcpu_events.layout());
            kvm_vcpu_events.exception.ext_dabt_pending(kvm_vcpu_events.exception(events), (byte) 1);
            vcpu.ioctl("KVM_SET_VCPU_EVENTS", HostUapi.unsigned(KvmArm64.KVM_SET_VCPU_EVENTS()), events,
                    "ext_dabt_pending=1");
        }
    }
}
