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

    private static final ExitReason[] BY_NUMBER;

    static {
        int max = 0;
        for (ExitReason r : values()) max = Math.max(max, r.number);
        BY_NUMBER = new ExitReason[max + 1];
        for (ExitReason r : values()) BY_NUMBER[r.number] = r;
    }

    private final int number = (int) HostUapi.constant("KVM_EXIT_" + name());

    /** The KVM_EXIT_* number. */
    public int number() {
        return number;
    }

    /** The reason for a KVM_EXIT_* number; null for a number this jkvm does not know. */
    public static ExitReason of(int number) {
        return number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null;
    }
}
