package org.jkvm.experiment;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** A workload window's account: its length, the vCPU threads' run and wait times in it, the idle time of their CPUs. */
@Tag("unit")
class WindowTimesTest {
    private static final long MS = 1_000_000;

    private static EdgeCounts edge(long atMs, Optional<List<ThreadSchedStat>> threads, long... idleTicks) {
        return new EdgeCounts(atMs * MS, null, Optional.empty(), Optional.empty(), threads,
                idleTicks.length == 0 ? Optional.empty() : Optional.of(new HostIdle(idleTicks)));
    }

    private static Optional<List<ThreadSchedStat>> threads(long... onThenWaitingMs) {
        List<ThreadSchedStat> all = new java.util.ArrayList<>();
        for (int i = 0; i < onThenWaitingMs.length; i += 2) {
            all.add(new ThreadSchedStat(onThenWaitingMs[i] * MS, onThenWaitingMs[i + 1] * MS));
        }
        return Optional.of(all);
    }

    @Test
    void oneVmsWindowIsItsEdgesDifferenceOnItsPinnedCpusOnly() {
        BitSet pin = new BitSet();
        pin.set(0, 2);
        Map<String, Number> host = new LinkedHashMap<>();
        // two vCPUs: 1000+700 ms run, 300+200 waiting; CPUs 0 and 1 idle 50 and 20 ticks, CPU 2 (jkvm's) 400, not counted
        WindowTimes.put(host, List.of(new WindowEdges.Edges<>(
                edge(10_000, threads(100, 10, 200, 20), 1000, 2000, 3000),
                edge(15_000, threads(1100, 310, 900, 220), 1050, 2020, 3400))), pin);
        assertEquals(5000L, host.get(WindowTimes.MS));
        assertEquals(1700L, host.get(WindowTimes.ON_CPU));
        assertEquals(500L, host.get(WindowTimes.WAITING));
        assertEquals(700L, host.get(WindowTimes.IDLE));
        assertEquals(2, host.get(WindowTimes.IDLE_CPUS));
    }

    @Test
    void severalVmsSpanTheEarliestStartToTheLatestEndAndSumTheirThreads() {
        BitSet pin = new BitSet();
        pin.set(0);
        Map<String, Number> host = new LinkedHashMap<>();
        WindowTimes.put(host, List.of(
                new WindowEdges.Edges<>(edge(2_000, threads(0, 0), 100), edge(6_000, threads(400, 100), 130)),
                new WindowEdges.Edges<>(edge(1_000, threads(0, 0), 90), edge(7_000, threads(600, 50), 190))), pin);
        assertEquals(6000L, host.get(WindowTimes.MS));
        assertEquals(1000L, host.get(WindowTimes.ON_CPU));
        assertEquals(150L, host.get(WindowTimes.WAITING));
        assertEquals(1000L, host.get(WindowTimes.IDLE), "idle from the first VM's start (90) to the last VM's end (190)");
    }

    @Test
    void aVmWhoseThreadsWereNotReadLeavesTheThreadTimesOutNotHalfCounted() {
        BitSet pin = new BitSet();
        pin.set(0);
        Map<String, Number> host = new LinkedHashMap<>();
        WindowTimes.put(host, List.of(
                new WindowEdges.Edges<>(edge(0, threads(0, 0)), edge(1_000, threads(500, 0))),
                new WindowEdges.Edges<>(edge(0, threads(0, 0)), edge(1_000, Optional.empty()))), pin);
        assertEquals(1000L, host.get(WindowTimes.MS));
        assertFalse(host.containsKey(WindowTimes.ON_CPU));
        assertFalse(host.containsKey(WindowTimes.WAITING));
        assertFalse(host.containsKey(WindowTimes.IDLE), "no idle figures read");
    }
}
