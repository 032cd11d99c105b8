package org.jkvm.vmm.bus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Named, non-overlapping ranges {@code [base, base + size)} of a key space (guest addresses,
 * hypercall function ids), each owned by a {@code T}; a key is looked up to its owner. What
 * the {@link MmioBus} and the {@link HypercallBus} have in common, as crosvm has one bus for
 * I/O, MMIO and hypercall ranges. Ranges are registered while the VM is built, before the
 * vCPU threads that look keys up are started; lookups take no lock and allocate nothing (a
 * binary search over a sorted array, not a map of boxed keys), so the exit path stays free of
 * garbage even before the JIT has compiled it.
 *
 * @param <T> the owners
 */
public final class RangeBus<T> {
    /** How many misses the buses log before they only count them, so a guest cannot flood the log. */
    public static final int LOGGED_MISSES = 8;

    /**
     * One owned range.
     *
     * @param name  the owner's name, for messages
     * @param base  the first key
     * @param size  how many keys, positive
     * @param owner who answers for them
     * @param <T>   the owners
     */
    public record Range<T>(String name, long base, long size, T owner) {
        /** The key just past the range. */
        public long end() {
            return base + size;
        }

        /** Whether {@code key} lies in the range. */
        public boolean contains(long key) {
            return key >= base && key - base < size;
        }

        /** The owner and its keys in hex: {@code uart [0x9000000..0x9001000)}. */
        @Override
        public String toString() {
            return "%s [0x%x..0x%x)".formatted(name, base, end());
        }
    }

    private final String kind;
    private final AtomicLong misses = new AtomicLong();
    /** The ranges' bases and the ranges, in key order, replaced whole on each registration. */
    private volatile Lookup<T> lookup = new Lookup<>(new long[0], List.of());

    private record Lookup<T>(long[] bases, List<Range<T>> ranges) {}

    /** An empty bus; {@code kind} names its keys in messages ("MMIO", "SMCCC function id"). */
    public RangeBus(String kind) {
        this.kind = kind;
    }

    /**
     * Gives {@code [base, base + size)} to {@code owner}. An empty or wrapping range, or one that
     * overlaps a registered range, is refused with a message naming both owners and their keys.
     */
    public synchronized void register(String name, long base, long size, T owner) {
        if (size <= 0 || base + size < base) {
            throw new IllegalArgumentException("%s: an empty or wrapping %s range: base 0x%x size %d"
                    .formatted(name, kind, base, size));
        }
        Range<T> range = new Range<>(name, base, size, owner);
        Range<T> below = floor(lookup, range.end() - 1);
        if (below != null && below.end() > base) {
            throw new IllegalArgumentException("%s range %s overlaps %s".formatted(kind, range, below));
        }
        List<Range<T>> sorted = new ArrayList<>(lookup.ranges());
        sorted.add(range);
        sorted.sort(Comparator.comparingLong(Range::base));
        lookup = new Lookup<>(sorted.stream().mapToLong(Range::base).toArray(), List.copyOf(sorted));
    }

    /** The range holding {@code key}, or null when nobody owns it (see {@link #miss}). */
    public Range<T> find(long key) {
        Range<T> r = floor(lookup, key);
        return r != null && r.contains(key) ? r : null;
    }

    /** The range with the greatest base at or below {@code key}, or null. */
    private static <T> Range<T> floor(Lookup<T> l, long key) {
        int i = Arrays.binarySearch(l.bases(), key);
        if (i < 0) i = -i - 2;
        return i < 0 ? null : l.ranges().get(i);
    }

    /** Counts a key nobody answered for; returns the count so far, this one included. */
    public long miss() {
        return misses.incrementAndGet();
    }

    /** How many keys nobody answered for. */
    public long misses() {
        return misses.get();
    }

    /** Every range, in key order. */
    public List<Range<T>> ranges() {
        return lookup.ranges();
    }
}
