package org.jkvm.experiment;

import java.util.List;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * What the guests' own counters ({@link RunGuestStats}) say about one run, or the mean of several
 * runs: each figure is taken per VM over its window and averaged over the VMs; NaN where the
 * counters cannot give it.
 *
 * @param stealPercent          steal time as a share of all CPU time of the window (/proc/stat)
 * @param runDelayMsPerSecond   time runnable tasks waited on run queues, summed over the CPUs, per
 *                              second of the window (/proc/schedstat)
 * @param runDelayUsPerOp       the same per operation of the workload (for a result in ops/s)
 * @param reschedPerSecond      rescheduling IPIs per second of the window, all CPUs
 * @param spinSlowpathsPerSecond queued spinlocks taken on their slow path per second (debugfs
 *                              lock_event_counts; NaN on a kernel without them)
 */
public record GuestFigures(double stealPercent, double runDelayMsPerSecond, double runDelayUsPerOp,
                           double reschedPerSecond, double spinSlowpathsPerSecond) {
    /** /proc/interrupts' row of the rescheduling IPI. */
    static final String RESCHED = "irq.Rescheduling interrupts";
    /** The queued spinlock's slow-path counter. */
    static final String SPIN_SLOWPATH = "lock.lock_slowpath";
    /** The /proc/stat fields that add up to all CPU time (guest time is already in user). */
    private static final List<String> TIME = GuestCounters.CPU_FIELDS.subList(0, 8);

    /** The figures of a successful run whose guests printed their counters; {@code seconds} is its workload's. */
    static Optional<GuestFigures> of(RunResult r, int seconds) {
        RunGuestStats g = r.guest();
        if (!r.ok() || g == null || g.vms().size() != r.vmValues().size()
                || g.vms().stream().anyMatch(v -> v.unavailable() != null || v.change("uptime_cs") <= 0)) {
            return Optional.empty();
        }
        boolean perOp = r.unit().endsWith("ops/s");
        double steal = 0, delay = 0, delayPerOp = 0, resched = 0, slow = 0;
        int n = g.vms().size();
        for (int i = 0; i < n; i++) {
            RunGuestStats.Vm v = g.vms().get(i);
            double window = v.change("uptime_cs") / 100.0;
            long total = TIME.stream().mapToLong(f -> v.change("cpu." + f)).sum();
            steal += total == 0 ? Double.NaN : 100.0 * v.change("cpu.steal") / total;
            boolean sched = v.changes().containsKey("run_delay_ns");
            delay += sched ? v.change("run_delay_ns") / 1e6 / window : Double.NaN;
            double ops = r.vmValues().get(i) * seconds;
            delayPerOp += sched && perOp && ops > 0 ? v.change("run_delay_ns") / 1e3 / ops : Double.NaN;
            resched += v.change(RESCHED) / window;
            boolean locks = v.changes().keySet().stream().anyMatch(k -> k.startsWith("lock."));
            slow += locks ? v.change(SPIN_SLOWPATH) / window : Double.NaN;
        }
        return Optional.of(new GuestFigures(steal / n, delay / n, delayPerOp / n, resched / n, slow / n));
    }

    /** The mean of each figure over {@code runs}; null for none. */
    static GuestFigures mean(List<GuestFigures> runs) {
        if (runs.isEmpty()) return null;
        return new GuestFigures(avg(runs, GuestFigures::stealPercent), avg(runs, GuestFigures::runDelayMsPerSecond),
                avg(runs, GuestFigures::runDelayUsPerOp), avg(runs, GuestFigures::reschedPerSecond),
                avg(runs, GuestFigures::spinSlowpathsPerSecond));
    }

    private static double avg(List<GuestFigures> runs, ToDoubleFunction<GuestFigures> f) {
        return runs.stream().mapToDouble(f).average().orElse(Double.NaN);
    }
}
