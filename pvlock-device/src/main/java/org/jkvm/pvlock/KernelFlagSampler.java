package org.jkvm.pvlock;

import java.util.concurrent.locks.LockSupport;

/**
 * Kernel mode: the host kernel writes {@code preempted}, so jkvm only watches. A daemon thread
 * reads every vCPU's flag at a fixed rate and counts the changes it sees and the reads that
 * found it set, which shows from the VMM side when and how often the host kernel flags a vCPU
 * as preempted. The thread shares the host CPUs with the vCPUs, so the default rate is low
 * ({@link PvLockDevice#DEFAULT_SAMPLE_HZ}: hundreds of reads for a share over a few seconds);
 * a flag that changes twice between two reads is not seen to change, so the change count
 * grows with the rate.
 */
final class KernelFlagSampler implements AutoCloseable {
    private final long periodNanos;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final int vcpus;
    private final Thread thread;
    private volatile boolean closing;

    KernelFlagSampler(PvLockRegion region, PvLockStats stats, int vcpus, int hz) {
        this.periodNanos = 1_000_000_000L / hz;
        this.region = region;
        this.stats = stats;
        this.vcpus = vcpus;
        this.thread = Thread.ofPlatform().name("pvlock-sampler").daemon().start(this::sample);
    }

    private void sample() {
        long[] last = new long[vcpus];
        for (int v = 0; v < vcpus; v++) last[v] = region.preempted(v);
        while (!closing) {
            for (int v = 0; v < vcpus; v++) {
                long now = region.preempted(v);
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
