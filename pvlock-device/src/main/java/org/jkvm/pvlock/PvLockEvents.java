package org.jkvm.pvlock;

import java.util.Arrays;

import org.jkvm.vmm.jfr.PeriodicHook;

/**
 * Records the PV-lock counters as {@link PvLockEvent}s: each period JFR's own thread reads
 * {@link PvLockStats} and records what each vCPU's counters grew by, so neither the hypercall
 * path nor the tracker records anything itself. {@link #emit} once more when the VM stops, so
 * the events add up to the counters. Does nothing unless the Flight Recorder is initialized.
 */
final class PvLockEvents implements AutoCloseable {
    private static final int COUNTERS = 7;

    private final PvLockStats stats;
    private final long[][] recorded;
    private final PeriodicHook hook;

    PvLockEvents(PvLockStats stats) {
        this.stats = stats;
        this.recorded = new long[stats.vcpus()][COUNTERS];
        this.hook = PeriodicHook.register(PvLockEvent.class, this::emit);
    }

    /** Records what changed since the previous call, one event per vCPU that had anything. */
    synchronized void emit() {
        if (!hook.registered()) return;
        long[] now = new long[COUNTERS];
        for (int v = 0; v < recorded.length; v++) {
            now[0] = stats.pvLockCalls(v);
            now[1] = stats.featureCalls(v);
            now[2] = stats.preemptedSet(v);
            now[3] = stats.preemptedCleared(v);
            now[4] = stats.preemptions(v);
            now[5] = stats.voluntarySwitchOuts(v);
            now[6] = stats.changesSeen(v);
            long[] was = recorded[v];
            if (Arrays.equals(now, was)) continue;
            PvLockEvent e = new PvLockEvent();
            e.vcpu = v;
            e.pvLockCalls = now[0] - was[0];
            e.featureCalls = now[1] - was[1];
            e.preemptedSet = now[2] - was[2];
            e.preemptedCleared = now[3] - was[3];
            e.preemptions = now[4] - was[4];
            e.voluntarySwitchOuts = now[5] - was[5];
            e.changesSeen = now[6] - was[6];
            e.commit();
            System.arraycopy(now, 0, was, 0, COUNTERS);
        }
    }

    @Override
    public void close() {
        hook.close();
    }
}
