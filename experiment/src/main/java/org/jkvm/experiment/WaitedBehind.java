package org.jkvm.experiment;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

import org.jkvm.pvlock.Preemptors;

/**
 * Who one run's vCPUs waited behind while preempted ({@link org.jkvm.pvlock.PreemptorWatch}), over
 * every VM of the run: the time charged to vCPU threads (the overcommit itself), to jkvm's own
 * threads, and to the rest of the host. A run records it among its host figures when the spec
 * says {@code "preemptors": "on"}.
 *
 * @param preemptions switches of a vCPU thread out while still runnable
 * @param vcpusMs     waiting charged to vCPU threads, milliseconds summed over vCPUs
 * @param vmmMs       waiting charged to jkvm's other threads
 * @param otherMs     waiting charged to other processes (and the idle task)
 * @param workload    whether the figures span the workload's window (every VM printed both its
 *                    edges, as for KVM's statistics) rather than the whole run, boot and power-off
 *                    included (results recorded before the window existed say nothing: the run)
 * @param lost        switch records the kernel dropped as a CPU's ring was full, or -1 where the run did not record it
 * @param ringsFull   how many times a CPU's ring was found full (records may have been dropped there that no count
 *                    reached, at the run's end), or -1 where the run did not record it (results logged before jkvm
 *                    counted them); either leaves the waits there uncharged, so the figures short
 */
public record WaitedBehind(long preemptions, double vcpusMs, double vmmMs, double otherMs, boolean workload, long lost,
                           long ringsFull) {
    static final String PREEMPTIONS = "preemptor_preemptions";
    static final String VCPUS_MS = "ms_waited_behind_vcpus";
    static final String VMM_MS = "ms_waited_behind_vmm";
    static final String OTHER_MS = "ms_waited_behind_other";
    static final String LOST = "preemptor_records_lost";
    static final String RINGS_FULL = "preemptor_rings_full";
    /** 1 when the figures span the workload's window, 0 when the whole run. */
    static final String OVER_WORKLOAD = "preemptors_over_workload";

    /** Adds the tallies of a run's VMs to its host figures, each over its workload's window if {@code workload}. */
    static void put(Map<String, Number> host, List<Preemptors> vms, boolean workload) {
        long preemptions = 0, lost = 0, ringsFull = 0;
        long[] byKind = new long[Preemptors.Kind.values().length];
        for (Preemptors p : vms) {
            preemptions += p.preemptions();
            lost += p.lostRecords();
            ringsFull += p.ringsFull();
            for (Preemptors.Row r : p.rows()) byKind[r.who().kind().ordinal()] += r.nanos();
        }
        host.put(PREEMPTIONS, preemptions);
        host.put(VCPUS_MS, byKind[Preemptors.Kind.VCPU.ordinal()] / 1e6);
        host.put(VMM_MS, byKind[Preemptors.Kind.VMM.ordinal()] / 1e6);
        host.put(OTHER_MS, (byKind[Preemptors.Kind.OTHER.ordinal()] + byKind[Preemptors.Kind.IDLE.ordinal()]) / 1e6);
        host.put(LOST, lost);
        host.put(RINGS_FULL, ringsFull);
        host.put(OVER_WORKLOAD, workload ? 1 : 0);
    }

    /** What a successful run recorded, if it recorded it. */
    static Optional<WaitedBehind> of(RunResult r) {
        Map<String, Number> h = r.host();
        if (!r.ok() || !h.containsKey(PREEMPTIONS) || !h.containsKey(VCPUS_MS) || !h.containsKey(VMM_MS)
                || !h.containsKey(OTHER_MS)) {
            return Optional.empty();
        }
        return Optional.of(new WaitedBehind(h.get(PREEMPTIONS).longValue(), h.get(VCPUS_MS).doubleValue(),
                h.get(VMM_MS).doubleValue(), h.get(OTHER_MS).doubleValue(),
                h.containsKey(OVER_WORKLOAD) && h.get(OVER_WORKLOAD).intValue() == 1,
                RecordedCount.of(h, LOST), RecordedCount.of(h, RINGS_FULL)));
    }

    /** All the waiting charged, milliseconds. */
    double totalMs() {
        return vcpusMs + vmmMs + otherMs;
    }

    private double share(double ms) {
        double t = totalMs();
        return t > 0 ? 100 * ms / t : Double.NaN;
    }

    /**
     * A cell's runs, each figure the median over them (a share is each run's own, then the median).
     *
     * @param runs        runs that recorded it
     * @param overWorkload how many of them over their workload's window (the others over the whole run)
     * @param preemptions median preemptions per run
     * @param waitedMs    median waiting charged per run, milliseconds
     * @param waitedInterval a 95% bootstrap interval of that median ({@link MedianInterval#ofMedian}), so
     *                    two variants' waits can be told apart
     * @param vcpusPct    median share charged to vCPU threads, percent
     * @param vmmPct      median share charged to jkvm's own threads
     * @param otherPct    median share charged to the rest of the host
     * @param lost        switch records the kernel dropped, summed over the runs that counted them (-1 where none did)
     * @param ringsFull   times a CPU's ring was found full, summed as {@code lost}
     */
    public record Summary(int runs, int overWorkload, double preemptions, double waitedMs, MedianInterval waitedInterval,
                          double vcpusPct, double vmmPct, double otherPct, long lost, long ringsFull) {
        /** The summary of {@code runs}, or null for none. */
        static Summary of(List<WaitedBehind> runs) {
            if (runs.isEmpty()) return null;
            double[] waits = runs.stream().mapToDouble(WaitedBehind::totalMs).toArray();
            return new Summary(runs.size(), (int) runs.stream().filter(WaitedBehind::workload).count(),
                    median(runs, WaitedBehind::preemptions), Stats.of(waits).median(),
                    MedianInterval.ofMedian(waits),
                    median(runs, w -> w.share(w.vcpusMs)), median(runs, w -> w.share(w.vmmMs)),
                    median(runs, w -> w.share(w.otherMs)),
                    RecordedCount.sum(runs.stream().mapToLong(WaitedBehind::lost).toArray()),
                    RecordedCount.sum(runs.stream().mapToLong(WaitedBehind::ringsFull).toArray()));
        }

        private static double median(List<WaitedBehind> runs, ToDoubleFunction<WaitedBehind> figure) {
            // Stats leaves out NaN: the shares of a run with no wait at all.
            return Stats.of(runs.stream().mapToDouble(figure).toArray()).median();
        }
    }
}
