package org.jkvm.vmm.vcpu;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reading a thread's on-CPU and run-queue wait times from /proc/thread-self/schedstat. */
@Tag("unit")
class ThreadSchedStatTest {
    @Test
    void parsesTheKernelsLine() {
        assertEquals(Optional.of(new ThreadSchedStat(5_000_000, 250_000)), ThreadSchedStat.parse("5000000 250000 12\n"));
        assertEquals(Optional.empty(), ThreadSchedStat.parse(""));
        assertEquals(Optional.empty(), ThreadSchedStat.parse("x 1 2"));
        assertEquals(new ThreadSchedStat(3, 4), new ThreadSchedStat(10, 14).since(new ThreadSchedStat(7, 10)));
    }

    @Test
    void aBusyThreadGainsOnCpuTime() {
        Optional<ThreadSchedStat> before = ThreadSchedStat.current();
        Assumptions.assumeTrue(before.isPresent(), "this kernel has no /proc/thread-self/schedstat (CONFIG_SCHED_INFO)");
        // Spin for 30 ms of this thread's own CPU time, however long a loaded machine makes that take.
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long start = cpu.getCurrentThreadCpuTime();
        long spins = 0;
        while (cpu.getCurrentThreadCpuTime() - start < 30_000_000) spins++;
        ThreadSchedStat used = ThreadSchedStat.current().orElseThrow().since(before.get());
        assertTrue(used.onCpuNanos() >= 25_000_000, used + " after " + spins + " spins over 30 ms of CPU time");
        assertTrue(used.waitingNanos() >= 0, used.toString());
    }
}
