package org.jkvm.pvlock;

import java.util.concurrent.locks.LockSupport;

/**
 * Kernel mode: the host kernel writes {@code preempted}, so jkvm only watches. A daemon thread
 * reads every vCPU's flag about once a millisecond and counts the changes it sees and the reads
 * that found it set, which shows from the VMM side when and how often the host kernel flags a
 * vCPU as preempted.
 */
final class KernelFlagSampler implements AutoCloseable {
    private static final long PERIOD_NANOS = 1_000_000;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final int vcpus;
    private final Thread thread;
    private volatile boolean closing;

    KernelFlagSampler(PvLockRegion region, PvLockStats stats, int vcpus) {
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
            LockSupport.parkNanos(PERIOD_NANOS);
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
