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
}
