package org.jkvm.experiment;

import java.util.Locale;

/** Which way a workload's number is better, as the guest's RESULT line says: higher or lower. */
public enum Direction {
    /** Throughput-like: ops/s, loops/s. */
    HIGHER,
    /** Time-like: seconds, ns/op. */
    LOWER;

    /** +1 for higher-is-better, -1 for lower-is-better: multiplies a difference so that + is better. */
    public int sign() {
        return this == HIGHER ? 1 : -1;
    }

    /** Parses "higher" or "lower" (any case). */
    public static Direction parse(String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "higher" -> HIGHER;
            case "lower" -> LOWER;
            default -> throw new IllegalArgumentException("'" + text + "' is neither higher nor lower");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
