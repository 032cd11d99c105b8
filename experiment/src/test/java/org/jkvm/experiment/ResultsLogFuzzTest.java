package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes as a results log, read as {@code report} reads it and opened as a resumed
 * {@code run} opens it: an {@link IOException} naming the file, which leaves it as it was, or
 * results whose lines, written back, read as they were written; after opening, the file ends on
 * a whole line and reads back as the results the open found. Input: the log file's bytes. The
 * dictionary adds numbers and times at and past the limits, and escapes.
 */
@Tag("unit")
@Tag("fuzz")
class ResultsLogFuzzTest {
    @TempDir
    static Path dir;

    @DictionaryEntries({"1e400", "-1e400", "4.9e-324", "9223372036854775808", "1e15", "NaN", "\\u0000", "\\ud800",
        "+1000000000-12-31T23:59:59Z", "\"higher\"", "\"lower\""})
    @FuzzTest(maxDuration = "30s")
    void read(byte[] data) throws IOException {
        Path file = dir.resolve("fuzz.results.jsonl");
        Files.write(file, data);
        List<RunResult> read;
        try {
            read = ResultsLog.read(file);
        } catch (IOException e) {
            assertTrue(e.getMessage().startsWith(file + ":"), e.getMessage());
            assertRefusedByOpen(file, data);
            return;
        }
        for (RunResult r : read) {
            String line = ResultsLog.toJson(r);
            assertEquals(line, ResultsLog.toJson(ResultsLog.fromJson(line)), "a result that does not read back as written");
        }
        List<RunResult> opened;
        try (ResultsLog log = ResultsLog.open(file)) {
            opened = log.results();
        }
        assertEquals(read, opened);
        byte[] after = Files.readAllBytes(file);
        assertTrue(after.length == 0 || after[after.length - 1] == '\n', "the log does not end on a whole line");
        assertEquals(opened, ResultsLog.read(file));
    }

    private static void assertRefusedByOpen(Path file, byte[] data) throws IOException {
        try (ResultsLog log = ResultsLog.open(file)) {
            throw new AssertionError("read refused the log but open took it: " + log.results());
        } catch (IOException e) {
            assertTrue(e.getMessage().startsWith(file + ":"), e.getMessage());
        }
        assertArrayEquals(data, Files.readAllBytes(file), "a refused log was changed");
    }
}
