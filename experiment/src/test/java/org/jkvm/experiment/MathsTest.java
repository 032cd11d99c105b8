package org.jkvm.experiment;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's maths on hand-computed examples (and the seeds' own numbers). */
@Tag("unit")
class MathsTest {
    static final double EPS = 1e-9;

    @Test
    void statsOfEightNumbers() {
        // mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7
        Stats s = Stats.of(2, 4, 4, 4, 5, 5, 7, 9);
        assertEquals(8, s.n());
        assertEquals(5.0, s.mean(), EPS);
        assertEquals(Math.sqrt(32.0 / 7), s.stdev(), EPS);
        assertEquals(2.138089935299395, s.stdev(), EPS);
        assertEquals(4.5, s.median(), EPS);
        assertEquals(2.0, s.min());
        assertEquals(9.0, s.max());
        assertEquals((9 - 2) / 4.5 * 100, s.spreadPercent(), EPS);
    }

    @Test
    void statsOfOddCountUnsortedInput() {
        Stats s = Stats.of(3, 1, 2);
        assertEquals(new Stats(3, 2, 1, 2, 1, 3), s);
    }

    @Test
    void statsDropNaNAndHandleOneAndNone() {
        Stats one = Stats.of(Double.NaN, 5, Double.POSITIVE_INFINITY);
        assertEquals(1, one.n());
        assertEquals(5.0, one.mean());
        assertEquals(5.0, one.median());
        assertTrue(Double.isNaN(one.stdev()), "sample stdev of one number is undefined");
        assertEquals(0.0, one.spreadPercent());
        Stats none = Stats.of(List.of());
        assertEquals(Stats.EMPTY, none);
        assertEquals(0, none.n());
        assertTrue(Double.isNaN(none.mean()) && Double.isNaN(none.median()) && Double.isNaN(none.min()));
        assertTrue(Double.isNaN(none.spreadPercent()));
        assertEquals(Stats.EMPTY, Stats.of(Double.NaN));
    }

    @Test
    void percentChangeHigherIsBetterMatchesTheSeedTable() {
        // UnixBench on 128 vCPUs, 6.0.0 base vs +vcpu_is_preempted
        assertEquals(277.79233540779563, Compare.percentChange(3053, 11534, Direction.HIGHER), 1e-9);
        assertEquals(1412.548963, Compare.percentChange(689.3, 10426, Direction.HIGHER), 1e-6);
        assertEquals(-2.557289937, Compare.percentChange(301.1, 293.4, Direction.HIGHER), 1e-9);
    }

    @Test
    void percentChangeLowerIsBetterIsTheRateChange() {
        // kernbench in 16-vCPU guests: 19m35.827s unpatched, 13m34.674s patched: 30.7% less time = 44.3% faster
        assertEquals((1175.827 / 814.674 - 1) * 100, Compare.percentChange(1175.827, 814.674, Direction.LOWER), 1e-9);
        assertEquals(44.330983927, Compare.percentChange(1175.827, 814.674, Direction.LOWER), 1e-6);
        // host kernbench -j 8 elapsed: 312.538 -> 311.974, close to the 0.180% of time saved
        assertEquals(0.180784296, Compare.percentChange(312.538, 311.974, Direction.LOWER), 1e-6);
        assertEquals(100.0, Compare.percentChange(20, 10, Direction.LOWER), EPS);
        assertEquals(-50.0, Compare.percentChange(10, 20, Direction.LOWER), EPS);
        assertEquals(100.0, Compare.percentChange(10, 20, Direction.HIGHER), EPS);
        assertEquals(Compare.relative(16, 12, Direction.LOWER) - 100, Compare.percentChange(16, 12, Direction.LOWER), EPS);
    }

    @Test
    void percentChangeUndefinedCases() {
        assertTrue(Double.isNaN(Compare.percentChange(0, 5, Direction.HIGHER)));
        assertTrue(Double.isNaN(Compare.percentChange(5, 0, Direction.LOWER)));
        assertTrue(Double.isNaN(Compare.percentChange(Double.NaN, 5, Direction.HIGHER)));
        assertTrue(Double.isNaN(Compare.percentChange(5, Double.NaN, Direction.LOWER)));
    }

    @Test
    void wonBackHigherIsBetter() {
        // no overcommit 200 ops/s, overcommitted base 100, variant 150: half the collapse won back
        assertEquals(50.0, Compare.wonBack(100, 150, 200), EPS);
        assertEquals(0.0, Compare.wonBack(100, 100, 200), EPS);
        assertEquals(100.0, Compare.wonBack(100, 200, 200), EPS);
        assertEquals(110.0, Compare.wonBack(100, 210, 200), EPS);
        assertEquals(-10.0, Compare.wonBack(100, 90, 200), EPS);
    }

    @Test
    void wonBackLowerIsBetterNeedsNoSignFlip() {
        // 10 s without overcommit, 20 s overcommitted, 12 s with the variant: 80% won back
        assertEquals(80.0, Compare.wonBack(20, 12, 10), EPS);
        assertEquals(-20.0, Compare.wonBack(20, 22, 10), EPS);
    }

    @Test
    void aCollapseMustBeBiggerThanTheSpreadToBeWonBack() {
        Stats base = Stats.of(90, 100, 110);   // mean 100, stdev 10
        assertTrue(Compare.measurableCollapse(base, Stats.of(115, 125, 135), Direction.HIGHER), "25 > 10 + 10");
        assertFalse(Compare.measurableCollapse(base, Stats.of(105, 115, 125), Direction.HIGHER), "15 < 10 + 10: noise");
        assertFalse(Compare.measurableCollapse(base, Stats.of(50, 60, 70), Direction.HIGHER), "the reference is worse");
        assertTrue(Compare.measurableCollapse(base, Stats.of(50, 60, 70), Direction.LOWER), "lower is better: 40 > 20");
        assertTrue(Compare.measurableCollapse(Stats.of(100), Stats.of(101), Direction.HIGHER), "single runs: no spread");
        assertFalse(Compare.measurableCollapse(base, Stats.EMPTY, Direction.HIGHER), "no reference runs");
    }

    @Test
    void wonBackIsUndefinedWhenTheReferenceIsAboutTheBase() {
        assertTrue(Double.isNaN(Compare.wonBack(100, 150, 100)));
        assertTrue(Double.isNaN(Compare.wonBack(100, 150, 100.5)), "0.5% apart: below the 1% gap");
        assertEquals(2500.0, Compare.wonBack(100, 150, 102), 1e-6, "2% apart: defined");
        assertTrue(Double.isNaN(Compare.wonBack(100, Double.NaN, 200)));
        assertTrue(Double.isNaN(Compare.wonBack(Double.NaN, 1, 200)));
        assertEquals(50.0, Compare.wonBack(100, 100.25, 100.5, 0.001), 1e-9, "a smaller gap can be chosen");
    }

    @Test
    void relativePerformanceAndGeomean() {
        assertEquals(200.0, Compare.relative(20, 10, Direction.LOWER), EPS);
        assertEquals(50.0, Compare.relative(20, 10, Direction.HIGHER), EPS);
        assertTrue(Double.isNaN(Compare.relative(0, 10, Direction.HIGHER)));
        assertTrue(Double.isNaN(Compare.relative(10, 0, Direction.LOWER)));
        assertEquals(0.0, Compare.geomeanChange(List.of(200.0, 50.0)), EPS);
        assertEquals(10.0, Compare.geomeanChange(List.of(121.0, 100.0)), 1e-9);
        assertEquals(10.0, Compare.geomeanChange(List.of(121.0, Double.NaN, 100.0)), 1e-9);
        assertTrue(Double.isNaN(Compare.geomeanChange(List.of(Double.NaN))));
    }
}
