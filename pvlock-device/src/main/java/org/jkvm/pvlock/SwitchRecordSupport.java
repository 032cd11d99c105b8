package org.jkvm.pvlock;

import java.util.function.Supplier;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.KvmException;

/**
 * Whether this process may read the kernel's context-switch records, found by opening them: per
 * thread, as the userspace PV-lock tracker does (without them it flags no preemption), and
 * CPU-wide, as {@code --preemptors} does. Permissions, perf_event_paranoid and a container's
 * seccomp profile all decide it, so only trying tells.
 *
 * @param perThread the records of this process's own threads
 * @param cpuWide   every switch on a CPU, whoever runs
 */
public record SwitchRecordSupport(Availability perThread, Availability cpuWide) {
    /** @param refusal the error that refused the events, with what to do; null where they opened */
    public record Availability(String refusal) {
        /** Whether the events opened. */
        public boolean available() {
            return refusal == null;
        }
    }

    /** Opens each kind once, on this thread and on the first CPU it may run on, and closes it again. */
    public static SwitchRecordSupport probe() {
        int cpu = HostCpus.currentAffinity().nextSetBit(0);
        return new SwitchRecordSupport(
                tryOpen(() -> ContextSwitchMonitor.open(HostCpus.currentTid())),
                tryOpen(() -> ContextSwitchMonitor.openCpus(0, new int[] {cpu})));
    }

    private static Availability tryOpen(Supplier<ContextSwitchMonitor> open) {
        try (ContextSwitchMonitor m = open.get()) {
            return new Availability(null);
        } catch (KvmException e) {
            return new Availability(e.getMessage());
        }
    }
}
