package org.jkvm.pvlock;

import java.util.Arrays;

import org.jkvm.vmm.bus.Hypercall;
import org.jkvm.vmm.bus.HypercallBus;

/**
 * A guest's hypercall for the PV-lock calls' tests: the PV-lock handlers read no argument (a read
 * fails the test), and the results they set are kept.
 */
final class UnreadArguments implements Hypercall {
    private final long[] results = new long[4];
    private int set;

    /** The results of vCPU {@code vcpu}'s call of {@code function} on {@code bus}. */
    static long[] answer(HypercallBus bus, int vcpu, long function) {
        UnreadArguments call = new UnreadArguments();
        bus.call(vcpu, function, call);
        return Arrays.copyOf(call.results, call.set);
    }

    @Override
    public long argument(int index) {
        throw new AssertionError("the PV-lock calls read argument " + index);
    }

    @Override
    public void result(int index, long value) {
        results[index] = value;
        set = Math.max(set, index + 1);
    }
}
