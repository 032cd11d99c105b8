package org.jkvm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Optional;

import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code jkvm run}'s lines about the workload's window: its length and flagged share, then where the time went. */
@Tag("unit")
class WorkloadLinesTest {
    private static String print(WorkloadWindow.Figures w, int vcpus) {
        StringWriter out = new StringWriter();
        RunSummary.printWorkload(new PrintWriter(out), w, vcpus);
        return out.toString();
    }

    @Test
    void theVcpusRunAndWaitAreSharesOfTheirTimeAndTheIdleOneOfTheirCpus() {
        // 4 vCPUs over 5 s (20 s of vCPU time): ran 4 s, waited 14 s; their one CPU idle 0.25 s of 5
        WorkloadWindow.Figures w = new WorkloadWindow.Figures(0, 5_000_000_000L, KvmStatsWindow.unavailable("x"), Optional.empty(),
                0.25, Optional.of(new ThreadSchedStat(4_000_000_000L, 14_000_000_000L)),
                Optional.of(new WorkloadWindow.CpusIdle(1, 250_000_000L)));
        assertEquals("""
                jkvm: workload: 5.000 s from the guest's ready line to its result, its vCPUs flagged preempted 25.0% of it
                jkvm: workload: the vCPUs ran 20.0% of their time in it and waited for a CPU 70.0%; their 1 host CPU idle 5.0%
                """, print(w, 4));
    }

    @Test
    void withoutTheThreadsTimesThereIsNoSecondLine() {
        WorkloadWindow.Figures w = new WorkloadWindow.Figures(0, 2_000_000_000L, KvmStatsWindow.unavailable("x"), Optional.empty(),
                Double.NaN, Optional.empty(), Optional.of(new WorkloadWindow.CpusIdle(2, 1)));
        assertEquals("jkvm: workload: 2.000 s from the guest's ready line to its result\n", print(w, 2));
    }
}
