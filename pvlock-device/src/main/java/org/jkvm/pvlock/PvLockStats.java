package org.jkvm.pvlock;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Per-vCPU PV-lock counters: the guest's feature and PV-lock calls answered by jkvm, and the
 * {@code preempted} changes jkvm wrote (userspace mode), plus how late those writes were.
 */
public final class PvLockStats {
    private final AtomicLongArray featureCalls;
    private final AtomicLongArray pvLockCalls;
    private final AtomicLongArray preemptedSet;
    private final AtomicLongArray preemptedCleared;
    private final AtomicLongArray changesSeen;
    private final StalenessHistogram staleness = new StalenessHistogram();

    PvLockStats(int vcpus) {
        featureCalls = new AtomicLongArray(vcpus);
        pvLockCalls = new AtomicLongArray(vcpus);
        preemptedSet = new AtomicLongArray(vcpus);
        preemptedCleared = new AtomicLongArray(vcpus);
        changesSeen = new AtomicLongArray(vcpus);
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

    /** How late jkvm's writes of a scheduler switch were (userspace mode). */
    public StalenessHistogram staleness() {
        return staleness;
    }
}
