package org.jkvm.experiment;

import java.util.Arrays;
import java.util.Collection;

/**
 * Summary of one cell's numbers. NaN inputs are dropped; with no numbers every field but n is
 * NaN; with one the sample stdev is NaN (undefined), not 0.
 *
 * @param n      numbers summarised
 * @param mean   arithmetic mean
 * @param stdev  sample standard deviation (divides by n - 1)
 * @param median middle number, or the mean of the two middle ones
 * @param min    smallest
 * @param max    largest
 */
public record Stats(int n, double mean, double stdev, double median, double min, double max) {
    public static final Stats EMPTY = new Stats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    public static Stats of(Collection<Double> values) {
        return of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    public static Stats of(double... values) {
        double[] v = Arrays.stream(values).filter(Double::isFinite).sorted().toArray();
        int n = v.length;
        if (n == 0) return EMPTY;
        double sum = 0;
        for (double x : v) sum += x;
        double mean = sum / n;
        double ss = 0;
        for (double x : v) ss += (x - mean) * (x - mean);
        double stdev = n > 1 ? Math.sqrt(ss / (n - 1)) : Double.NaN;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        return new Stats(n, mean, stdev, median, v[0], v[n - 1]);
    }

    /** (max - min) / |median| x 100: how far apart the runs were, in percent; NaN when undefined. */
    public double spreadPercent() {
        return n == 0 || median == 0 ? Double.NaN : (max - min) / Math.abs(median) * 100;
    }

    /** Sample stdev / |mean| x 100 (coefficient of variation). */
    public double cvPercent() {
        return mean == 0 ? Double.NaN : stdev / Math.abs(mean) * 100;
    }
}
