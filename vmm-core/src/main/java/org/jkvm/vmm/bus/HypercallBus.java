package org.jkvm.vmm.bus;

import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hypercall (SMCCC function) id ranges owned by devices, as the {@link MmioBus} owns address
 * ranges. A call nobody owns gets {@link #NOT_SUPPORTED}, the SMCCC answer to an unknown
 * function: the guest is told no and the VMM carries on.
 */
public final class HypercallBus {
    private static final System.Logger LOG = System.getLogger(HypercallBus.class.getName());
    private static final int LOGGED_UNKNOWN = 8;

    /** SMCCC's NOT_SUPPORTED (-1) as the only return value. */
    public static final long[] NOT_SUPPORTED = {-1L};

    private record Range(long first, int count, String name, HypercallHandler handler) {}

    private final TreeMap<Long, Range> ranges = new TreeMap<>();
    private final AtomicLong unknown = new AtomicLong();

    /** Gives the ids {@code first .. first + count - 1} to {@code handler}. */
    public synchronized void register(String name, long first, int count, HypercallHandler handler) {
        if (count <= 0) throw new IllegalArgumentException(name + ": a range of " + count + " function ids");
        Map.Entry<Long, Range> below = ranges.floorEntry(first + count - 1);
        if (below != null && below.getValue().first() + below.getValue().count() > first) {
            throw new IllegalArgumentException(name + " overlaps " + below.getValue().name());
        }
        ranges.put(first, new Range(first, count, name, handler));
    }

    /** Every registered range as {first, count} pairs, e.g. to forward them from KVM. */
    public synchronized long[][] ranges() {
        return ranges.values().stream().map(r -> new long[] {r.first(), r.count()}).toArray(long[][]::new);
    }

    /** Dispatches a call; unknown ids answer {@link #NOT_SUPPORTED}. */
    public long[] call(int vcpu, long function, long[] args) {
        Map.Entry<Long, Range> e = ranges.floorEntry(function);
        if (e != null && function - e.getValue().first() < e.getValue().count()) {
            return e.getValue().handler().call(vcpu, function, args);
        }
        long n = unknown.incrementAndGet();
        if (n <= LOGGED_UNKNOWN) {
            LOG.log(Level.INFO, "vcpu {0}: unknown hypercall 0x{1}, answered NOT_SUPPORTED", vcpu, Long.toHexString(function));
        }
        return NOT_SUPPORTED;
    }

    /** How many calls no device owned. */
    public long unknownCalls() {
        return unknown.get();
    }
}
