package org.jkvm.experiment;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The bootstrap interval of a median against the base: resolved only where the samples really differ. */
@Tag("unit")
class MedianIntervalTest {
    static final double[] BASE = {98, 101, 99, 103, 100, 97, 102, 100, 99, 101};

    @Test
    void samplesFromTheSameSpreadAreNotResolved() {
        double[] same = {100, 102, 98, 99, 101, 103, 97, 100, 101, 99};
        MedianInterval m = MedianInterval.of(BASE, same, Direction.HIGHER);
        assertTrue(m.low() < 100 && m.high() > 100, m.toString());
        assertEquals("not resolved", m.verdict());
    }

    @Test
    void identicalSamplesAreNotResolved() {
        MedianInterval m = MedianInterval.of(BASE, BASE.clone(), Direction.HIGHER);
        assertTrue(m.low() < 100 && m.high() > 100, m.toString());
        assertEquals("not resolved", m.verdict());
        assertTrue(LogWelch.p(BASE, BASE.clone()) > 0.99);
    }

    @Test
    void aClearGainIsBetterInEitherDirection() {
        double[] doubled = {196, 202, 198, 206, 200, 194, 204, 200, 198, 202};
        MedianInterval up = MedianInterval.of(BASE, doubled, Direction.HIGHER);
        assertTrue(up.low() > 180 && up.high() < 220, up.toString());
        assertEquals("better", up.verdict());
        // a time that doubles is half the rate: worse, around 50
        MedianInterval slower = MedianInterval.of(BASE, doubled, Direction.LOWER);
        assertTrue(slower.low() > 45 && slower.high() < 55, slower.toString());
        assertEquals("worse", slower.verdict());
    }

    @Test
    void aWideSpreadWidensTheIntervalAndTooFewRunsGiveNone() {
        double[] noisy = {40, 300, 90, 150, 60, 250, 110, 45, 200, 80};
        MedianInterval m = MedianInterval.of(BASE, noisy, Direction.HIGHER);
        assertTrue(m.high() - m.low() > 50, m.toString());
        assertEquals(MedianInterval.NONE, MedianInterval.of(BASE, new double[] {120}, Direction.HIGHER));
        assertEquals("n/a", MedianInterval.NONE.verdict());
    }

    @Test
    void theSameLogGivesTheSameInterval() {
        double[] v = {110, 120, 105, 130, 115, 125, 108, 118, 122, 111};
        assertEquals(MedianInterval.of(BASE, v, Direction.HIGHER), MedianInterval.of(BASE, v, Direction.HIGHER));
    }

    @Test
    void aSamplesOwnMedianIsBoundedInItsUnitsWithinItsRange() {
        double[] v = {110, 120, 105, 130, 115, 125, 108, 118, 122, 111, Double.NaN};
        MedianInterval m = MedianInterval.ofMedian(v);
        assertTrue(m.low() >= 105 && m.low() < 116.5 && m.high() > 116.5 && m.high() <= 130, m.toString());
        assertEquals(MedianInterval.NONE, MedianInterval.ofMedian(new double[] {110, Double.NaN}), "one run has no interval");
    }
}
