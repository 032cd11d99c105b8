package org.jkvm.vmm.bus;

import java.lang.System.Logger.Level;

/**
 * Hypercall (SMCCC function) id ranges owned by devices, a {@link RangeBus} as the
 * {@link MmioBus} is for addresses. A call nobody owns gets {@link #NOT_SUPPORTED}, the SMCCC
 * answer to an unknown function: the guest is told no and the VMM carries on.
 */
public final class HypercallBus {
    private static final System.Logger LOG = System.getLogger(HypercallBus.class.getName());

    /** SMCCC's NOT_SUPPORTED, the answer to a function nobody owns. */
    public static final long NOT_SUPPORTED = -1L;

    private final RangeBus<HypercallHandler> ranges = new RangeBus<>("SMCCC function id");

    /** Gives the ids {@code first .. first + count - 1} to {@code handler}; overlaps are refused. */
    public void register(String name, long first, int count, HypercallHandler handler) {
        ranges.register(name, first, count, handler);
    }

    /** Every registered range as {first, count} pairs, in id order. */
    public long[][] ranges() {
        return ranges.ranges().stream().map(r -> new long[] {r.base(), r.size()}).toArray(long[][]::new);
    }

    /** Dispatches a call; unknown ids get result 0 {@link #NOT_SUPPORTED}. */
    public void call(int vcpu, long function, Hypercall call) {
        RangeBus.Range<HypercallHandler> r = ranges.find(function);
        if (r != null) {
            r.owner().call(vcpu, function, call);
            return;
        }
        if (ranges.miss() <= RangeBus.LOGGED_MISSES) {
            LOG.log(Level.INFO, "vcpu {0}: unknown hypercall 0x{1}, answered NOT_SUPPORTED", vcpu, Long.toHexString(function));
        }
        call.result(0, NOT_SUPPORTED);
    }

    /** How many calls no device owned. */
    public long unknownCalls() {
        return ranges.misses();
    }
}
