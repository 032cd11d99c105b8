package org.jkvm.pvlock;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicInteger;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.KvmException;
import org.jkvm.vmm.vcpu.VcpuRunListener;

/**
 * Keeps each vCPU's {@code preempted} current from userspace, for host kernels without the
 * PV-lock series. Only a preemption sets the flag: the scheduler switching the vCPU's thread
 * out while it was still runnable (perf's context-switch records say which switch-outs were
 * preemptions; a tracker thread reads them). A vCPU that halts (its thread blocks in KVM_RUN
 * on WFI) or handles an exit in jkvm is not preempted and keeps 0, as with x86's steal-time
 * flag and the project's kernel series: the guest's scheduler treats a preempted CPU as busy,
 * so flagging halted vCPUs would hide its idle CPUs. The flag goes back to 0 when the thread
 * is switched in again. The tracker thread is not pinned with the vCPUs, so on an
 * overcommitted CPU set it still runs elsewhere when it can; how late its writes are is
 * measured in {@link PvLockStats#staleness()}.
 */
final class UserspacePreemptionTracker implements VcpuRunListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UserspacePreemptionTracker.class.getName());
    private static final int POLL_MILLIS = 100;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final Object[] locks;
    private final boolean[] flag;
    private final long[] flaggedSince;
    private final boolean[] entered;
    private final int[] tids;
    private final AtomicInteger started = new AtomicInteger();
    private volatile boolean closing;
    private volatile Thread poller;
    private volatile String switchSource = "starting";

    UserspacePreemptionTracker(PvLockRegion region, PvLockStats stats, int vcpus) {
        this.region = region;
        this.stats = stats;
        this.locks = new Object[vcpus];
        this.flag = new boolean[vcpus];
        this.flaggedSince = new long[vcpus];
        this.entered = new boolean[vcpus];
        this.tids = new int[vcpus];
        stats.timeFlags();
        for (int v = 0; v < vcpus; v++) {
            locks[v] = new Object();
            flag[v] = true; // not running until its thread first enters the guest; not counted as preempted time
            flaggedSince[v] = -1;
            region.setPreempted(v, true);
        }
    }

    /** Where scheduler switches come from, for the report. */
    String switchSource() {
        return switchSource;
    }

    @Override
    public void started(int vcpu, int tid) {
        tids[vcpu] = tid;
        if (started.incrementAndGet() == tids.length) {
            poller = Thread.ofPlatform().name("pvlock-tracker").daemon().start(this::track);
        }
    }

    @Override
    public void entering(int vcpu) {
        // Only the first entry changes anything (the flag starts at "not running yet"); later
        // entries come from a thread that is on a CPU, whose flag a switch-in already cleared.
        if (!entered[vcpu]) {
            entered[vcpu] = true;
            mark(vcpu, false, System.nanoTime());
        }
    }

    @Override
    public void left(int vcpu) {
        // Handling an exit in jkvm is not a preemption.
    }

    @Override
    public void stopped(int vcpu) {
        // A stopped vCPU is not preempted either; its flag stays as the last switch left it.
    }

    /** One scheduler switch of {@code vcpu}'s thread, as the context-switch records tell it. */
    void switched(int vcpu, boolean in, boolean preempted, long when) {
        stats.staleness().record(System.nanoTime() - when);
        if (in) {
            mark(vcpu, false, when);
        } else if (preempted) {
            stats.preemption(vcpu);
            mark(vcpu, true, when);
        } else {
            stats.voluntarySwitchOut(vcpu);
        }
    }

    private void mark(int vcpu, boolean preempted, long when) {
        synchronized (locks[vcpu]) {
            if (flag[vcpu] == preempted) return;
            flag[vcpu] = preempted;
            region.setPreempted(vcpu, preempted);
            stats.preemptedWritten(vcpu, preempted);
            if (preempted) {
                flaggedSince[vcpu] = when;
            } else if (flaggedSince[vcpu] >= 0) {
                stats.addPreemptedNanos(vcpu, Math.max(0, when - flaggedSince[vcpu]));
            }
        }
    }

    private void track() {
        ContextSwitchMonitor monitor;
        try {
            monitor = ContextSwitchMonitor.open(tids.clone());
        } catch (KvmException e) {
            switchSource = "none (" + e.getMessage() + ")";
            LOG.log(Level.WARNING, "no scheduler switch records, so no preemption is ever flagged: {0}", e.getMessage());
            return;
        }
        switchSource = "perf context-switch records";
        try (monitor) {
            while (!closing) monitor.poll(POLL_MILLIS, this::switched);
        }
    }

    @Override
    public void close() {
        closing = true;
        Thread t = poller;
        if (t != null) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        long now = System.nanoTime();
        for (int v = 0; v < flag.length; v++) {
            synchronized (locks[v]) {
                if (flag[v] && flaggedSince[v] >= 0) stats.addPreemptedNanos(v, Math.max(0, now - flaggedSince[v]));
                flaggedSince[v] = -1;
            }
        }
    }
}
