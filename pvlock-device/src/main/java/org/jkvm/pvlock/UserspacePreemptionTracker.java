package org.jkvm.pvlock;

import org.jkvm.vmm.vcpu.VcpuRunListener;

/**
 * Keeps each vCPU's {@code preempted} current from userspace, for host kernels without the
 * PV-lock series: 0 while the vCPU's thread runs the guest, 1 from the moment it leaves
 * KVM_RUN or the host scheduler switches it out, as the series' vcpu_put/vcpu_load do.
 */
final class UserspacePreemptionTracker implements VcpuRunListener, AutoCloseable {
    private final PvLockRegion region;
    private final PvLockStats stats;
    private final boolean[] preempted;

    UserspacePreemptionTracker(PvLockRegion region, PvLockStats stats, int vcpus) {
        this.region = region;
        this.stats = stats;
        this.preempted = new boolean[vcpus];
        for (int v = 0; v < vcpus; v++) {
            preempted[v] = true; // not running until its thread first enters the guest
            region.setPreempted(v, true);
        }
    }

    @Override
    public void started(int vcpu, int tid) {
    }

    @Override
    public void entering(int vcpu) {
        write(vcpu, false);
    }

    @Override
    public void left(int vcpu) {
        write(vcpu, true);
    }

    @Override
    public void stopped(int vcpu) {
        write(vcpu, true);
    }

    private synchronized void write(int vcpu, boolean value) {
        if (preempted[vcpu] == value) return;
        preempted[vcpu] = value;
        region.setPreempted(vcpu, value);
        stats.preemptedWritten(vcpu, value);
    }

    @Override
    public void close() {
    }
}
