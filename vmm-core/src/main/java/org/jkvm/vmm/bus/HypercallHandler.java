package org.jkvm.vmm.bus;

/** The owner of a range of hypercall (on arm64: SMCCC function) ids on the {@link HypercallBus}. */
public interface HypercallHandler {
    /**
     * Answers a guest's call of {@code function} with arguments {@code args} (x1.. on arm64)
     * made on vCPU {@code vcpu}: returns the values for x0, x1, ... (at most four).
     */
    long[] call(int vcpu, long function, long[] args);
}
