package org.jkvm.experiment;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How sure a variant's median is against the base's: a 95% percentile-bootstrap interval of the
 * variant's median relative to the base's median (base = 100, higher is better, as
 * {@link Compare#relative}). Each sample is resampled with replacement on its own, the relative
 * performance of the two resampled medians is collected, and the 2.5th and 97.5th percentiles
 * bound the interval. Written here because neither commons-math3 nor commons-statistics offers a
 * bootstrap; the fixed seed makes a report the same every time it is made from the same log.
 *
 * @param low  lower bound (base = 100; in the sample's units for {@link #ofMedian}), NaN when undefined
 * @param high upper bound
 */
public record MedianInterval(double low, double high) {
    /** No interval: fewer than two runs on either side, or non-positive values. */
    public static final MedianInterval NONE = new MedianInterval(Double.NaN, Double.NaN);
    static final int RESAMPLES = 10_000;
    private static final long SEED = 0x6a6b766d;

    /** The interval of {@code variant} against {@code base}; NaN values are left out. */
    public static MedianInterval of(double[] base, double[] variant, Direction better) {
        double[] b = Arrays.stream(base).filter(Double::isFinite).toArray();
        double[] v = Arrays.stream(variant).filter(Double::isFinite).toArray();
        if (b.length < 2 || v.length < 2) return NONE;
        SplittableRandom rnd = new SplittableRandom(SEED);
        double[] rel = new double[RESAMPLES];
        double[] bs = new double[b.length];
        double[] vs = new double[v.length];
        int n = 0;
        for (int i = 0; i < RESAMPLES; i++) {
            double r = Compare.relative(median(resample(b, bs, rnd)), median(resample(v, vs, rnd)), better);
            if (Double.isFinite(r)) rel[n++] = r;
        }
        if (n < RESAMPLES / 2) return NONE;
        Arrays.sort(rel, 0, n);
        return new MedianInterval(rel[(int) Math.floor(0.025 * (n - 1))], rel[(int) Math.ceil(0.975 * (n - 1))]);
    }

    /**
     * A 95% percentile-bootstrap interval of one sample's own median, in the sample's units (not
     * against a base: {@link #verdict} does not apply); NaN values are left out.
     */
    public static MedianInterval ofMedian(double[] sample) {
        double[] x = Arrays.stream(sample).filter(Double::isFinite).toArray();
        if (x.length < 2) return NONE;
        SplittableRandom rnd = new SplittableRandom(SEED);
        double[] medians = new double[RESAMPLES];
        double[] xs = new double[x.length];
        for (int i = 0; i < RESAMPLES; i++) medians[i] = median(resample(x, xs, rnd));
        Arrays.sort(medians);
        return new MedianInterval(medians[(int) Math.floor(0.025 * (RESAMPLES - 1))],
                medians[(int) Math.ceil(0.975 * (RESAMPLES - 1))]);
    }

    /** "better" or "worse" where the interval leaves out 100 (no change), else "not resolved"; "n/a" without one. */
    public String verdict() {
        if (!Double.isFinite(low) || !Double.isFinite(high)) return "n/a";
        if (low > 100) return "better";
        if (high < 100) return "worse";
        return "not resolved";
    }

    private static double[] resample(double[] from, double[] into, SplittableRandom rnd) {
        for (int i = 0; i < into.length; i++) into[i] = from[rnd.nextInt(from.length)];
        return into;
    }

    private static double median(double[] x) {
        Arrays.sort(x);
        int n = x.length;
        return n % 2 == 1 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    }
}
