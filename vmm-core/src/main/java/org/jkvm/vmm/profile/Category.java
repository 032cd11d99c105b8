package org.jkvm.vmm.profile;

/**
 * What a sample's vCPU was doing, in the terms the PV-lock question needs (see
 * {@link CategoryRules} for which frames make which).
 */
public enum Category {
    /** Optimistic spinning on a lock owner: the only place a 6.12 guest asks {@code vcpu_is_preempted()}. */
    OWNER_SPINNING("owner-spinning"),
    /** The queued spinlock and queued rwlock slow paths: spinning PV lock does not touch on arm64. */
    SPINLOCK_SLOWPATH("spinlock-slowpath"),
    /** The idle loop (on CPU: halt polling after WFI counts here; halted time off CPU is not sampled). */
    IDLE("idle"),
    /** EL0: the guest's user space. */
    USER("user"),
    /** The vCPU thread in jkvm, handling an exit: not guest time. */
    JKVM("jkvm"),
    /** Everything else, unsymbolised kernel PCs included. */
    OTHER("other");

    private final String label;

    Category(String label) {
        this.label = label;
    }

    /** Its name in the text, CSV and JSON outputs. */
    public String label() {
        return label;
    }
}
