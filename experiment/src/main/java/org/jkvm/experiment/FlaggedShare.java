package org.jkvm.experiment;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How much of one run's workload the guest saw its vCPUs as preempted: the vCPUs' mean share of
 * the workload's window with {@code preempted} set (userspace mode: of the time, from jkvm's own
 * writes; kernel mode: of the sampler's reads of the host kernel's flag), over every VM of the
 * run. A run records it where PV lock was on and measured and every guest printed both edges
 * of its window; the boot and the power-off are left out, as for KVM's statistics.
 *
 * @param pct the share, percent
 */
public record FlaggedShare(double pct) {
    static final String PCT = "preempted_pct_workload";

    /** Adds the mean of the VMs' shares (0 to 1, NaN where a VM measured none) to a run's host figures, where any is known. */
    static void put(Map<String, Number> host, List<Double> vmShares) {
        double mean = vmShares.stream().mapToDouble(Double::doubleValue).filter(Double::isFinite).average().orElse(Double.NaN);
        if (Double.isFinite(mean)) host.put(PCT, 100 * mean);
    }

    /** What a successful run recorded, if it recorded it. */
    static Optional<FlaggedShare> of(RunResult r) {
        Number pct = r.host().get(PCT);
        return r.ok() && pct != null ? Optional.of(new FlaggedShare(pct.doubleValue())) : Optional.empty();
    }

    /**
     * A cell's runs: the median share with a 95% bootstrap interval of it ({@link MedianInterval#ofMedian}),
     * so that two variants' shares can be told apart.
     *
     * @param runs     runs that recorded it
     * @param pct      the median share, percent
     * @param interval its interval
     */
    public record Summary(int runs, double pct, MedianInterval interval) {
        /** The summary of {@code runs}, or null for none. */
        static Summary of(List<FlaggedShare> runs) {
            if (runs.isEmpty()) return null;
            double[] pcts = runs.stream().mapToDouble(FlaggedShare::pct).toArray();
            return new Summary(runs.size(), Stats.of(pcts).median(), MedianInterval.ofMedian(pcts));
        }
    }
}
