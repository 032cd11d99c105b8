package org.jkvm.pvlock;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A window's share of flagged time between two marks, as an experiment takes them at a workload's edges. */
@Tag("unit")
class FlagMarkTest {
    private static final long MS = 1_000_000L;

    @Test
    void kernelModeCountsTheReadsInTheWindowOnly() {
        // vCPU 0: 100 reads before (all set: boot's preemptions), then 200 of which 50 set; vCPU 1: 300, 30 set
        FlagMark start = new FlagMark.Sampled(new long[] {100, 0}, new long[] {100, 0});
        FlagMark end = new FlagMark.Sampled(new long[] {300, 300}, new long[] {150, 30});
        assertEquals((0.25 + 0.10) / 2, FlagMark.meanShare(start, end), 1e-12);
    }

    @Test
    void aVcpuWithoutReadsInTheWindowHasNoShare() {
        FlagMark start = new FlagMark.Sampled(new long[] {10, 0}, new long[] {0, 0});
        FlagMark end = new FlagMark.Sampled(new long[] {20, 0}, new long[] {5, 0});
        assertEquals(0.5, FlagMark.meanShare(start, end), 1e-12, "vCPU 1 never ran: the mean is vCPU 0's");
        assertTrue(Double.isNaN(FlagMark.meanShare(start, start)), "no read at all");
    }

    @Test
    void userspaceModeTimesTheWindowAndAVcpuStartedInItFromItsStart() {
        // the window runs 1000 ms; vCPU 0 flagged 300 ms in it; vCPU 1's thread started 500 ms in, flagged 100 ms since
        FlagMark start = new FlagMark.Timed(1000 * MS, new long[] {40 * MS, 0}, new long[] {10 * MS, -1});
        FlagMark end = new FlagMark.Timed(2000 * MS, new long[] {340 * MS, 100 * MS}, new long[] {10 * MS, 1500 * MS});
        assertEquals((0.3 + 0.2) / 2, FlagMark.meanShare(start, end), 1e-12);
    }

    @Test
    void marksOfTwoModesHaveNoShare() {
        FlagMark sampled = new FlagMark.Sampled(new long[] {10}, new long[] {1});
        FlagMark timed = new FlagMark.Timed(0, new long[] {0}, new long[] {0});
        assertTrue(Double.isNaN(FlagMark.meanShare(sampled, timed)));
    }
}
