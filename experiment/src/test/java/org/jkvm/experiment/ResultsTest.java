package org.jkvm.experiment;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RESULT lines, the JSON-lines results log (append, resume, a torn last line) and the CSV export. */
@Tag("unit")
class ResultsTest {
    @TempDir
    Path dir;

    static final Instant T = Instant.parse("2025-01-02T03:04:05.678Z");

    static RunResult ok(Run run, double... values) {
        Map<String, Long> host = new LinkedHashMap<>();
        host.put("exits", 123456789012L);
        host.put("pvlock_calls", 7L);
        List<GuestResult> g = java.util.Arrays.stream(values)
                .mapToObj(v -> new GuestResult(run.workload().name(), v, "ops/s", Direction.HIGHER)).toList();
        return RunResult.of(run, g, 12.5, T, host);
    }

    @Test
    void resultLinesAreFoundOnTheConsole() {
        assertEquals(new GuestResult("hackbench", 12.84, "s", Direction.LOWER),
                GuestResult.parse("RESULT hackbench 12.84 s lower").orElseThrow());
        assertEquals(new GuestResult("cpu", 1.5e6, "ops/s", Direction.HIGHER),
                GuestResult.parse("[   3.1] x RESULT cpu 1.5e6 ops/s higher\r").orElseThrow());
        assertTrue(GuestResult.parse("RESULT cpu fast ops/s higher").isEmpty());
        assertTrue(GuestResult.parse("RESULT cpu 1 ops/s sideways").isEmpty());
        assertTrue(GuestResult.parse("RESULTS cpu 1 ops/s higher").isEmpty());
        assertTrue(GuestResult.parse("RESULT cpu NaN ops/s higher").isEmpty());
    }

    @Test
    void aRunResultAveragesItsVmsAndChecksThem() {
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 0));
        Run run = m.runs().getFirst();
        RunResult r = ok(run, 10, 20);
        assertEquals(15.0, r.value());
        assertEquals(List.of(10.0, 20.0), r.vmValues());
        assertTrue(r.ok());
        RunResult wrong = RunResult.of(run, List.of(new GuestResult("cpu", 1, "x", Direction.HIGHER)), 1, T, Map.of());
        assertFalse(wrong.ok());
        assertEquals("the guest reported workload cpu, not hackbench", wrong.error());
        assertEquals("no RESULT line", RunResult.of(run, List.of(), 1, T, null).error());
    }

    @Test
    void linesRoundTripExactly() throws Exception {
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 1));
        RunResult a = ok(m.runs().getFirst(), 1234.5);
        RunResult f = RunResult.failed(m.runs().get(1), "timeout after 125 s, \"stuck\"", 125.0, null, Map.of("steal_ns", 1.5));
        assertEquals(a, ResultsLog.fromJson(ResultsLog.toJson(a)));
        RunResult back = ResultsLog.fromJson(ResultsLog.toJson(f));
        assertTrue(Double.isNaN(back.value()));
        assertEquals(f.error(), back.error());
        assertEquals(Map.of("steal_ns", 1.5), back.host());
        assertEquals("{\"id\":\"hackbench/a/w1\",\"variant\":\"a\",\"workload\":\"hackbench\",\"repetition\":1,\"warmup\":true,"
                + "\"value\":1234.5,\"unit\":\"ops/s\",\"better\":\"higher\",\"wall_s\":12.5,\"started\":\"2025-01-02T03:04:05.678Z\","
                + "\"vm_values\":[1234.5],\"host\":{\"exits\":123456789012,\"pvlock_calls\":7},\"error\":null}", ResultsLog.toJson(a));
        RunResult k = a.withKernels(Map.of("host", "6.12.117-jkvm-pvlock", "guest", "6.12.117+deb12-arm64"));
        assertTrue(ResultsLog.toJson(k).endsWith("\"error\":null,\"kernels\":{\"host\":\"6.12.117-jkvm-pvlock\",\"guest\":\"6.12.117+deb12-arm64\"}}")
                || ResultsLog.toJson(k).endsWith("\"error\":null,\"kernels\":{\"guest\":\"6.12.117+deb12-arm64\",\"host\":\"6.12.117-jkvm-pvlock\"}}"),
                ResultsLog.toJson(k));
        assertEquals(k, ResultsLog.fromJson(ResultsLog.toJson(k)), "a result says which kernels produced it");
        RunResult p = a.withPlacement(Map.of("pin", "0", "vmm_pin", "1"));
        assertTrue(ResultsLog.toJson(p).contains("\"placement\":{"), ResultsLog.toJson(p));
        assertEquals(Map.of("pin", "0", "vmm_pin", "1"), ResultsLog.fromJson(ResultsLog.toJson(p)).placement(),
                "a result says where its threads ran");
    }

    @Test
    void resumeSkipsWhatIsDoneAndATornLastLineIsIgnoredThenCutOff() throws IOException {
        Path file = dir.resolve("sub/results.jsonl");
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(2, 0));
        try (ResultsLog log = ResultsLog.open(file)) {
            log.append(ok(m.runs().get(0), 1));
            log.append(RunResult.failed(m.runs().get(1), "guest panic", 3, T, Map.of()));
            log.append(ok(m.runs().get(2), 3));
        }
        // a crash in the middle of the fourth line
        String fourth = ResultsLog.toJson(ok(m.runs().get(3), 4));
        Files.writeString(file, fourth.substring(0, fourth.length() / 2), StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.APPEND);

        List<RunResult> read = ResultsLog.read(file);
        assertEquals(3, read.size());
        long sizeBefore = Files.size(file);
        assertEquals(sizeBefore, Files.size(file), "read() does not change the file");

        try (ResultsLog log = ResultsLog.open(file)) {
            assertEquals(Set.of(m.runs().get(0).id(), m.runs().get(2).id()), log.doneIds());
            assertEquals(3, log.attemptedIds().size());
            List<Run> pending = m.pending(log.doneIds());
            assertEquals(m.size() - 2, pending.size());
            assertEquals(m.runs().get(1).id(), pending.getFirst().id(), "the failed run is retried first");
            assertTrue(Files.readString(file).endsWith("\n"), "the torn line is gone");
            log.append(ok(m.runs().get(1), 2));
            log.append(ok(m.runs().get(3), 4));
        }
        List<RunResult> all = ResultsLog.read(file);
        assertEquals(5, all.size());
        assertEquals(5, Files.readAllLines(file).size());
        Map<String, RunResult> latest = ResultsLog.latest(all);
        assertEquals(4, latest.size());
        assertTrue(latest.get(m.runs().get(1).id()).ok(), "the retry wins over the failure");
    }

    @Test
    void aBadLineInTheMiddleIsAnErrorNamingIt() throws IOException {
        Path file = dir.resolve("r.jsonl");
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 0));
        Files.writeString(file, ResultsLog.toJson(ok(m.runs().get(0), 1)) + "\n{oops\n" + ResultsLog.toJson(ok(m.runs().get(1), 1)) + "\n");
        IOException e = assertThrows(IOException.class, () -> ResultsLog.read(file));
        assertEquals(file + ":2:2: not a result line: Unexpected character ('o' (code 111)): was expecting double-quote to start"
                + " property name", e.getMessage());
        assertEquals(List.of(), ResultsLog.read(dir.resolve("missing.jsonl")));
    }

    @Test
    void repairKeepsACompleteResultThatLacksItsNewline() throws IOException {
        Path file = dir.resolve("r.jsonl");
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 0));
        String first = ResultsLog.toJson(ok(m.runs().get(0), 1));
        String second = ResultsLog.toJson(ok(m.runs().get(1), 2));
        Files.writeString(file, first + "\n" + second);
        assertEquals(2, ResultsLog.read(file).size(), "read() counts the unterminated result");

        assertEquals(new LogTail(LogTail.Kind.UNTERMINATED, second), ResultsLog.repair(file));
        assertEquals(first + "\n" + second + "\n", Files.readString(file));
        assertEquals(LogTail.NONE, ResultsLog.repair(file), "nothing left to repair");
        assertEquals(2, ResultsLog.read(file).size());
    }

    @Test
    void repairDropsATornLastLineAndLeavesAMissingFileMissing() throws IOException {
        Path file = dir.resolve("r.jsonl");
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 0));
        String first = ResultsLog.toJson(ok(m.runs().get(0), 1));
        String torn = ResultsLog.toJson(ok(m.runs().get(1), 2)).substring(0, 40);
        Files.writeString(file, first + "\n" + torn);

        assertEquals(new LogTail(LogTail.Kind.TORN, torn), ResultsLog.repair(file));
        assertEquals(first + "\n", Files.readString(file));
        assertEquals(1, ResultsLog.read(file).size());

        Path missing = dir.resolve("none.jsonl");
        assertEquals(LogTail.NONE, ResultsLog.repair(missing));
        assertFalse(Files.exists(missing));
    }

    /** The logs of examples/results were written by the hand-made writer before Jackson: read and written again, byte for byte. */
    @Test
    void exampleResultsReadAndWriteBackUnchanged() throws IOException {
        Path examples = Path.of(System.getProperty("user.dir")).resolve("../examples/results").normalize();
        List<Path> logs;
        try (var files = Files.walk(examples)) {
            logs = files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList();
        }
        assertFalse(logs.isEmpty(), "no results under " + examples);
        for (Path log : logs) {
            List<String> lines = Files.readAllLines(log);
            List<RunResult> read = ResultsLog.read(log);
            assertEquals(lines.size(), read.size(), log.toString());
            for (int i = 0; i < lines.size(); i++) assertEquals(lines.get(i), ResultsLog.toJson(read.get(i)), log + ":" + (i + 1));
        }
    }

    @Test
    void csvHasAColumnPerHostStatistic() throws IOException {
        RunMatrix m = RunMatrix.of(RunMatrixTest.spec(1, 0));
        RunResult a = ok(m.runs().get(0), 1.5, 2.5);
        RunResult f = RunResult.failed(m.runs().get(1), "boom, \"bad\"", 3, null, Map.of("steal_ns", 9));
        StringWriter w = new StringWriter();
        CsvExport.write(List.of(a, f), w);
        assertEquals("""
                id,variant,workload,repetition,warmup,value,unit,better,wall_s,started,vm_values,error,host.exits,host.pvlock_calls,host.steal_ns
                hackbench/a/1,a,hackbench,1,false,2,ops/s,higher,12.5,2025-01-02T03:04:05.678Z,1.5 2.5,,123456789012,7,
                hackbench/b/1,b,hackbench,1,false,,,,3,,,"boom, ""bad""\",,,9
                """, w.toString());
    }
}
