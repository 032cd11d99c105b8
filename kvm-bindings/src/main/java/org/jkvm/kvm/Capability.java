package org.jkvm.kvm;

/**
 * The KVM capabilities jkvm looks at, each bound to its generated {@code KVM_CAP_*} number.
 * Ask {@link Kvm#check} (system-wide) or {@link VmFd#check} (for one VM, which is what counts
 * on arm64 where some answers depend on the VM).
 */
public enum Capability {
    NR_VCPUS, MAX_VCPUS, MAX_VCPU_ID, NR_MEMSLOTS, USER_MEMORY, READONLY_MEM, SYNC_MMU,
    IMMEDIATE_EXIT, COALESCED_MMIO, IRQCHIP, IRQFD, IOEVENTFD, SIGNAL_MSI, ONE_REG, DEVICE_CTRL,
    ENABLE_CAP, STEAL_TIME, SYSTEM_EVENT_DATA, BINARY_STATS_FD,
    // x86_64
    EXT_CPUID, SET_TSS_ADDR, HLT,
    // arm64
    ARM_VM_IPA_SIZE, ARM_PSCI, ARM_PSCI_0_2, ARM_PMU_V3, ARM_SVE, ARM_PTRAUTH_ADDRESS,
    ARM_PTRAUTH_GENERIC, ARM_USER_IRQ, ARM_NISV_TO_USER, ARM_INJECT_EXT_DABT, ARM_SYSTEM_SUSPEND,
    ARM_EL1_32BIT, ARM_MTE, VCPU_ATTRIBUTES;

    /**
     * The numbers by ordinal, read on first use rather than while the constants are made: the
     * architecture's switch over this enum needs every constant to exist.
     */
    private static final class Numbers {
        static final int[] BY_ORDINAL;

        static {
            Capability[] all = values();
            BY_ORDINAL = new int[all.length];
            for (Capability c : all) BY_ORDINAL[c.ordinal()] = HostUapi.capability(c);
        }
    }

    /** The capability's KVM_CAP_* number. */
    public int number() {
        return Numbers.BY_ORDINAL[ordinal()];
    }
}
