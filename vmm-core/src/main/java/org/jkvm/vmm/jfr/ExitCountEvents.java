package org.jkvm.vmm.jfr;

import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import org.jkvm.kvm.ExitReason;
import org.jkvm.vmm.vcpu.VcpuStats;

/**
 * Records each vCPU's exits by kind as {@link VcpuExitsEvent}s: each period JFR's own thread
 * reads the counters the vCPU threads keep anyway ({@link VcpuStats#exitsNow}) and records
 * what each grew by. The exit path allocates and records nothing for it. {@link #emit} once
 * more after the vCPUs stop, so the events add up to the counters.
 */
public final class ExitCountEvents implements AutoCloseable {
    private static final ExitReason[] REASONS = ExitReason.values();

    private final Supplier<List<VcpuStats>> vcpus;
    private final PeriodicHook hook;
    private long[][] recorded = new long[0][];

    private ExitCountEvents(Supplier<List<VcpuStats>> vcpus) {
        this.vcpus = vcpus;
        this.hook = PeriodicHook.register(VcpuExitsEvent.class, this::emit);
    }

    /**
     * Watches the counters {@code vcpus} gives (none before the vCPUs start), if the Flight
     * Recorder is initialized; otherwise does nothing.
     */
    public static ExitCountEvents watch(Supplier<List<VcpuStats>> vcpus) {
        return new ExitCountEvents(vcpus);
    }

    /** Records the exits counted since the previous call, one event per vCPU and kind that had any. */
    public synchronized void emit() {
        if (!hook.registered()) return;
        List<VcpuStats> stats = vcpus.get();
        if (recorded.length < stats.size()) {
            int had = recorded.length;
            recorded = Arrays.copyOf(recorded, stats.size());
            for (int v = had; v < stats.size(); v++) recorded[v] = new long[REASONS.length];
        }
        for (int v = 0; v < stats.size(); v++) {
            VcpuStats s = stats.get(v);
            for (ExitReason r : REASONS) {
                long now = s.exitsNow(r);
                long count = now - recorded[v][r.ordinal()];
                if (count == 0) continue;
                recorded[v][r.ordinal()] = now;
                VcpuExitsEvent e = new VcpuExitsEvent();
                e.vcpu = s.vcpu();
                e.reason = r.name();
                e.count = count;
                e.total = now;
                e.commit();
            }
        }
    }

    @Override
    public void close() {
        hook.close();
    }
}
