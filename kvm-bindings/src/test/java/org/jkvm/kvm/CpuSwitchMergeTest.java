package org.jkvm.kvm;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Two CPUs' records, added ring by ring as the monitor reads them, come out in one time order. */
@Tag("unit")
class CpuSwitchMergeTest {

    /** What a listener saw, as "cpu:tid@time", "cpu:lost N@time" or "cpu:full@time". */
    private static final class Seen implements ContextSwitchMonitor.CpuSwitchListener {
        final List<String> seen = new ArrayList<>();

        @Override
        public void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long when) {
            seen.add(cpuIndex + ":" + tid + "@" + when);
        }

        @Override
        public void lost(int cpuIndex, long count, long when) {
            seen.add(cpuIndex + ":lost " + count + "@" + when);
        }

        @Override
        public void ringFull(int cpuIndex, long when) {
            seen.add(cpuIndex + ":full@" + when);
        }
    }

    @Test
    void aThreadThatMovedCpusLeavesTheFirstBeforeItArrivesOnTheSecond() {
        CpuSwitchMerge m = new CpuSwitchMerge(2);
        m.switchedOut(1, 7, 0, false, 25);   // CPU 1, read first: thread 9 goes out there at 25
        m.switchedOut(1, 9, 0, false, 30);
        m.switchedOut(0, 9, 5, true, 10);    // CPU 0, read after: thread 9 was preempted there at 10
        m.lost(0, 17, 20);
        m.ringFull(0, 28);                   // and found full when read, at 28
        m.switchedOut(0, 5, 0, false, 40);
        Seen s = new Seen();

        assertEquals(3, m.deliver(30, s), "the switches up to the cut-off");
        assertEquals(List.of("0:9@10", "0:lost 17@20", "1:7@25", "0:full@28", "1:9@30"), s.seen,
                "a loss keeps its count and its place, and so does a full ring");
        assertEquals(0, m.deliver(35, s), "the one at 40 is held back");
        assertEquals(1, m.deliver(Long.MAX_VALUE, s));
        assertEquals("0:5@40", s.seen.getLast());
    }

    @Test
    void aQueueGrowsPastItsFirstSizeInOrder() {
        CpuSwitchMerge m = new CpuSwitchMerge(1);
        Seen s = new Seen();
        for (int t = 0; t < 50; t++) m.switchedOut(0, t, 0, false, t);
        assertEquals(50, m.deliver(49, s));
        for (int t = 50; t < 250; t++) m.switchedOut(0, t, 0, false, t);   // wraps, then grows
        assertEquals(200, m.deliver(Long.MAX_VALUE, s));
        for (int t = 0; t < 250; t++) assertEquals("0:" + t + "@" + t, s.seen.get(t));
    }
}
