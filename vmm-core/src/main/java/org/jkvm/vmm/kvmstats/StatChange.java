package org.jkvm.vmm.kvmstats;

import java.util.Arrays;

import org.jkvm.kvm.StatDescriptor;

/**
 * What one KVM statistic came to over a window: for counters and histograms what happened in
 * it (end minus start), for instant values and peaks the value at its end, as KVM keeps them.
 *
 * @param descriptor the statistic
 * @param values     one value, or a histogram's buckets
 */
public record StatChange(StatDescriptor descriptor, long[] values) {
    public StatChange {
        values = values.clone();
    }

    /** Whether it is a histogram (its values are buckets). */
    public boolean histogram() {
        return descriptor.type() == StatDescriptor.Type.LINEAR_HIST || descriptor.type() == StatDescriptor.Type.LOG_HIST;
    }

    /** The single value of a counter, instant value or peak; a histogram's total count. */
    public long value() {
        return histogram() ? Arrays.stream(values).sum() : values[0];
    }

    /** A histogram's buckets up to the last non-empty one. */
    public long[] buckets() {
        int end = values.length;
        while (end > 0 && values[end - 1] == 0) end--;
        return Arrays.copyOf(values, end);
    }

    /** Whether nothing happened: a zero value, or a histogram with every bucket empty. */
    public boolean isZero() {
        return histogram() ? buckets().length == 0 : values[0] == 0;
    }

    /** What reports show: the single value as a {@link Long}, a histogram's {@link #buckets} as a list. */
    public Object reported() {
        return histogram() ? Arrays.stream(buckets()).boxed().toList() : values[0];
    }

    /** The change of {@code d} between two readings of its file's data block. */
    static StatChange between(StatDescriptor d, long[] start, long[] end) {
        long[] v = new long[d.size()];
        for (int i = 0; i < v.length; i++) {
            int at = d.index() + i;
            v[i] = d.type().accumulates() ? end[at] - start[at] : end[at];
        }
        return new StatChange(d, v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StatChange c && descriptor.equals(c.descriptor) && Arrays.equals(values, c.values);
    }

    @Override
    public int hashCode() {
        return 31 * descriptor.hashCode() + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return descriptor.name() + "=" + (histogram() ? Arrays.toString(buckets()) : Long.toString(values[0]));
    }
}
