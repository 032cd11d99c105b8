package org.jkvm.vmm.vcpu;

/**
 * Told, on a vCPU's own thread, when the vCPU starts and stops, when a signal interrupts KVM_RUN,
 * and, where it asks ({@link #followsEntries}), before each entry into KVM_RUN: what a device
 * needs that follows the vCPU threads (the userspace PV-lock preemption tracker, the preemptor
 * watch, the guest profiler). Called on the exit path: implementations must be quick and must
 * not block.
 */
public interface VcpuRunListener {
    /** The vCPU's thread is bound and about to run the guest for the first time. */
    void started(int vcpu, int tid);

    /** The thread is about to enter KVM_RUN; called only where {@link #followsEntries} says so. */
    default void entering(int vcpu) {}

    /**
     * Whether {@link #entering} is to be called: once per exit, so a listener that does not need
     * it (most) costs the exit path nothing.
     */
    default boolean followsEntries() {
        return false;
    }

    /** The vCPU's thread is done with the guest. */
    void stopped(int vcpu);

    /**
     * KVM_RUN returned because a signal reached the thread (a kick, or a timer the listener
     * set up in {@link #started}), and the machine is not stopping.
     */
    default void interrupted(int vcpu) {}

    /** Tells {@code first}, then {@code second} (each of an entry only where it follows them). */
    static VcpuRunListener both(VcpuRunListener first, VcpuRunListener second) {
        boolean firstEntries = first.followsEntries();
        boolean secondEntries = second.followsEntries();
        return new VcpuRunListener() {
            @Override
            public void started(int vcpu, int tid) {
                first.started(vcpu, tid);
                second.started(vcpu, tid);
            }

            @Override
            public void entering(int vcpu) {
                if (firstEntries) first.entering(vcpu);
                if (secondEntries) second.entering(vcpu);
            }

            @Override
            public boolean followsEntries() {
                return firstEntries || secondEntries;
            }

            @Override
            public void stopped(int vcpu) {
                first.stopped(vcpu);
                second.stopped(vcpu);
            }

            @Override
            public void interrupted(int vcpu) {
                first.interrupted(vcpu);
                second.interrupted(vcpu);
            }
        };
    }
}
