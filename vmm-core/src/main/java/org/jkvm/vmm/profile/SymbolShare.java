package org.jkvm.vmm.profile;

/**
 * One symbol's share of a vCPU's (or all vCPUs') on-CPU samples, with a 95% Wilson score
 * interval for the share.
 *
 * @param symbol  the symbol, {@code [user]} for EL0, or a hex PC where no symbol covers it
 * @param samples samples that landed in it (weighted)
 * @param share   samples / all samples
 * @param low     the interval's lower end
 * @param high    the interval's upper end
 */
public record SymbolShare(String symbol, long samples, double share, double low, double high) {
    /** z for a two-sided 95% interval. */
    private static final double Z = 1.959963984540054;

    /** {@code k} of {@code n} samples, with the Wilson score interval of k/n. */
    public static SymbolShare of(String symbol, long k, long n) {
        if (n <= 0 || k < 0 || k > n) throw new IllegalArgumentException(k + " of " + n + " samples");
        double p = (double) k / n;
        double z2 = Z * Z;
        double denominator = 1 + z2 / n;
        double centre = (p + z2 / (2.0 * n)) / denominator;
        double half = Z * Math.sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / denominator;
        return new SymbolShare(symbol, k, p, Math.max(0, centre - half), Math.min(1, centre + half));
    }
}
