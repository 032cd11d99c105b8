package org.jkvm.pvlock;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The switch-to-flag delays a report reads: the quantile's bound is the top of its power-of-two
 * bucket (never above the largest delay), and a run with several VMs reads one histogram of all
 * their trackers' switches.
 */
@Tag("unit")
class StalenessHistogramTest {

    @Test
    void aQuantileIsBoundedByTheTopOfItsBucketAndByTheLargestDelay() {
        StalenessHistogram h = new StalenessHistogram();
        for (int i = 0; i < 98; i++) h.record(1_000);
        h.record(40_000);
        h.record(300_000);
        assertEquals(100, h.count());
        assertEquals(1023, h.quantileNanos(0.5), "1000 ns lies in [512, 1024)");
        assertEquals(65_535, h.quantileNanos(0.99), "the 99th of 100 delays is 40 us, in [32768, 65536)");
        assertEquals(300_000, h.quantileNanos(1.0), "the top bucket's bound is cut to the largest delay");
        assertEquals((98 * 1_000 + 40_000 + 300_000) / 100, h.meanNanos());
    }

    @Test
    void mergedHoldsEverySwitchOfItsParts() {
        StalenessHistogram a = new StalenessHistogram();
        StalenessHistogram b = new StalenessHistogram();
        for (int i = 0; i < 99; i++) a.record(2_000);
        b.record(5_000_000);

        StalenessHistogram m = StalenessHistogram.merged(List.of(a, b, new StalenessHistogram()));

        assertEquals(100, m.count());
        assertEquals((99 * 2_000 + 5_000_000) / 100, m.meanNanos());
        assertEquals(5_000_000, m.maxNanos());
        assertEquals(2_047, m.p99BoundNanos(), "99 of the 100 switches took 2 us");
        assertEquals(5_000_000, m.quantileNanos(0.999), "b's switch is the slowest of all");
        assertEquals(1, b.count(), "merging leaves its parts as they were");
    }

    @Test
    void nothingMeasuredReadsAsZero() {
        StalenessHistogram m = StalenessHistogram.merged(List.of());
        assertEquals(0, m.count());
        assertEquals(0, m.meanNanos());
        assertEquals(0, m.quantileNanos(0.99));
    }
}
