package org.jkvm.experiment;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Welch's test on the logs of the runs: small p for separated samples, large for the same spread, NaN where undefined. */
@Tag("unit")
class LogWelchTest {
    @Test
    void separatedSamplesGiveASmallP() {
        double[] doubled = {196, 202, 198, 206, 200, 194, 204, 200, 198, 202};
        assertTrue(LogWelch.p(MedianIntervalTest.BASE, doubled) < 1e-10);
    }

    @Test
    void theSameSpreadGivesALargeP() {
        double[] same = {100, 102, 98, 99, 101, 103, 97, 100, 101, 99};
        assertTrue(LogWelch.p(MedianIntervalTest.BASE, same) > 0.5);
    }

    @Test
    void aRatioCountsTheSameEitherWay() {
        double[] up = {105, 120, 101, 130, 112};
        double[] down = new double[up.length];
        double[] inverted = new double[MedianIntervalTest.BASE.length];
        for (int i = 0; i < up.length; i++) down[i] = 10_000 / up[i];
        for (int i = 0; i < MedianIntervalTest.BASE.length; i++) inverted[i] = 10_000 / MedianIntervalTest.BASE[i];
        assertEquals(LogWelch.p(MedianIntervalTest.BASE, up), LogWelch.p(inverted, down), 1e-12);
    }

    @Test
    void undefinedWithoutTwoRunsOrAnySpread() {
        assertTrue(Double.isNaN(LogWelch.p(MedianIntervalTest.BASE, new double[] {120, Double.NaN})));
        assertTrue(Double.isNaN(LogWelch.p(new double[] {5, 5, 5}, new double[] {5, 5})));
        assertTrue(Double.isNaN(LogWelch.p(MedianIntervalTest.BASE, new double[] {0, -1, 3})));
    }
}
