package org.jkvm.vmm.bus;

import java.util.Arrays;

/**
 * A hypercall given as an array of arguments (missing ones read 0, as unset registers), with
 * the results its handler set; setting a result allocates nothing, so one can be reused.
 */
public final class ArrayHypercall implements Hypercall {
    private final long[] arguments;
    private final long[] results = new long[4];
    private int set;

    public ArrayHypercall(long... arguments) {
        this.arguments = arguments.clone();
    }

    /** {@code function}'s results from {@code bus} when vCPU {@code vcpu} calls it with {@code arguments}. */
    public static long[] answer(HypercallBus bus, int vcpu, long function, long... arguments) {
        ArrayHypercall call = new ArrayHypercall(arguments);
        bus.call(vcpu, function, call);
        return call.results();
    }

    @Override
    public long argument(int index) {
        return index < arguments.length ? arguments[index] : 0;
    }

    @Override
    public void result(int index, long value) {
        results[index] = value;
        set = Math.max(set, index + 1);
    }

    /** The results set, up to the highest one set. */
    public long[] results() {
        return Arrays.copyOf(results, set);
    }
}
