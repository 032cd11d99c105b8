package org.jkvm.vmm.vcpu;

import org.jkvm.kvm.ExitReason;
import org.jkvm.vmm.bus.Hypercall;

/**
 * One vCPU as its {@link VcpuLoop} sees it: enter the guest until it exits, then read that
 * exit's fields and hand back what the guest gets. The getters read the last exit in place
 * (the real one reads the mapped {@code kvm_run}), so dispatching an exit allocates nothing;
 * a test can stand in a scripted vCPU and run the loop without /dev/kvm.
 */
public interface VcpuExits {
    /** The vCPU id. */
    int id();

    /** Makes the calling thread the one that runs this vCPU; called once, before {@link #run}. */
    void bindToCurrentThread();

    /** Runs the guest until its next exit and says why it stopped ({@link ExitReason#INTR} when kicked). */
    ExitReason run();

    /** MMIO: true for a guest write. */
    boolean mmioIsWrite();

    /** MMIO: the guest physical address accessed. */
    long mmioAddress();

    /** MMIO: the access width in bytes. */
    int mmioLength();

    /** MMIO: the value the guest wrote. */
    long mmioValue();

    /** MMIO: the value the guest's read gets. */
    void setMmioValue(long value);

    /** Hypercall: the function number (on arm64 the SMCCC function id). */
    long hypercallNr();

    /**
     * Hypercall: its arguments and results, where the architecture passes them; the same
     * object for every call of this vCPU.
     */
    Hypercall hypercall();

    /** System event: its KVM_SYSTEM_EVENT_* type. */
    int systemEventType();

    /** Failed entry: the hardware's reason. */
    long failEntryReason();

    /** Internal error: the KVM_INTERNAL_ERROR_* sub-error. */
    int internalSuberror();

    /** arm64 NISV: the faulting IPA of a data abort KVM could not decode. */
    long armNisvFaultIpa();

    /** arm64 NISV: that abort's syndrome (ESR ISS). */
    long armNisvEsrIss();

    /** arm64 NISV: the guest takes an external data abort at that access when it runs again. */
    void injectDataAbort();
}
