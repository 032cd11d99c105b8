package org.jkvm.experiment;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
        try {
            console.write(b, 0, b.length / 2);
            for (int i = b.length / 2; i < b.length; i++) console.write(b[i]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theWindowRunsFromTheReadyLineToTheResultLine() {
        AtomicLong taken = new AtomicLong();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WindowEdges<KvmStatsSnapshot> console = new WindowEdges<>(out);
        console.watch(counting(taken));
        String text = "[    0.5] booting\nRESULT early 1 s lower\nJKVM-GUEST-READY cpus=4 kernel=6.12\n"
                + "working\n[ 9.1] x RESULT hackbench 12.8 s lower\r\nJKVM-WORKLOAD-EXIT 0\nRESULT again 2 s lower\n";
        print(console, text);
        WindowEdges.Edges<KvmStatsSnapshot> e = console.edges().orElseThrow();
        assertEquals(1, e.start().vm()[0]);
        assertEquals(2, e.end().vm()[0]);
        assertEquals(2, taken.get(), "a RESULT line before the ready line or after the first is no edge");
        assertEquals(text, out.toString(StandardCharsets.UTF_8), "everything is passed on, in order");
    }

    @Test
    void aCommandsWindowEndsAtItsExitLine() {
        AtomicLong taken = new AtomicLong();
        WindowEdges<KvmStatsSnapshot> console = new WindowEdges<>(OutputStream.nullOutputStream());
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
        WindowEdges<KvmStatsSnapshot> noResult = new WindowEdges<>(OutputStream.nullOutputStream());
        noResult.watch(counting(taken));
        print(noResult, "JKVM-GUEST-READY cpus=4\nKernel panic - not syncing\n");
        assertTrue(noResult.edges().isEmpty());
        WindowEdges<KvmStatsSnapshot> unterminated = new WindowEdges<>(OutputStream.nullOutputStream());
        unterminated.watch(counting(taken));
        print(unterminated, "JKVM-GUEST-READY cpus=4\nRESULT cpu 5 ops/s higher");
        assertTrue(unterminated.edges().isEmpty(), "a line counts once it ends");
        WindowEdges<KvmStatsSnapshot> unwatched = new WindowEdges<>(OutputStream.nullOutputStream());
        print(unwatched, "JKVM-GUEST-READY cpus=4\nRESULT cpu 5 ops/s higher\n");
        assertTrue(unwatched.edges().isEmpty());
    }

    @Test
    void aConsoleThatFailsStillLeavesTheWindow() throws IOException {
        AtomicLong taken = new AtomicLong();
        OutputStream closed = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        };
        WindowEdges<KvmStatsSnapshot> console = new WindowEdges<>(closed);
        console.watch(counting(taken));
        for (String line : List.of("JKVM-GUEST-READY cpus=1\n", "RESULT cpu 5 ops/s higher\n")) {
            byte[] b = line.getBytes(StandardCharsets.UTF_8);
            assertThrows(IOException.class, () -> console.write(b, 0, b.length), "the caller hears of the failure");
        }
        assertEquals(2, console.edges().orElseThrow().end().vm()[0], "a standard output closed by its reader loses no edge");
    }

    @Test
    void theReadyLineIsTimedWhenItEndsWhetherOrNotStatisticsAreWatched() {
        WindowEdges<KvmStatsSnapshot> unwatched = new WindowEdges<>(OutputStream.nullOutputStream());
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
