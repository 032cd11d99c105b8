package org.jkvm.experiment;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A results log has one writer at a time, appends at its end whatever else wrote there, and keeps what it was given. */
@Tag("unit")
class ResultsLogWritersTest {
    @TempDir
    Path dir;

    final RunMatrix m = RunMatrix.of(RunMatrixTest.spec(2, 0));

    @Test
    void aSecondWriterInAnotherProcessIsRefusedNamingTheFirst() throws Exception {
        Path file = dir.resolve("r.jsonl");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process holder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), HoldLog.class.getName(),
                file.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("open 0", out.readLine());
            long t0 = System.nanoTime();
            IOException e = assertThrows(IOException.class, () -> ResultsLog.open(file));
            assertTrue(System.nanoTime() - t0 < 5_000_000_000L, "refused at once, not after waiting");
            assertTrue(e.getMessage().startsWith(file + ": another jkvm is appending to it (pid " + holder.pid() + ", started "),
                    e.getMessage());
            assertTrue(e.getMessage().endsWith("); wait for it to finish or stop it"), e.getMessage());
        } finally {
            holder.getOutputStream().close();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
        }
        try (ResultsLog log = ResultsLog.open(file)) {
            log.append(ResultsTest.ok(m.runs().getFirst(), 1));
        }
        assertEquals(1, ResultsLog.read(file).size(), "free again once the holder has gone");
    }

    @Test
    void aSecondWriterInTheSameProcessIsRefusedToo() throws Exception {
        Path file = dir.resolve("r.jsonl");
        try (ResultsLog first = ResultsLog.open(file)) {
            IOException e = assertThrows(IOException.class, () -> ResultsLog.open(file));
            assertTrue(e.getMessage().contains("(pid " + ProcessHandle.current().pid() + ", started "), e.getMessage());
            first.append(ResultsTest.ok(m.runs().getFirst(), 1));
        }
        assertEquals(1, ResultsLog.read(file).size());
    }

    @Test
    void appendsGoToTheEndOfWhatIsThereNow() throws Exception {
        Path file = dir.resolve("r.jsonl");
        String other = ResultsLog.toJson(ResultsTest.ok(m.runs().get(1), 2));
        try (ResultsLog log = ResultsLog.open(file)) {
            log.append(ResultsTest.ok(m.runs().get(0), 1));
            Files.writeString(file, other + "\n", StandardOpenOption.APPEND);
            log.append(ResultsTest.ok(m.runs().get(2), 3));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(3, lines.size(), String.join("\n", lines));
        assertEquals(other, lines.get(1), "the line another hand wrote is intact");
        assertEquals(3, ResultsLog.read(file).size());
    }

    @Test
    void aResumedLogKeepsACompleteLastResultThatLacksItsNewline() throws Exception {
        Path file = dir.resolve("r.jsonl");
        String first = ResultsLog.toJson(ResultsTest.ok(m.runs().get(0), 1));
        Files.writeString(file, first);
        try (ResultsLog log = ResultsLog.open(file)) {
            assertEquals(1, log.results().size());
            log.append(RunResult.failed(m.runs().get(1), "guest panic", 3, ResultsTest.T, Map.of()));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size());
        assertEquals(first, lines.getFirst(), "kept on disk, its newline added");
    }
}
