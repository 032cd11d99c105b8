package org.jkvm.experiment;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RigDriftTest {
    private static final double EPS = 1e-9;

    private static ExperimentSpec spec(int repetitions) {
        return ExperimentSpec.parse("""
                {"name": "drift", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0-1",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "off", "pvlock": "off"}, {"name": "kernel", "pvlock": "kernel"}],
                 "repetitions": %d}
                """.formatted(repetitions), Path.of("drift.json"), false, Map.of());
    }

    /**
     * Each run of {@code spec}, i its place in the run matrix: started at second {@code started(i)} of the
     * sweep, with ready time {@code readyMs(i)} (none where it is null) and result {@code value(i)}.
     */
    private static List<RunResult> runs(ExperimentSpec spec, IntToLongFunction started, IntToLongFunction readyMs, IntToDoubleFunction value) {
        List<RunResult> out = new ArrayList<>();
        List<Run> matrix = RunMatrix.of(spec).runs();
        for (int i = 0; i < matrix.size(); i++) {
            Run r = matrix.get(i);
            out.add(RunResult.of(r, List.of(new GuestResult("cpu", value.applyAsDouble(i), "ops/s", Direction.HIGHER)), 10,
                    Instant.ofEpochSecond(started.applyAsLong(i)),
                    readyMs == null ? Map.of() : Map.of(ExperimentRunner.READY_MS, readyMs.applyAsLong(i))));
        }
        return out;
    }

    @Test
    void aHostThatSlowsShowsInTheLastHalfsReadyTimeAndResultsThatFollowItCorrelateNegatively() {
        ExperimentSpec spec = spec(5);
        int n = RunMatrix.of(spec).runs().size();
        // the matrix's own order, reversed in time: the report must sort by start, not by the log's order
        Report rep = Report.of(spec, runs(spec, i -> 100 - i, i -> 4000 + 300L * (n - 1 - i), i -> 1000 - 50.0 * (n - 1 - i)));
        for (String v : List.of("off", "kernel")) {
            RigDrift d = rep.workloads().getFirst().cell(v).drift();
            assertEquals(5, d.runs());
            assertTrue(d.slowdown() > 1.2, v + ": the host slowed, " + d);
            assertEquals(-1, d.rho(), EPS, v + ": every result fell as the ready time rose");
        }
        RigDrift off = rep.workloads().getFirst().cell("off").drift();
        String text = rep.text();
        assertTrue(text.contains("The host's speed over the runs"), text);
        // the spread table has a row of the same start; the host's speed comes last
        String row = text.lines().filter(l -> l.matches("cpu +off +5 .*")).reduce((a, b) -> b).orElseThrow();
        assertTrue(row.matches("cpu +off +5 +[\\d.]+ +[\\d.]+ +" + String.format(Locale.ROOT, "%.2f", off.slowdown()) + " +-1\\.00"), row);
    }

    @Test
    void aSteadyHostLeavesTheHalvesEqualAndNoCorrelationToRead() {
        ExperimentSpec spec = spec(4);
        RigDrift d = Report.of(spec, runs(spec, i -> i, i -> 5000, i -> 700 + i)).workloads().getFirst().cell("off").drift();
        assertEquals(1.0, d.slowdown(), EPS, d.toString());
        assertTrue(Double.isNaN(d.rho()), "no rank correlation with a constant ready time: " + d);
        assertTrue(Report.of(spec, runs(spec, i -> i, i -> 5000, i -> 700 + i)).text().matches("(?s).*cpu +off +4 +5\\.000 +5\\.000 +1\\.00 +-\n.*"),
                "the table shows no rho where there is none");
    }

    @Test
    void tooFewRunsOrNoReadyTimesGiveNoGaugeAndNoTable() {
        ExperimentSpec spec = spec(3);
        Report rep = Report.of(spec, runs(spec, i -> i, i -> 5000, i -> 700));
        assertNull(rep.workloads().getFirst().cell("off").drift(), "3 runs are fewer than " + RigDrift.MIN_RUNS);
        assertTrue(!rep.text().contains("The host's speed"), rep.text());
        ExperimentSpec five = spec(5);
        Report none = Report.of(five, runs(five, i -> i, null, i -> 700));
        assertNull(none.workloads().getFirst().cell("off").drift(), "results without ready times");
        assertTrue(!none.text().contains("The host's speed"), none.text());
    }
}
