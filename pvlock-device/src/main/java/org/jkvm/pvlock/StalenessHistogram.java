package org.jkvm.pvlock;

import java.util.Collection;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How stale the {@code preempted} flag was: for each scheduler switch, the time from the switch
 * to jkvm's write of the flag, in power-of-two buckets of nanoseconds (bucket b holds
 * [2^b, 2^(b+1)) ns). Written by one tracker thread, read at the end.
 */
public final class StalenessHistogram {
    private static final int BUCKETS = 40;

    private final AtomicLongArray buckets = new AtomicLongArray(BUCKETS);
    private volatile long count;
    private volatile long sum;
    private volatile long max;

    void record(long nanos) {
        long n = Math.max(0, nanos);
        int b = Math.min(BUCKETS - 1, 63 - Long.numberOfLeadingZeros(Math.max(1, n)));
        buckets.incrementAndGet(b);
        count++;
        sum += n;
        if (n > max) max = n;
    }

    /**
     * One histogram of every switch {@code parts} measured (the trackers of a run's VMs, say).
     * Read the parts once their trackers have stopped.
     */
    public static StalenessHistogram merged(Collection<StalenessHistogram> parts) {
        StalenessHistogram m = new StalenessHistogram();
        long count = 0, sum = 0, max = 0;
        for (StalenessHistogram p : parts) {
            for (int b = 0; b < BUCKETS; b++) m.buckets.addAndGet(b, p.buckets.get(b));
            count += p.count;
            sum += p.sum;
            max = Math.max(max, p.max);
        }
        m.count = count;
        m.sum = sum;
        m.max = max;
        return m;
    }

    /** Switches measured. */
    public long count() {
        return count;
    }

    /** Mean staleness in nanoseconds, 0 when nothing was measured. */
    public long meanNanos() {
        long c = count;
        return c == 0 ? 0 : sum / c;
    }

    /** The largest staleness seen, in nanoseconds. */
    public long maxNanos() {
        return max;
    }

    /** An upper bound of the 99th percentile, in nanoseconds ({@link #quantileNanos}). */
    public long p99BoundNanos() {
        return quantileNanos(0.99);
    }

    /** An upper bound of the {@code q} quantile (0..1), in nanoseconds: the top of its bucket. */
    public long quantileNanos(double q) {
        long c = count;
        if (c == 0) return 0;
        long want = (long) Math.ceil(q * c);
        long seen = 0;
        for (int b = 0; b < BUCKETS; b++) {
            seen += buckets.get(b);
            if (seen >= want) return Math.min(max, (1L << (b + 1)) - 1);
        }
        return max;
    }
}
