package org.jkvm.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jkvm.pvlock.Preemptors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class WaitedBehindTest {
    private static final double EPS = 1e-9;

    @Test
    void aRunsVmsAreAddedUpIntoItsHostFiguresAndReadBack() {
        Preemptors a = new Preemptors(new BitSet(), 10, 5_000_000,
                List.of(new Preemptors.Row(Preemptors.Who.VCPUS, 2, 3_000_000, 6),
                        new Preemptors.Row(new Preemptors.Who(Preemptors.Kind.OTHER, "kworker"), 1, 2_000_000, 4)),
                7, 1);
        Preemptors b = new Preemptors(new BitSet(), 5, 1_500_000,
                List.of(new Preemptors.Row(Preemptors.Who.IDLE, 1, 1_000_000, 3),
                        new Preemptors.Row(new Preemptors.Who(Preemptors.Kind.VMM, "console"), 1, 500_000, 2)),
                0, 2);
        Map<String, Number> host = new LinkedHashMap<>();
        WaitedBehind.put(host, List.of(a, b), true);

        Run run = RunMatrix.of(RunMatrixTest.spec(1, 0)).runs().getFirst();
        WaitedBehind w = WaitedBehind.of(RunResult.of(run, List.of(new GuestResult(run.workload().name(), 1, "ops/s", Direction.HIGHER)),
                1, ResultsTest.T, host)).orElseThrow();
        assertEquals(15, w.preemptions());
        assertEquals(3, w.vcpusMs(), EPS);
        assertEquals(0.5, w.vmmMs(), EPS);
        assertEquals(3, w.otherMs(), EPS, "the rest of the host and the idle task together");
        assertEquals(List.of(7L, 3L), List.of(w.lost(), w.ringsFull()), "records lost and rings found full, over both VMs");
        assertTrue(w.workload());
    }
}
