package org.jkvm.vmm.vcpu;

import org.jkvm.kvm.VcpuFd;

/** Where an architecture passes hypercall arguments and results (arm64: x1.. in, x0..x3 out). */
public interface HypercallRegisters {
    /** Argument {@code index} of the call (0 is the first after the function id). */
    long argument(VcpuFd vcpu, int index);

    /** Sets result {@code index} of the call (0 is the first). */
    void result(VcpuFd vcpu, int index, long value);
}
