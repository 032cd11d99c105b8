package org.jkvm.experiment;

import java.util.BitSet;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Host CPUs' idle time from /proc/stat. */
@Tag("unit")
class HostIdleTest {
    private static final String STAT = """
            cpu  100 0 50 900 10 0 0 0 0 0
            cpu0 50 0 25 400 5 0 0 0 0 0
            cpu2 50 0 25 500 5 0 0 0 0 0
            intr 12345 0 0
            ctxt 999
            """;

    @Test
    void readsIdleAndIowaitPerCpuAndMarksAnOfflineCpuMissing() {
        assertArrayEquals(new long[] {405, -1, 505}, HostIdle.parse(STAT).ticks());
    }

    @Test
    void countsOnlyTheGivenCpusInTicksOfTenMilliseconds() {
        HostIdle start = new HostIdle(new long[] {405, -1, 505});
        HostIdle end = new HostIdle(new long[] {455, 30, 805});
        BitSet cpus = new BitSet();
        cpus.set(0);
        cpus.set(1);
        assertEquals(500_000_000L, start.idleNanos(end, cpus), "CPU 0 idle 50 ticks; CPU 1 missing at the start adds nothing");
    }

    @Test
    void thisHostsFileReads() {
        HostIdle now = HostIdle.now().orElseThrow();
        assertTrue(now.ticks().length >= 1 && now.ticks()[0] >= 0, "cpu0 listed with its idle ticks");
    }
}
