package org.jkvm.vmm.profile;

import java.util.Arrays;

/**
 * One vCPU's samples, written only by its thread: each sample's PC, exception level and
 * weight (how many periods of CPU time it stands for), and what sampling cost.
 */
public final class VcpuSamples {
    /** The "exception level" of periods the vCPU thread spent in jkvm, handling exits, not in the guest. */
    public static final int VMM = -1;

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

    /** Records a sample: the PC, the exception level, how many periods it stands for, what taking it cost. */
    public void add(long pc, int el, int w, long tookNanos) {
        add(pc, el, w, tookNanos, callers, 0);
    }

    /** {@link #add(long, int, int, long)} with the first {@code n} of {@code returns}: return addresses, innermost first. */
    public void add(long pc, int el, int w, long tookNanos, long[] returns, int n) {
        if (callersUsed + n > callers.length) callers = Arrays.copyOf(callers, Math.max(callers.length * 2, callersUsed + n));
        System.arraycopy(returns, 0, callers, callersUsed, n);
        if (count == pcs.length) {
            pcs = Arrays.copyOf(pcs, count * 2);
            els = Arrays.copyOf(els, count * 2);
            weights = Arrays.copyOf(weights, count * 2);
            took = Arrays.copyOf(took, count * 2);
            firstCaller = Arrays.copyOf(firstCaller, count * 2);
            callerCount = Arrays.copyOf(callerCount, count * 2);
        }
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
}
