package org.jkvm.experiment;

import java.util.Collection;

/** How variants compare with the base; every function returns NaN where the answer is undefined. */
public final class Compare {
    private Compare() {}

    /**
     * The reference counts as "the same as the base" (won-back undefined) when they differ by less
     * than this fraction of the larger: 1%. Below that, overcommit cost nothing measurable and a
     * won-back percentage would be noise divided by noise.
     */
    public static final double WON_BACK_MIN_GAP = 0.01;

    /**
     * Change of {@code variant} against {@code base} in percent, signed so that + is better:
     * (variant / base - 1) x 100 for higher-is-better (the seeds' "% improvement"), and
     * (base / variant - 1) x 100 for lower-is-better: the change of the equivalent rate, so a time
     * that halves is +100% just as a throughput that doubles is, the chart's bars
     * ({@link #relative} - 100) and the geomean agree with it, and large wins are not squeezed
     * under 100% (the seeds' 1412% would otherwise read 93%). For small changes it is close to
     * the time saved, (base - variant) / base. NaN where a number is missing or not positive.
     */
    public static double percentChange(double base, double variant, Direction better) {
        return relative(base, variant, better) - 100;
    }

    /**
     * How much of the overcommit collapse a variant wins back, in percent:
     * (variant - base) / (reference - base) x 100, where the reference is the no-overcommit run.
     * 0% = no better than the overcommitted base, 100% = as good as no overcommit; beyond 100% is
     * better than no overcommit, below 0% worse than the base. The direction cancels out. NaN
     * when the reference is within {@link #WON_BACK_MIN_GAP} of the base.
     */
    public static double wonBack(double base, double variant, double reference) {
        return wonBack(base, variant, reference, WON_BACK_MIN_GAP);
    }

    /** {@link #wonBack(double, double, double)} with a chosen minimum relative gap. */
    public static double wonBack(double base, double variant, double reference, double minGap) {
        if (!Double.isFinite(base) || !Double.isFinite(variant) || !Double.isFinite(reference)) return Double.NaN;
        double gap = reference - base;
        if (gap == 0 || Math.abs(gap) < minGap * Math.max(Math.abs(base), Math.abs(reference))) return Double.NaN;
        return (variant - base) / gap * 100;
    }

    /**
     * Whether overcommit measurably hurt a workload, so that a won-back share means something: the
     * no-overcommit reference beats the overcommitted base by more than the two standard deviations
     * added (a control such as a CPU loop, whose reference differs from its base by noise, gets none).
     * A single run counts as no spread.
     */
    public static boolean measurableCollapse(Stats base, Stats reference, Direction better) {
        double gap = better == Direction.HIGHER ? reference.mean() - base.mean() : base.mean() - reference.mean();
        double noise = (Double.isFinite(base.stdev()) ? base.stdev() : 0) + (Double.isFinite(reference.stdev()) ? reference.stdev() : 0);
        return Double.isFinite(gap) && gap > noise;
    }

    /**
     * Performance relative to the base, base = 100, higher is better: variant / base x 100 for
     * higher-is-better, base / variant x 100 for lower-is-better (what the chart draws). Needs both positive.
     */
    public static double relative(double base, double value, Direction better) {
        if (!(base > 0) || !(value > 0) || !Double.isFinite(base) || !Double.isFinite(value)) return Double.NaN;
        return better == Direction.HIGHER ? value / base * 100 : base / value * 100;
    }

    /**
     * Geometric mean of relative performances (base = 100) minus 100: an overall change in percent
     * across workloads, like UnixBench's index score. NaN entries are skipped; NaN if none is left.
     */
    public static double geomeanChange(Collection<Double> relatives) {
        double logSum = 0;
        int n = 0;
        for (double r : relatives) {
            if (Double.isFinite(r) && r > 0) {
                logSum += Math.log(r / 100);
                n++;
            }
        }
        return n == 0 ? Double.NaN : (Math.exp(logSum / n) - 1) * 100;
    }
}
