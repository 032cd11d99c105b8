package org.jkvm.pvlock;

import java.lang.System.Logger.Level;
import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.KvmException;

/**
 * Kernel mode: the host kernel writes {@code preempted}, so jkvm only watches. A daemon thread
 * reads every vCPU's flag at a fixed rate and counts the changes it sees and the reads that
 * found it set, which shows from the VMM side when and how often the host kernel flags a vCPU
 * as preempted. The thread may share host CPUs with the vCPUs (all of them where --pin leaves
 * none outside it), so the default rate is low
 * ({@link PvLockDevice#DEFAULT_SAMPLE_HZ}: hundreds of reads for a share over a few seconds);
 * a flag that changes twice between two reads is not seen to change, so the change count
 * grows with the rate. A vCPU counts from the first read of 0: until the host kernel clears the
 * flag as the vCPU first enters the guest it holds the "not running yet" jkvm wrote at attachment,
 * which is the VMM's set-up (1-2 s a run in the emulated host) or a CPU the guest has not
 * brought up, not a preemption (a vCPU preempted before the sampler's first read of 0 counts
 * from its next run). The thread runs off the vCPUs' pin where jkvm has CPUs outside it
 * ({@link TrackerCpus}, as the userspace tracker does): each of its wake-ups on a vCPU's CPU would
 * preempt that vCPU, and the host kernel would flag the very preemption the thread then counts.
 */
final class KernelFlagSampler implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(KernelFlagSampler.class.getName());

    private final long periodNanos;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final int vcpus;
    private final TrackerCpus cpus;
    private final Thread thread;
    private volatile BitSet ranOn;
    private volatile boolean closing;

    /** Reads {@code vcpus} flags {@code hz} times a second on a thread of its own, on {@code cpus}. */
    KernelFlagSampler(PvLockRegion region, PvLockStats stats, int vcpus, int hz, TrackerCpus cpus) {
        this.periodNanos = 1_000_000_000L / hz;
        this.region = region;
        this.stats = stats;
        this.vcpus = vcpus;
        this.cpus = cpus;
        this.thread = Thread.ofPlatform().name("pvlock-sampler").daemon().start(this::sample);
    }

    /** The CPUs the sampler's thread may run on once started, or null before. */
    BitSet ranOn() {
        return ranOn;
    }

    private void sample() {
        try {
            HostCpus.pinCurrentThread(cpus.cpus());
        } catch (KvmException e) {
            LOG.log(Level.WARNING, "the PV-lock flag sampler stays on every CPU of jkvm, the vCPUs' among them: {0}", e.getMessage());
        }
        ranOn = HostCpus.currentAffinity();
        long[] last = new long[vcpus];
        boolean[] ran = new boolean[vcpus];
        for (int v = 0; v < vcpus; v++) {
            last[v] = region.preempted(v);
            ran[v] = last[v] == 0;
        }
        while (!closing) {
            for (int v = 0; v < vcpus; v++) {
                long now = region.preempted(v);
                if (!ran[v]) {
                    // Still jkvm's "not running yet": the set-up, or a CPU the guest has not brought up.
                    if (now != 0) continue;
                    ran[v] = true;
                    last[v] = now;
                }
                stats.sampled(v, now != 0);
                if (now != last[v]) {
                    stats.changeSeen(v);
                    last[v] = now;
                }
            }
            LockSupport.parkNanos(periodNanos);
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
