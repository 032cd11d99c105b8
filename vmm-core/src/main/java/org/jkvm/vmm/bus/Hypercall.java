package org.jkvm.vmm.bus;

/**
 * The guest's hypercall being answered: its arguments, read from the vCPU only when a handler
 * asks for one, and its results, handed to the vCPU as they are set. Each vCPU reuses one for
 * all its calls, so answering allocates nothing; it is valid only during the handler's call.
 */
public interface Hypercall {
    /** Argument {@code index}: 0 is the first after the function id (on arm64 x1). */
    long argument(int index);

    /** Sets result {@code index}: 0 is the first (on arm64 x0), at most 3. */
    void result(int index, long value);
}
