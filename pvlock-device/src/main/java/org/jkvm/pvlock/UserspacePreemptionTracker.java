package org.jkvm.pvlock;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicInteger;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.KvmException;
import org.jkvm.vmm.vcpu.VcpuRunListener;

/**
 * Keeps each vCPU's {@code preempted} current from userspace, for host kernels without the
 * PV-lock series. A vCPU counts as running when its thread is inside KVM_RUN (told by the run
 * loop) and on a CPU (told by the scheduler's context-switch records, read by a tracker
 * thread through perf); {@code preempted} is 1 whenever either is not so, as the series'
 * vcpu_put/vcpu_load do. The tracker thread is not pinned with the vCPUs, so on an
 * overcommitted CPU set it still runs elsewhere when it can; how late its writes are is
 * measured in {@link PvLockStats#staleness()}.
 */
final class UserspacePreemptionTracker implements VcpuRunListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UserspacePreemptionTracker.class.getName());
    private static final int IN_GUEST = 1;
    private static final int ON_CPU = 2;
    private static final int RUNNING = IN_GUEST | ON_CPU;
    private static final int POLL_MILLIS = 100;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final Object[] locks;
    private final int[] state;
    private final boolean[] flag;
    private final int[] tids;
    private final AtomicInteger started = new AtomicInteger();
    private volatile boolean closing;
    private volatile Thread poller;
    private volatile String switchSource = "starting";

    UserspacePreemptionTracker(PvLockRegion region, PvLockStats stats, int vcpus) {
        this.region = region;
        this.stats = stats;
        this.locks = new Object[vcpus];
        this.state = new int[vcpus];
        this.flag = new boolean[vcpus];
        this.tids = new int[vcpus];
        for (int v = 0; v < vcpus; v++) {
            locks[v] = new Object();
            flag[v] = true; // not running until its thread first enters the guest
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
        update(vcpu, ON_CPU, 0);
        if (started.incrementAndGet() == tids.length) {
            poller = Thread.ofPlatform().name("pvlock-tracker").daemon().start(this::track);
        }
    }

    @Override
    public void entering(int vcpu) {
        update(vcpu, IN_GUEST, 0);
    }

    @Override
    public void left(int vcpu) {
        update(vcpu, 0, IN_GUEST);
    }

    @Override
    public void stopped(int vcpu) {
        update(vcpu, 0, IN_GUEST);
    }

    private void switched(int vcpu, boolean in, boolean preempted, long when) {
        stats.staleness().record(System.nanoTime() - when);
        if (in) update(vcpu, ON_CPU, 0);
        else update(vcpu, 0, ON_CPU);
    }

    private void update(int vcpu, int set, int clear) {
        synchronized (locks[vcpu]) {
            int s = (state[vcpu] | set) & ~clear;
            state[vcpu] = s;
            boolean p = s != RUNNING;
            if (p != flag[vcpu]) {
                flag[vcpu] = p;
                region.setPreempted(vcpu, p);
                stats.preemptedWritten(vcpu, p);
            }
        }
    }

    private void track() {
        ContextSwitchMonitor monitor;
        try {
            monitor = ContextSwitchMonitor.open(tids.clone());
        } catch (KvmException e) {
            switchSource = "none (" + e.getMessage() + ")";
            LOG.log(Level.WARNING, "no scheduler switch records, so preempted only follows KVM_RUN: {0}", e.getMessage());
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
    }
}
