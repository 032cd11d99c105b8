package org.jkvm.pvlock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The per-VM sums every front end reports. */
@Tag("unit")
class PvLockTotalsTest {
    @Test
    void sumsEveryCounterOverTheVcpus() {
        PvLockStats s = new PvLockStats(3);
        s.pvLockCall(0);
        s.pvLockCall(2);
        s.featureCall(1);
        s.preemptedWritten(0, true);
        s.preemptedWritten(1, true);
        s.preemptedWritten(1, false);
        s.changeSeen(2);
        s.preemption(0);
        s.voluntarySwitchOut(1);
        s.voluntarySwitchOut(2);
        assertEquals(new PvLockTotals(1, 2, 2, 1, 1, 1, 2, 0.0), s.totals());
    }

    @Test
    void theShareIsTheMeanOverVcpusCountingUnmeasuredOnesAsZero() {
        PvLockStats s = new PvLockStats(2);
        s.sampled(0, true);
        s.sampled(0, false);
        assertEquals(0.25, s.totals().preemptedShare(), 1e-12);
    }
}
