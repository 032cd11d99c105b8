package org.jkvm.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jkvm.experiment.Direction;
import org.jkvm.experiment.Experiment;
import org.jkvm.experiment.GuestResult;
import org.jkvm.experiment.ResultsLog;
import org.jkvm.experiment.Run;
import org.jkvm.experiment.RunResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files {@code jkvm experiment} reads and writes: an output that is an input is refused, every
 * file problem is one line naming the file (exit 2), inputs are bounded, outputs replaced whole,
 * and a damaged results log can be read past.
 */
@Tag("unit")
class ExperimentFilesTest {
    @TempDir
    Path dir;

    Path spec() throws Exception {
        return Files.writeString(dir.resolve("rep.json"), """
                {"name": "rep", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 4, "pin": "0-1",
                 "workloads": [{"name": "cpu", "workers": 4, "seconds": 5}],
                 "variants": [{"name": "base", "pvlock": "off"}, {"name": "pv", "pvlock": "userspace"}],
                 "repetitions": 2}
                """);
    }

    /** A results log with the first {@code n} runs of {@link #spec()} done. */
    Path results(Path spec, int n) throws Exception {
        Path log = dir.resolve("rep.results.jsonl");
        try (Experiment ex = Experiment.open(spec, log, false)) {
            for (Run r : ex.pending().subList(0, n)) {
                ex.log().append(RunResult.of(r, List.of(new GuestResult("cpu", 100, "ops/s", Direction.HIGHER)), 6,
                        Instant.EPOCH, Map.of()));
            }
        }
        return log;
    }

    static void assertOneLine(Cli r, int code, String line) {
        assertEquals(code, r.exitCode(), r.err());
        assertArrayEquals(new String[] {"jkvm: " + line}, r.errLines(), r.err());
    }

    @Test
    void reportRefusesToWriteOverItsInputs() throws Exception {
        Path spec = spec();
        Path log = results(spec, 2);
        String specText = Files.readString(spec);
        String logText = Files.readString(log);

        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--csv", spec.toString()), 2,
                "--csv " + spec + ": is the spec " + spec + "; choose another file");
        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--svg", log.toString()), 2,
                "--svg " + log + ": is the results log " + log + "; choose another file");
        Path link = Files.createSymbolicLink(dir.resolve("link.csv"), log);
        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--csv", link.toString()), 2,
                "--csv " + link + ": is the results log " + log + "; choose another file");
        Path sameName = dir.resolve("sub/../rep.json");
        Files.createDirectories(dir.resolve("sub"));
        assertEquals(2, Cli.run("experiment", "report", spec.toString(), "--svg", sameName.toString()).exitCode());
        assertEquals(specText, Files.readString(spec));
        assertEquals(logText, Files.readString(log));
    }

    @Test
    void outputsAreReplacedWholeThroughARename() throws Exception {
        Path spec = spec();
        results(spec, 4);
        Path csv = Files.writeString(dir.resolve("c.csv"), "old\n");
        Object before = Files.readAttributes(csv, "unix:ino").get("ino");
        Cli r = Cli.run("experiment", "report", spec.toString(), "--csv", csv.toString(), "--svg", dir.resolve("c.svg").toString());
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(5, Files.readAllLines(csv).size());
        assertNotEquals(before, Files.readAttributes(csv, "unix:ino").get("ino"), "a new file renamed over the old one");
        try (var files = Files.list(dir)) {
            assertEquals(List.of("c.csv", "c.svg", "rep.json", "rep.results.jsonl", "rep.results.jsonl.lock"),
                    files.map(f -> f.getFileName().toString()).sorted().toList(), "no temporary file left");
        }
    }

    @Test
    void fileProblemsAreOneLineNamingTheFile() throws Exception {
        Path missing = dir.resolve("nope.json");
        assertOneLine(Cli.run("experiment", "check", missing.toString()), 2, missing + ": no such file");
        assertOneLine(Cli.run("experiment", "report", dir.toString()), 2, dir + ": is a directory, not a spec");
        Path latin1 = Files.write(dir.resolve("latin1.json"), "{\"name\": \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
        assertOneLine(Cli.run("experiment", "plan", latin1.toString()), 2, latin1 + ": not UTF-8 text (bad byte at offset 13)");
        assertOneLine(Cli.run("experiment", "check", "/dev/null"), 2, "/dev/null: is a character device, not a spec");
    }

    @Test
    void aSpecThatNeverEndsIsRefusedAtOnce() throws Exception {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            assertOneLine(Cli.run("experiment", "check", "/dev/zero"), 2, "/dev/zero: is a character device, not a spec");
            Path fifo = dir.resolve("fifo.json");
            assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
            assertOneLine(Cli.run("experiment", "report", fifo.toString()), 2, fifo + ": is a FIFO, not a spec");
        });
        Path big = dir.resolve("big.json");
        try (var ch = java.nio.channels.FileChannel.open(big, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {' '}), (3L << 30) - 1);
        }
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertOneLine(Cli.run("experiment", "check", big.toString()), 2,
                big + ": 3072 MiB is more than the 1 MiB a spec may have"));
    }

    @Test
    void aResultsLogIsReadLineByLineWithABoundOnEachLine() throws Exception {
        Path spec = spec();
        Path log = results(spec, 1);
        Files.writeString(log, "x".repeat(2 << 20) + "\n", java.nio.file.StandardOpenOption.APPEND);
        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--results", log.toString()), 2,
                log + ":2: a line of more than 1 MiB; not a results log?");
        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--results", "/dev/zero"), 2,
                "/dev/zero: is a character device, not a results log");
    }

    @Test
    void aResultsFileNamedButMissingIsAnError() throws Exception {
        Path spec = spec();
        Path typo = dir.resolve("rep.result.jsonl");
        assertOneLine(Cli.run("experiment", "report", spec.toString(), "--results", typo.toString()), 2,
                typo + ": no such file");
        assertOneLine(Cli.run("experiment", "plan", spec.toString(), "--results", typo.toString()), 2,
                typo + ": no such file");
        Cli byDefault = Cli.run("experiment", "report", spec.toString());
        assertEquals(0, byDefault.exitCode(), "the default results file need not exist yet: " + byDefault.err());
        assertTrue(byDefault.out().startsWith("Experiment rep: 0 of 4 measured runs"), byDefault.out());
    }

    @Test
    void badLinesBlockReportAndPlanUnlessSkipped() throws Exception {
        Path spec = spec();
        Path log = results(spec, 3);
        List<String> lines = Files.readAllLines(log);
        Files.write(log, List.of(lines.get(0), "{oops", lines.get(1), "\u0000garbage", lines.get(2)));

        Cli blocked = Cli.run("experiment", "report", spec.toString());
        assertEquals(2, blocked.exitCode());
        assertTrue(blocked.err().startsWith("jkvm: " + log + ":2:2: not a result line: "), blocked.err());

        Cli report = Cli.run("experiment", "report", spec.toString(), "--skip-bad-lines");
        assertEquals(0, report.exitCode(), report.err());
        assertTrue(report.out().startsWith("Experiment rep: 3 of 4 measured runs"), report.out());
        assertArrayEquals(new String[] {"jkvm: " + log + ": skipped 2 bad lines (2, 4)"}, report.errLines());

        Cli plan = Cli.run("experiment", "plan", spec.toString(), "--skip-bad-lines");
        assertEquals(0, plan.exitCode(), plan.err());
        assertTrue(plan.out().endsWith("1 of 4 runs pending (0 failed, 1 not run yet)\n"), plan.out());
        assertEquals(2, Cli.run("experiment", "plan", spec.toString()).exitCode());
    }

    @Test
    void aLastResultWithoutItsNewlineCountsInTheReport() throws Exception {
        Path spec = spec();
        Path log = results(spec, 2);
        Files.writeString(log, Files.readString(log).stripTrailing());
        Cli r = Cli.run("experiment", "report", spec.toString());
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().startsWith("Experiment rep: 2 of 4 measured runs"), r.out());
        assertEquals(2, ResultsLog.read(log).size());
    }
}
