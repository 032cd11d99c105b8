package org.jkvm.pvlock;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-vCPU PV-lock counters: the guest's feature and PV-lock calls answered by jkvm; in
 * userspace mode the scheduler's switch-outs of each vCPU thread by kind (preemptions, which
 * set {@code preempted}, and voluntary ones such as a halt, which do not), the
 * {@code preempted} changes jkvm wrote and how late those writes were; in kernel mode what
 * the sampler saw the host kernel write.
 */
public final class PvLockStats {
    private final AtomicLongArray featureCalls;
    private final AtomicLongArray pvLockCalls;
    private final AtomicLongArray preemptedSet;
    private final AtomicLongArray preemptedCleared;
    private final AtomicLongArray changesSeen;
    private final AtomicLongArray preemptions;
    private final AtomicLongArray voluntarySwitchOuts;
    private final AtomicLongArray preemptedNanos;
    private final AtomicLongArray samples;
    private final AtomicLongArray samplesPreempted;
    private final AtomicLongArray timedSince;
    private final StalenessHistogram staleness = new StalenessHistogram();
    private final long startNanos = System.nanoTime();
    private volatile long endNanos = -1;
    private volatile long trackingStartNanos = -1;
    private volatile long trackerWakeups;
    private volatile long switchRecordsLost;
    private volatile long fullRings;
    private volatile boolean timed;

    PvLockStats(int vcpus) {
        featureCalls = new AtomicLongArray(vcpus);
        pvLockCalls = new AtomicLongArray(vcpus);
        preemptedSet = new AtomicLongArray(vcpus);
        preemptedCleared = new AtomicLongArray(vcpus);
        changesSeen = new AtomicLongArray(vcpus);
        preemptions = new AtomicLongArray(vcpus);
        voluntarySwitchOuts = new AtomicLongArray(vcpus);
        preemptedNanos = new AtomicLongArray(vcpus);
        samples = new AtomicLongArray(vcpus);
        samplesPreempted = new AtomicLongArray(vcpus);
        timedSince = new AtomicLongArray(vcpus);
        for (int v = 0; v < vcpus; v++) timedSince.set(v, -1);
    }

    void preemption(int vcpu) {
        preemptions.incrementAndGet(vcpu);
    }

    void voluntarySwitchOut(int vcpu) {
        voluntarySwitchOuts.incrementAndGet(vcpu);
    }

    /** Userspace mode: jkvm writes the flags and so times them ({@link #preemptedShare} is exact). */
    void timeFlags() {
        timed = true;
    }

    /** Userspace mode: {@code vcpu}'s thread has started; its share of flagged time is timed from now. */
    void vcpuStarted(int vcpu) {
        timedSince.compareAndSet(vcpu, -1, System.nanoTime());
    }

    void trackingStarted() {
        trackingStartNanos = System.nanoTime();
    }

    /**
     * Userspace mode: milliseconds from the device's attachment to the start of preemption
     * tracking (the guest's first PV-lock call, once every vCPU thread ran); -1 if it never started.
     */
    public long trackingStartedMillis() {
        long t = trackingStartNanos;
        return t < 0 ? -1 : (t - startNanos) / 1_000_000;
    }

    /** Only the tracker's thread calls this, so the volatile's increment loses nothing. */
    void trackerWokeUp() {
        trackerWakeups++;
    }

    /**
     * Userspace mode: how many times the tracker's thread woke to read the switch records (at
     * each record, or once a batch period with {@code --pvlock-batch}); 0 before tracking.
     */
    public long trackerWakeups() {
        return trackerWakeups;
    }

    /** Only the tracker's thread calls this: the kernel dropped {@code count} records. */
    void switchRecordsLost(long count) {
        switchRecordsLost += count;
    }

    /** Only the tracker's thread calls this: it found a ring too full for the next record. */
    void ringFoundFull() {
        fullRings++;
    }

    /**
     * Userspace mode: switch records of vCPU threads the kernel dropped because the tracker had
     * not read their rings in time (each such vCPU's flag reads running until its next record).
     */
    public long switchRecordsLost() {
        return switchRecordsLost;
    }

    /** Userspace mode: how many times the tracker found a vCPU thread's ring too full for the next record. */
    public long fullRings() {
        return fullRings;
    }

    void addPreemptedNanos(int vcpu, long nanos) {
        preemptedNanos.addAndGet(vcpu, nanos);
    }

    /** Userspace mode: the flagged time of {@code vcpu}'s stretches that have ended. */
    long preemptedNanos(int vcpu) {
        return preemptedNanos.get(vcpu);
    }

    /** Userspace mode: when {@code vcpu}'s timing started, -1 before its thread did. */
    long timedSince(int vcpu) {
        return timedSince.get(vcpu);
    }

    /** Kernel mode: the sampler's reads so far. */
    FlagMark.Sampled sampledMark() {
        long[] reads = new long[vcpus()];
        long[] set = new long[reads.length];
        for (int v = 0; v < reads.length; v++) {
            // the set reads first: a read counted between the two makes the share low, never above 1
            set[v] = samplesPreempted.get(v);
            reads[v] = samples.get(v);
        }
        return new FlagMark.Sampled(reads, set);
    }

    void sampled(int vcpu, boolean preempted) {
        samples.incrementAndGet(vcpu);
        if (preempted) samplesPreempted.incrementAndGet(vcpu);
    }

    void finish() {
        if (endNanos < 0) endNanos = System.nanoTime();
    }

    /** Userspace mode: switch-outs of {@code vcpu}'s thread while it was runnable (preemptions). */
    public long preemptions(int vcpu) {
        return preemptions.get(vcpu);
    }

    /** Userspace mode: switch-outs of {@code vcpu}'s thread because it blocked (a halted vCPU, a wait). */
    public long voluntarySwitchOuts(int vcpu) {
        return voluntarySwitchOuts.get(vcpu);
    }

    /**
     * The share of {@code vcpu}'s time since it first ran in which its {@code preempted} read 1,
     * from 0 to 1, so that neither mode counts the VMM's set-up: in userspace mode exact, from
     * jkvm's own writes over the time since the vCPU's thread started; in kernel mode the share of
     * the sampler's reads ({@code --pvlock-sample} a second) since the host kernel first cleared
     * the flag, i.e. since the guest first ran on that vCPU. NaN where nothing was measured (PV
     * lock off, no sample yet, a thread never started).
     */
    public double preemptedShare(int vcpu) {
        long n = samples.get(vcpu);
        if (n > 0) return (double) samplesPreempted.get(vcpu) / n;
        long since = timedSince.get(vcpu);
        if (!timed || since < 0) return Double.NaN;
        long end = endNanos < 0 ? System.nanoTime() : endNanos;
        return Math.min(1.0, (double) preemptedNanos.get(vcpu) / Math.max(1, end - since));
    }

    void changeSeen(int vcpu) {
        changesSeen.incrementAndGet(vcpu);
    }

    /** Kernel mode: changes of {@code vcpu}'s {@code preempted} that jkvm saw the host kernel make (sampled). */
    public long changesSeen(int vcpu) {
        return changesSeen.get(vcpu);
    }

    void featureCall(int vcpu) {
        featureCalls.incrementAndGet(vcpu);
    }

    void pvLockCall(int vcpu) {
        pvLockCalls.incrementAndGet(vcpu);
    }

    void preemptedWritten(int vcpu, boolean preempted) {
        (preempted ? preemptedSet : preemptedCleared).incrementAndGet(vcpu);
    }

    /** How many vCPUs. */
    public int vcpus() {
        return featureCalls.length();
    }

    /** Vendor-hyp feature calls {@code vcpu} made that jkvm answered. */
    public long featureCalls(int vcpu) {
        return featureCalls.get(vcpu);
    }

    /** PV-lock calls {@code vcpu} made that jkvm answered. */
    public long pvLockCalls(int vcpu) {
        return pvLockCalls.get(vcpu);
    }

    /** Times jkvm changed {@code vcpu}'s {@code preempted} from 0 to 1. */
    public long preemptedSet(int vcpu) {
        return preemptedSet.get(vcpu);
    }

    /** Times jkvm changed {@code vcpu}'s {@code preempted} from 1 to 0. */
    public long preemptedCleared(int vcpu) {
        return preemptedCleared.get(vcpu);
    }

    /** The counters summed over the vCPUs. */
    public PvLockTotals totals() {
        long features = 0, calls = 0, set = 0, cleared = 0, seen = 0, preempted = 0, voluntary = 0;
        double share = 0;
        int n = vcpus();
        for (int v = 0; v < n; v++) {
            features += featureCalls(v);
            calls += pvLockCalls(v);
            set += preemptedSet(v);
            cleared += preemptedCleared(v);
            seen += changesSeen(v);
            preempted += preemptions(v);
            voluntary += voluntarySwitchOuts(v);
            double sh = preemptedShare(v);
            if (!Double.isNaN(sh)) share += sh / n;
        }
        return new PvLockTotals(features, calls, set, cleared, seen, preempted, voluntary, share);
    }

    /** How late jkvm's writes of a scheduler switch were (userspace mode). */
    public StalenessHistogram staleness() {
        return staleness;
    }
}
