package org.jkvm.experiment;

import java.util.Arrays;

import org.apache.commons.math3.exception.MathIllegalArgumentException;
import org.apache.commons.math3.stat.inference.TTest;

/**
 * Whether a variant differs from the base at all: the two-sided p-value of Welch's t-test
 * (unequal variances) on the logarithms of the runs' values, so that a ratio counts the same
 * whichever way it goes and the long right tail of overcommitted runs weighs less. It answers a
 * different question from {@link MedianInterval} (means of logs, not medians) and sits beside it.
 */
public final class LogWelch {
    private LogWelch() {}

    /**
     * The p-value of {@code variant} against {@code base}; NaN where it is undefined: fewer than two
     * positive finite values on either side, or no spread on both.
     */
    public static double p(double[] base, double[] variant) {
        double[] b = logs(base);
        double[] v = logs(variant);
        if (b.length < 2 || v.length < 2) return Double.NaN;
        try {
            return new TTest().tTest(b, v);
        } catch (MathIllegalArgumentException e) {
            return Double.NaN;
        }
    }

    private static double[] logs(double[] x) {
        return Arrays.stream(x).filter(d -> Double.isFinite(d) && d > 0).map(Math::log).toArray();
    }
}
