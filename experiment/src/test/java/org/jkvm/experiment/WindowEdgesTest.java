package org.jkvm.experiment;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The console that snapshots KVM's statistics at the workload's edges: the ready line, then the RESULT (or a command's exit) line. */
@Tag("unit")
class WindowEdgesTest {
    /** Snapshots whose one VM value counts the snapshots taken. */
    private static Supplier<KvmStatsSnapshot> counting(AtomicLong taken) {
        return () -> new KvmStatsSnapshot(new long[] {taken.incrementAndGet()}, List.of());
    }

    private static void print(WindowEdges<?> console, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        // the serial port writes a byte at a time; a block write must behave the same
        console.write(b, 0, b.length / 2);
        for (int i = b.length / 2; i < b.length; i++) console.write(b[i]);
    }

    @Test
    void theWindowRunsFromTheReadyLineToTheResultLine() {
        AtomicLong taken = new AtomicLong();
        WindowEdges<KvmStatsSnapshot> console = new WindowEdges<>();
        console.watch(counting(taken));
        String text = "[    0.5] booting\nRESULT early 1 s lower\nJKVM-GUEST-READY cpus=4 kernel=6.12\n"
                + "working\n[ 9.1] x RESULT hackbench 12.8 s lower\r\nJKVM-WORKLOAD-EXIT 0\nRESULT again 2 s lower\n";
        print(console, text);
        WindowEdges.Edges<KvmStatsSnapshot> e = console.edges().orElseThrow();
        assertEquals(1, e.start().vm()[0]);
        assertEquals(2, e.end().vm()[0]);
        assertEquals(2, taken.get(), "a RESULT line before the ready line or after the first is no edge");
        assertEquals(text, console.text());
    }

    @Test
    void aCommandsWindowEndsAtItsExitLine() {
        AtomicLong taken = new AtomicLong();
        WindowEdges<KvmStatsSnapshot> console = new WindowEdges<>();
        console.watch(counting(taken));
        print(console, StressNgMetricsTest.CONSOLE + "JKVM-GUEST-CMD-EXIT 0\n");
        WindowEdges.Edges<KvmStatsSnapshot> e = console.edges().orElseThrow();
        assertEquals(1, e.start().vm()[0]);
        assertEquals(2, e.end().vm()[0]);
        assertEquals(2, taken.get(), "only the first exit line is an edge");
    }

    @Test
    void withoutBothEdgesThereIsNoWindow() {
        AtomicLong taken = new AtomicLong();
        WindowEdges<KvmStatsSnapshot> noResult = new WindowEdges<>();
        noResult.watch(counting(taken));
        print(noResult, "JKVM-GUEST-READY cpus=4\nKernel panic - not syncing\n");
        assertTrue(noResult.edges().isEmpty());
        WindowEdges<KvmStatsSnapshot> unterminated = new WindowEdges<>();
        unterminated.watch(counting(taken));
        print(unterminated, "JKVM-GUEST-READY cpus=4\nRESULT cpu 5 ops/s higher");
        assertTrue(unterminated.edges().isEmpty(), "a line counts once it ends");
        WindowEdges<KvmStatsSnapshot> unwatched = new WindowEdges<>();
        print(unwatched, "JKVM-GUEST-READY cpus=4\nRESULT cpu 5 ops/s higher\n");
        assertTrue(unwatched.edges().isEmpty());
    }

    @Test
    void theReadyLineIsTimedWhenItEndsWhetherOrNotStatisticsAreWatched() {
        WindowEdges<KvmStatsSnapshot> unwatched = new WindowEdges<>();
        print(unwatched, "[    0.5] booting\nJKVM-GUEST-READ");
        assertTrue(unwatched.readyAt().isEmpty(), "no ready line yet: " + unwatched.readyAt());
        long before = System.nanoTime();
        print(unwatched, "Y cpus=2 kernel=6.12\n");
        long after = System.nanoTime();
        long at = unwatched.readyAt().orElseThrow();
        assertTrue(at >= before && at <= after, "the ready line's time " + at + " is not within " + before + ".." + after);
        print(unwatched, "JKVM-GUEST-READY cpus=2 kernel=6.12\n");
        assertEquals(at, unwatched.readyAt().orElseThrow(), "the first ready line counts");
    }
}
