package org.jkvm.vmm.bus;

/** The owner of a range of hypercall (on arm64: SMCCC function) ids on the {@link HypercallBus}. */
public interface HypercallHandler {
    /**
     * Answers a guest's call of {@code function} made on vCPU {@code vcpu}: reads the arguments
     * it needs from {@code call} and sets at least its result 0.
     */
    void call(int vcpu, long function, Hypercall call);
}
