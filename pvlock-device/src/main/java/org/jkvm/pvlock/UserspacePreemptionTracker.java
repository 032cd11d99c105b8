package org.jkvm.pvlock;

import java.lang.System.Logger.Level;
import java.util.BitSet;
import java.util.concurrent.locks.LockSupport;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.ContextSwitchMonitor.Wakeup;
import org.jkvm.kvm.HostCpus;
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
 * is switched in again. The tracker thread runs where {@link TrackerCpus} says, so with vCPUs
 * overcommitted on a CPU set it runs elsewhere. Where the vCPUs could keep every CPU it used
 * busy ({@code --pvlock userspace} asked for it there; {@code auto} does not track there) it
 * says so when it is closed (after the guest, whose console a line logged meanwhile would cut
 * into), as each of its wake-ups then preempted a vCPU and its flags came late. How late its
 * writes are is measured in {@link PvLockStats#staleness()}. A thread's ring it did not read in
 * time fills and the kernel drops records: that vCPU then reads as running until its next record
 * ({@link #lost}, {@link #ringFull}), and the close, having read what was left in the rings,
 * says how many were dropped.
 *
 * <p>The tracker stays idle (no perf events, no thread, no write) until the guest first asks
 * for a structure ({@link #guestAsked}): a guest without the PV-lock series never reads the
 * flags, so tracking it would only cost host CPU. Until then every flag reads 0, "running",
 * which is what the guest would assume without PV lock: a vCPU preempted before the perf
 * records begin reads as running until it runs again (the rest of that one preemption), never
 * the other way round. The perf records are opened on the tracker's own thread, off the
 * vCPU thread that made the call. In {@link PvLockMode#TRACK_ONLY} it tracks from the vCPU
 * threads' start ({@link #trackFromStart}) for a guest that is never offered the flags.
 *
 * <p>By default its thread wakes at each switch record, so a flag is as current as the thread
 * can be scheduled; each such wake-up is raised at the switch, as an IRQ-work interrupt on the
 * vCPU's own CPU. With a batch period ({@code --pvlock-batch}) it instead wakes once a period
 * and reads every record written meanwhile (its rings wake no one: {@link Wakeup#HALF_FULL}):
 * at most 1000/period wake-ups a second, none raised on the vCPUs' CPUs, the flags up to a
 * period later. In the emulated host, 8 vCPUs on 2 CPUs, the wake-ups were the tracker's
 * cost: waking every 20 ms it cost nothing resolved, at each record half the guest's throughput;
 * sparing the vCPUs' CPUs their interrupts gained nothing shown there
 * (examples/results/tracker-batch). Each record stays the default until real cores say the same.
 */
final class UserspacePreemptionTracker implements VcpuRunListener, ContextSwitchMonitor.SwitchListener, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(UserspacePreemptionTracker.class.getName());
    private static final int POLL_MILLIS = 100;

    private final PvLockRegion region;
    private final PvLockStats stats;
    private final Object[] locks;
    private final boolean[] flag;
    private final long[] flaggedSince;
    private final int[] tids;
    private final TrackerCpus cpus;
    private final int batchMillis;
    private volatile BitSet ranOn;
    private int threadsStarted;
    private boolean asked;
    private volatile boolean closing;
    private Thread poller;
    private volatile String switchSource = "idle: the guest made no PV-lock call";

    /**
     * Tracks {@code vcpus} vCPUs, its thread on {@code cpus}, waking once every {@code batchMillis}
     * milliseconds (0: at each switch record; {@link PvLockDevice#attaching} checks the range).
     */
    UserspacePreemptionTracker(PvLockRegion region, PvLockStats stats, int vcpus, TrackerCpus cpus, int batchMillis) {
        this.batchMillis = batchMillis;
        this.region = region;
        this.stats = stats;
        this.locks = new Object[vcpus];
        this.flag = new boolean[vcpus];
        this.flaggedSince = new long[vcpus];
        this.tids = new int[vcpus];
        this.cpus = cpus;
        stats.timeFlags();
        for (int v = 0; v < vcpus; v++) {
            locks[v] = new Object();
            flaggedSince[v] = -1;
            region.setPreempted(v, false);
        }
    }

    /** Where scheduler switches come from, for the report. */
    String switchSource() {
        return switchSource;
    }

    @Override
    public synchronized void started(int vcpu, int tid) {
        stats.vcpuStarted(vcpu);
        tids[vcpu] = tid;
        threadsStarted++;
        startIfDue();
    }

    /**
     * The guest asked for a structure (its PV-lock call, on {@code vcpu}'s thread): from now on
     * it may read the flags, so tracking starts once every vCPU thread is known. Quick: the
     * perf records are opened on the tracker's thread.
     */
    synchronized void guestAsked(int vcpu) {
        if (asked) return;
        asked = true;
        LOG.log(Level.DEBUG, "vCPU {0} made the first PV-lock call: preemption tracking starts", vcpu);
        startIfDue();
    }

    /** Tracks once every vCPU thread is known, without waiting for a PV-lock call. */
    synchronized void trackFromStart() {
        asked = true;
        startIfDue();
    }

    private void startIfDue() {
        if (!asked || threadsStarted < tids.length || poller != null || closing) return;
        stats.trackingStarted();
        switchSource = "starting";
        poller = Thread.ofPlatform().name("pvlock-tracker").daemon().start(this::track);
    }

    @Override
    public void stopped(int vcpu) {
        // A stopped vCPU is not preempted either; its flag stays as the last switch left it.
    }

    /** One scheduler switch of {@code vcpu}'s thread, as the context-switch records tell it. */
    @Override
    public void switched(int vcpu, boolean in, boolean preempted, long when) {
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

    /**
     * The kernel dropped {@code count} switches of {@code vcpu}'s thread (its ring filled): whether
     * it runs now is unknown until its next record, so its flag says running, what the guest
     * assumes without PV lock, rather than keep a preemption that may have ended.
     */
    @Override
    public void lost(int vcpu, long count, long when) {
        stats.switchRecordsLost(count);
        mark(vcpu, false, when);
    }

    /** {@code vcpu}'s ring was found full: its switches since may be being dropped, so as for {@link #lost}. */
    @Override
    public void ringFull(int vcpu, long when) {
        stats.ringFoundFull();
        mark(vcpu, false, when);
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

    /** Each vCPU's flagged time up to now, the stretch still open included. */
    FlagMark.Timed mark() {
        long now = System.nanoTime();
        long[] flagged = new long[flag.length];
        long[] since = new long[flag.length];
        for (int v = 0; v < flag.length; v++) {
            synchronized (locks[v]) {
                flagged[v] = stats.preemptedNanos(v) + (flag[v] && flaggedSince[v] >= 0 ? Math.max(0, now - flaggedSince[v]) : 0);
                since[v] = stats.timedSince(v);
            }
        }
        return new FlagMark.Timed(now, flagged, since);
    }

    /** The CPUs the tracker's thread may run on once started, or null before. */
    BitSet ranOn() {
        return ranOn;
    }

    /**
     * Why the tracker cost the guest on {@code cpus}, waking once every {@code batchMillis} ms (0:
     * at each record), or null when one of them is its own.
     */
    static String noSpareCpu(TrackerCpus cpus, int batchMillis) {
        if (cpus.ownCpu()) return null;
        String wakeUps = batchMillis == 0
                ? "each switch it read woke it on a vCPU's CPU, which preempted that vCPU and made two more records"
                  + " (virtio-blk IOPS 0.3-0.7x of --pvlock off with 2 vCPUs on 2 CPUs: bench/blk/README.md)"
                : "each of its wake-ups, one every " + batchMillis + " ms, preempted a vCPU there";
        return ("the vCPUs could keep all %d host CPUs the userspace preemption tracker ran on busy: %s, and its flags"
                + " came late (the switch-to-flag delay in the PV-lock line). Leave it a CPU: fewer vCPUs than host CPUs,"
                + " or --pin the vCPUs to some of them; --pvlock auto does not track where it would have none")
                .formatted(cpus.cpus().cardinality(), wakeUps);
    }

    /**
     * What the kernel dropped of the vCPU threads' switch records, and how to read them in time,
     * or null when it dropped none and no ring was found full.
     */
    static String droppedRecords(long lost, long fullRings, int batchMillis) {
        if (lost == 0 && fullRings == 0) return null;
        return ("the kernel dropped %d context-switch records of vCPU threads, whose rings (~1300 records each) the"
                + " preemption tracker found full %d times: each such vCPU read as running until its next record. Read"
                + " them in time: %s").formatted(lost, fullRings, batchMillis > 0
                        ? "a --pvlock-batch shorter than " + batchMillis + " ms"
                        : "leave the tracker a CPU of its own (fewer vCPUs than host CPUs, or --pin the vCPUs to some)");
    }

    private void track() {
        try {
            HostCpus.pinCurrentThread(cpus.cpus());
        } catch (KvmException e) {
            LOG.log(Level.WARNING, "the preemption tracker stays on the CPUs of the vCPU thread that started it: {0}", e.getMessage());
        }
        ranOn = HostCpus.currentAffinity();
        ContextSwitchMonitor monitor;
        try {
            // A tracker on its own timer wants no wake-up per record, which costs the vCPU's CPU an interrupt.
            monitor = ContextSwitchMonitor.open(ContextSwitchMonitor.DEFAULT_DATA_PAGES_LOG2,
                    batchMillis == 0 ? Wakeup.EACH_RECORD : Wakeup.HALF_FULL, tids.clone());
        } catch (KvmException e) {
            switchSource = "none (" + e.getMessage() + ")";
            LOG.log(Level.WARNING, "no scheduler switch records, so no preemption is ever flagged: {0}", e.getMessage());
            return;
        }
        switchSource = batchMillis == 0 ? "perf context-switch records"
                : "perf context-switch records, read every " + batchMillis + " ms";
        try (monitor) {
            while (!closing) {
                if (batchMillis == 0) {
                    monitor.poll(POLL_MILLIS, this);
                } else {
                    // Records do not wake a thread that is not waiting in poll: they wait in the rings.
                    monitor.poll(0, this);
                    LockSupport.parkNanos(batchMillis * 1_000_000L);
                }
                stats.trackerWokeUp();
            }
            // The records since the last read are the run's too, and so is any ring found full.
            monitor.poll(0, this);
        }
    }

    /** Stops tracking; the second and later calls (the device's close after the VM stopped) find nothing to stop or report. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closing = true;
            t = poller;
            poller = null;
        }
        if (t != null) {
            LockSupport.unpark(t); // a batching tracker need not sleep out its period
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String crowded = noSpareCpu(cpus, batchMillis);
            if (crowded != null) LOG.log(Level.WARNING, crowded);
            String dropped = droppedRecords(stats.switchRecordsLost(), stats.fullRings(), batchMillis);
            if (dropped != null) LOG.log(Level.WARNING, dropped);
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
