package org.jkvm.kvm;

/**
 * Why KVM_RUN returned, one constant per generated {@code KVM_EXIT_*} number.
 * {@link #INTR} is also what {@link VcpuFd#run} returns when the vCPU was kicked.
 */
public enum ExitReason {
    UNKNOWN, EXCEPTION, IO, HYPERCALL, DEBUG, HLT, MMIO, IRQ_WINDOW_OPEN, SHUTDOWN, FAIL_ENTRY,
    INTR, SET_TPR, TPR_ACCESS, S390_SIEIC, S390_RESET, DCR, NMI, INTERNAL_ERROR, OSI, PAPR_HCALL,
    S390_UCONTROL, WATCHDOG, S390_TSCH, EPR, SYSTEM_EVENT, S390_STSI, IOAPIC_EOI, HYPERV,
    ARM_NISV, X86_RDMSR, X86_WRMSR, DIRTY_RING_FULL, AP_RESET_HOLD, X86_BUS_LOCK, XEN,
    RISCV_SBI, RISCV_CSR, NOTIFY, LOONGARCH_IOCSR, MEMORY_FAULT;

    /**
     * The numbers, read on first use rather than while the constants are made: the
     * architecture's switch over this enum needs every constant to exist.
     */
    private static final class Numbers {
        static final int[] BY_ORDINAL;
        static final ExitReason[] BY_NUMBER;

        static {
            ExitReason[] all = values();
            BY_ORDINAL = new int[all.length];
            int max = 0;
            for (ExitReason r : all) {
                BY_ORDINAL[r.ordinal()] = HostUapi.exitReason(r);
                max = Math.max(max, BY_ORDINAL[r.ordinal()]);
            }
            BY_NUMBER = new ExitReason[max + 1];
            for (ExitReason r : all) BY_NUMBER[BY_ORDINAL[r.ordinal()]] = r;
        }
    }

    /** The KVM_EXIT_* number. */
    public int number() {
        return Numbers.BY_ORDINAL[ordinal()];
    }

    /** The reason for a KVM_EXIT_* number; null for a number this jkvm does not know. */
    public static ExitReason of(int number) {
        return number >= 0 && number < Numbers.BY_NUMBER.length ? Numbers.BY_NUMBER[number] : null;
    }
}
