package org.jkvm.experiment;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A 95% percentile-bootstrap interval of a median. Mostly how sure a variant's median is against
 * the base's ({@link #of}): the variant's median relative to the base's median (base = 100,
 * higher is better, as {@link Compare#relative}); each sample is resampled with replacement on its
 * own and the relative performance of the two resampled medians collected. Or one sample's own
 * median, in its units ({@link #ofMedian}; {@link #verdict} does not apply there). The 2.5th and
 * 97.5th percentiles of the resampled figures bound the interval. Written here because neither
 * commons-math3 nor commons-statistics offers a bootstrap; the fixed seed makes a report the same
 * every time it is made from the same log.
 *
 * @param low  lower bound (base = 100, or the sample's units), NaN when undefined
 * @param high upper bound
 */
public record MedianInterval(double low, double high) {
    /** No interval: fewer than two runs (on either side), or too few resamples with a defined figure. */
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
        return bounds(rel, n);
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
        return bounds(medians, RESAMPLES);
    }

    /** The 2.5th and 97.5th percentiles of the first {@code n} figures (sorted here). */
    private static MedianInterval bounds(double[] figures, int n) {
        Arrays.sort(figures, 0, n);
        return new MedianInterval(figures[(int) Math.floor(0.025 * (n - 1))], figures[(int) Math.ceil(0.975 * (n - 1))]);
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
