package org.jkvm.vmm.profile;

import java.util.Arrays;

/**
 * One vCPU's samples, written only by its thread: each sample's time, PC, exception level and
 * weight (how many periods of CPU time it stands for), and what sampling cost.
 */
public final class VcpuSamples {
    /** The "exception level" of periods the vCPU thread spent in jkvm, handling exits, not in the guest. */
    public static final int VMM = -1;

    private long[] ats = new long[1024];
    private long[] pcs = new long[1024];
    private byte[] els = new byte[1024];
    private int[] weights = new int[1024];
    private long[] took = new long[1024];
    private int[] firstCaller = new int[1024];
    private int[] callerCount = new int[1024];
    private long[] callers = new long[4096];
    private int callersUsed;
    private int count;
    private long weight;
    private long cpuNanos;

    /**
     * Records a sample: when it was taken ({@link System#nanoTime}), the PC, the exception level, how
     * many periods it stands for, what taking it cost.
     */
    public void add(long atNanos, long pc, int el, int w, long tookNanos) {
        add(atNanos, pc, el, w, tookNanos, callers, 0);
    }

    /** {@link #add(long, long, int, int, long)} with the first {@code n} of {@code returns}: return addresses, innermost first. */
    public void add(long atNanos, long pc, int el, int w, long tookNanos, long[] returns, int n) {
        if (callersUsed + n > callers.length) callers = Arrays.copyOf(callers, Math.max(callers.length * 2, callersUsed + n));
        System.arraycopy(returns, 0, callers, callersUsed, n);
        if (count == pcs.length) {
            ats = Arrays.copyOf(ats, count * 2);
            pcs = Arrays.copyOf(pcs, count * 2);
            els = Arrays.copyOf(els, count * 2);
            weights = Arrays.copyOf(weights, count * 2);
            took = Arrays.copyOf(took, count * 2);
            firstCaller = Arrays.copyOf(firstCaller, count * 2);
            callerCount = Arrays.copyOf(callerCount, count * 2);
        }
        ats[count] = atNanos;
        pcs[count] = pc;
        els[count] = (byte) el;
        weights[count] = w;
        took[count] = tookNanos;
        firstCaller[count] = callersUsed;
        callerCount[count] = n;
        callersUsed += n;
        count++;
        weight += w;
    }

    /** Records the thread's CPU time while it was watched. */
    public void ranFor(long nanos) {
        cpuNanos = nanos;
    }

    /** Samples taken. */
    public int count() {
        return count;
    }

    /** Sample {@code i}'s guest PC. */
    public long pc(int i) {
        return pcs[i];
    }

    /** Sample {@code i}'s exception level (0: user), or {@link #VMM}. */
    public int el(int i) {
        return els[i];
    }

    /** How many periods of CPU time sample {@code i} stands for. */
    public int weight(int i) {
        return weights[i];
    }

    /** How many return addresses were found above sample {@code i}'s PC. */
    public int depth(int i) {
        return callerCount[i];
    }

    /** Sample {@code i}'s {@code k}-th return address, innermost first. */
    public long caller(int i, int k) {
        return callers[firstCaller[i] + k];
    }

    /** What taking sample {@code i} cost the vCPU's thread, in nanoseconds. */
    public long took(int i) {
        return took[i];
    }

    /** Samples, each counted with its weight. */
    public long totalWeight() {
        return weight;
    }

    /** The thread's CPU time while the profiler watched it. */
    public long cpuNanos() {
        return cpuNanos;
    }

    /**
     * The samples taken from {@code fromNanos} (included) to {@code toNanos} (not), their callers
     * with them; as its CPU time, what those samples stand for at {@code periodNanos} a period.
     */
    public VcpuSamples between(long fromNanos, long toNanos, long periodNanos) {
        VcpuSamples w = new VcpuSamples();
        long[] returns = new long[0];
        for (int i = 0; i < count; i++) {
            if (ats[i] < fromNanos || ats[i] >= toNanos) continue;
            int n = callerCount[i];
            if (returns.length < n) returns = new long[n];
            System.arraycopy(callers, firstCaller[i], returns, 0, n);
            w.add(ats[i], pcs[i], els[i], weights[i], took[i], returns, n);
        }
        w.ranFor(w.weight * periodNanos);
        return w;
    }
}
