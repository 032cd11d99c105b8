package org.jkvm.pvlock;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.jkvm.kvm.sys.aarch64.pvlock_vcpu_state;
import org.jkvm.vmm.memory.MemoryRegion;

/**
 * The guest-visible PV-lock structures: one {@code struct pvlock_vcpu_state} (64 bytes, 64-byte
 * aligned) per vCPU, in a reserved region of its own outside RAM. The guest reads
 * {@code preempted} while jkvm (userspace mode) or the host kernel writes it.
 */
public final class PvLockRegion {
    private static final long STRUCT = pvlock_vcpu_state.layout().byteSize();
    private static final long PREEMPTED = pvlock_vcpu_state.preempted$offset();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemoryRegion region;
    private final int vcpus;

    PvLockRegion(MemoryRegion region, int vcpus) {
        if (region.size() < vcpus * STRUCT) throw new IllegalArgumentException(region + " is too small for " + vcpus + " vCPUs");
        this.region = region;
        this.vcpus = vcpus;
    }

    /** Bytes per vCPU. */
    public static long structSize() {
        return STRUCT;
    }

    /** The memory region. */
    public MemoryRegion region() {
        return region;
    }

    /** The guest physical address of {@code vcpu}'s structure. */
    public long address(int vcpu) {
        checkVcpu(vcpu);
        return region.gpa() + STRUCT * vcpu;
    }

    /** {@code vcpu}'s {@code preempted} as the guest sees it. */
    public long preempted(int vcpu) {
        checkVcpu(vcpu);
        return (long) LONG.getVolatile(segment(), STRUCT * vcpu + PREEMPTED);
    }

    /** Sets {@code vcpu}'s {@code preempted} (little endian, like the guest expects on arm64). */
    void setPreempted(int vcpu, boolean preempted) {
        LONG.setRelease(segment(), STRUCT * vcpu + PREEMPTED, preempted ? 1L : 0L);
    }

    private MemorySegment segment() {
        return region.host().segment();
    }

    private void checkVcpu(int vcpu) {
        if (vcpu < 0 || vcpu >= vcpus) throw new IndexOutOfBoundsException("vcpu " + vcpu + " of " + vcpus);
    }
}
