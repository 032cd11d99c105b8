package org.jkvm.experiment;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run matrix: order (warm-ups first, variants alternating and rotating) and stable ids. */
@Tag("unit")
class RunMatrixTest {
    static ExperimentSpec spec(int repetitions, int warmup) {
        String text = """
                {"name": "m", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0-1",
                 "workloads": [{"name": "hackbench", "workers": 8, "seconds": 5}, {"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "a", "pvlock": "off"}, {"name": "b", "pvlock": "userspace"}, {"name": "c", "pvlock": "kernel"}],
                 "repetitions": %d, "warmup": %d}
                """.formatted(repetitions, warmup);
        return ExperimentSpec.parse(text, Path.of("m.json"), false, Map.of());
    }

    @Test
    void variantsAlternateAndRotateEachRound() {
        List<String> ids = RunMatrix.of(spec(2, 1)).runs().stream().map(Run::id).toList();
        assertEquals(List.of(
                // warm-up round: a b c
                "hackbench/a/w1", "hackbench/b/w1", "hackbench/c/w1", "cpu/a/w1", "cpu/b/w1", "cpu/c/w1",
                // round 2 starts with b, round 3 with c
                "hackbench/b/1", "hackbench/c/1", "hackbench/a/1", "cpu/b/1", "cpu/c/1", "cpu/a/1",
                "hackbench/c/2", "hackbench/a/2", "hackbench/b/2", "cpu/c/2", "cpu/a/2", "cpu/b/2"), ids);
    }

    @Test
    void everyCellGetsItsRunsAndOrderIsTheIndex() {
        ExperimentSpec s = spec(4, 2);
        RunMatrix m = RunMatrix.of(s);
        assertEquals(s.runCount(), m.size());
        assertEquals(3 * 2 * 6, m.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < m.size(); i++) {
            Run r = m.runs().get(i);
            assertEquals(i, r.order());
            assertTrue(ids.add(r.id()), "unique: " + r.id());
            assertEquals(Run.id(r.workload().label(), r.variant().name(), r.repetition(), r.warmup()), r.id());
        }
        assertEquals(3 * 2 * 2, m.runs().stream().filter(Run::warmup).count());
        // all warm-ups come before the first measured run
        int lastWarm = m.runs().stream().filter(Run::warmup).mapToInt(Run::order).max().orElseThrow();
        int firstMeasured = m.runs().stream().filter(r -> !r.warmup()).mapToInt(Run::order).min().orElseThrow();
        assertTrue(lastWarm < firstMeasured);
        // no variant runs twice in a row within a workload's round
        for (int i = 1; i < m.size(); i++) {
            Run p = m.runs().get(i - 1);
            Run r = m.runs().get(i);
            if (p.workload().equals(r.workload())) assertTrue(!p.variant().equals(r.variant()));
        }
    }

    @Test
    void idsStayTheSameWhenRepetitionsAreAdded() {
        Set<String> small = new HashSet<>(RunMatrix.of(spec(2, 1)).runs().stream().map(Run::id).toList());
        Set<String> big = new HashSet<>(RunMatrix.of(spec(5, 1)).runs().stream().map(Run::id).toList());
        assertTrue(big.containsAll(small));
        assertEquals(RunMatrix.of(spec(3, 1)).runs(), RunMatrix.of(spec(3, 1)).runs());
    }

    @Test
    void pendingSkipsDoneIdsKeepingTheOrder() {
        RunMatrix m = RunMatrix.of(spec(2, 1));
        List<Run> pending = m.pending(Set.of("hackbench/a/w1", "hackbench/b/w1", "cpu/c/2", "not/a/run"));
        assertEquals(m.size() - 3, pending.size());
        assertEquals("hackbench/c/w1", pending.getFirst().id());
        assertEquals("cpu/b/2", pending.getLast().id());
        assertEquals("cpu/a/1", m.run("cpu/a/1").id());
        assertNull(m.run("cpu/a/9"));
    }

    @Test
    void theExampleHasThirtyTwoRunsPerRoundAndElevenRounds() throws IOException {
        ExperimentSpec s = ExperimentSpec.load(Path.of(System.getProperty("user.dir")).resolve("../examples/overcommit.json").normalize());
        assertEquals(8 * 4 * (10 + 1), RunMatrix.of(s).size());
    }
}
