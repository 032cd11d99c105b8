package org.jkvm.vmm.vcpu;

import org.jkvm.kvm.VcpuFd;

/** How an architecture passes hypercall arguments and results (arm64: x1.. in, x0..x3 out). */
public interface HypercallRegisters {
    /** The call's arguments. */
    long[] arguments(VcpuFd vcpu);

    /** Hands {@code results} back to the guest. */
    void returnValues(VcpuFd vcpu, long[] results);
}
