package org.jkvm.experiment;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import org.apache.commons.math3.stat.correlation.SpearmansCorrelation;

/**
 * How fast the host ran over one cell's runs, gauged by each run's time from its start to its
 * guests' ready line ({@link ExperimentRunner#READY_MS}: the same VMM set-up and guest boot in
 * every run of a cell, so what moves it is the host), and whether the cell's results followed
 * it. An emulated or shared host changes speed with its neighbours (on 2026-12-07 the emulated
 * arm64 host's runs took ~4.5 s to ready early in one sweep and 6-8 s later, and throughput fell with them):
 * cells interleave, so such a drift widens every cell's spread alike, but a variant whose results
 * follow the host's speed more steeply than the base's moves with it in the comparison.
 *
 * @param runs        the cell's successful runs with a ready time
 * @param firstHalfMs the median ready time of the first half of them, in the order they started
 * @param lastHalfMs  the median of the last half (an odd count leaves the middle run out)
 * @param rho         Spearman's rank correlation of ready time and result over all of them (NaN
 *                    where either is constant)
 */
public record RigDrift(int runs, double firstHalfMs, double lastHalfMs, double rho) {
    /** Fewer runs than this give no halves worth comparing. */
    static final int MIN_RUNS = 4;

    /** Above 1, the host ran slower in the last half of the cell's runs than in the first. */
    public double slowdown() {
        return lastHalfMs / firstHalfMs;
    }

    /** The gauge of a cell's runs, or null where fewer than {@link #MIN_RUNS} succeeded with a ready time and a start. */
    static RigDrift of(List<RunResult> cell) {
        List<RunResult> timed = cell.stream()
                .filter(r -> r.ok() && r.started() != null && r.host().get(ExperimentRunner.READY_MS) != null)
                .sorted(Comparator.comparing(RunResult::started))
                .toList();
        int n = timed.size();
        if (n < MIN_RUNS) return null;
        double[] ready = timed.stream().mapToDouble(r -> r.host().get(ExperimentRunner.READY_MS).doubleValue()).toArray();
        double[] value = timed.stream().mapToDouble(RunResult::value).toArray();
        int half = n / 2;
        return new RigDrift(n, Stats.of(Arrays.copyOfRange(ready, 0, half)).median(),
                Stats.of(Arrays.copyOfRange(ready, n - half, n)).median(), new SpearmansCorrelation().correlation(ready, value));
    }
}
