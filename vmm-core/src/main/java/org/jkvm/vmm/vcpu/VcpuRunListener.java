package org.jkvm.vmm.vcpu;

/**
 * Told, on a vCPU's own thread, when the vCPU starts and as it enters and leaves KVM_RUN: what
 * a device needs that tracks whether each vCPU is running (the userspace PV-lock preemption
 * tracker). Called on the exit path: implementations must be quick and must not block.
 */
public interface VcpuRunListener {
    /** The vCPU's thread is bound and about to run the guest for the first time. */
    void started(int vcpu, int tid);

    /** The thread is about to enter KVM_RUN. */
    void entering(int vcpu);

    /** The thread has returned from KVM_RUN. */
    void left(int vcpu);

    /** The vCPU's thread is done with the guest. */
    void stopped(int vcpu);

    /**
     * KVM_RUN returned because a signal reached the thread (a kick, or a timer the listener
     * set up in {@link #started}), and the machine is not stopping.
     */
    default void interrupted(int vcpu) {}

    /** Tells {@code first}, then {@code second}. */
    static VcpuRunListener both(VcpuRunListener first, VcpuRunListener second) {
        return new VcpuRunListener() {
            @Override
            public void started(int vcpu, int tid) {
                first.started(vcpu, tid);
                second.started(vcpu, tid);
            }

            @Override
            public void entering(int vcpu) {
                first.entering(vcpu);
                second.entering(vcpu);
            }

            @Override
            public void left(int vcpu) {
                first.left(vcpu);
                second.left(vcpu);
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
