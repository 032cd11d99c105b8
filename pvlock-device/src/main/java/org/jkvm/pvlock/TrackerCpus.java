package org.jkvm.pvlock;

import java.util.BitSet;

import org.jkvm.kvm.HostCpus;

/**
 * Where jkvm's own PV-lock thread runs for a VM (userspace mode's preemption tracker, kernel
 * mode's flag sampler), and whether one of those CPUs is its own: the CPUs jkvm may use outside
 * the vCPUs' pin where there are any, else all of them (never the pin alone: the tracker is
 * started from a vCPU thread, whose pin it would inherit).
 *
 * @param cpus the CPUs the thread is to run on
 * @param busy how many of them the vCPU threads can keep busy at once
 */
public record TrackerCpus(BitSet cpus, int busy) {
    /**
     * For {@code vcpus} vCPUs whose threads run on {@code pin} (null: unpinned); called on a
     * thread with jkvm's own CPUs (set-up, before any vCPU thread is pinned).
     */
    static TrackerCpus of(int vcpus, BitSet pin) {
        BitSet all = HostCpus.currentAffinity();
        BitSet vcpuCpus = (BitSet) all.clone();
        if (pin != null) vcpuCpus.and(pin);
        BitSet outside = (BitSet) all.clone();
        outside.andNot(vcpuCpus);
        return outside.isEmpty()
                ? new TrackerCpus(all, Math.min(vcpus, vcpuCpus.cardinality()))
                : new TrackerCpus(outside, 0);
    }

    /** Whether a CPU is left for the tracker when the vCPUs keep as many busy as they can. */
    public boolean ownCpu() {
        return cpus.cardinality() > busy;
    }
}
