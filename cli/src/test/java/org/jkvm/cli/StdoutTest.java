package org.jkvm.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Through main(), in a JVM of its own: a standard output that fails or closes stops jkvm, and says so. */
@Tag("unit")
class StdoutTest {
    @TempDir
    Path dir;

    /** A spec of 3 x {@code repetitions} runs: a long plan. */
    Path spec(int repetitions) throws IOException {
        return Files.writeString(dir.resolve("e.json"), """
                {"name": "e", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 2, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 2, "seconds": 1}],
                 "variants": [{"name": "base", "pvlock": "off"}, {"name": "b", "pvlock": "off"}, {"name": "c", "pvlock": "off"}],
                 "repetitions": %d}
                """.formatted(repetitions));
    }

    static ProcessBuilder jkvm(String... args) {
        return java(Main.class, args);
    }

    /** A JVM of its own running {@code main} with {@code args}, on this test's class path. */
    static ProcessBuilder java(Class<?> main, String... args) {
        String[] command = new String[args.length + 5];
        command[0] = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        command[1] = "--enable-native-access=ALL-UNNAMED";
        command[2] = "-cp";
        command[3] = System.getProperty("java.class.path");
        command[4] = main.getName();
        System.arraycopy(args, 0, command, 5, args.length);
        return new ProcessBuilder(command);
    }

    @Test
    void aFullDiskOnStdoutIsAFailure() throws Exception {
        Process p = jkvm("experiment", "report", spec(1).toString()).redirectOutput(new File("/dev/full")).start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue(), err);
        assertEquals("jkvm: standard output: No space left on device\n", err);

        Process help = jkvm("--help").redirectOutput(new File("/dev/full")).start();
        String helpErr = new String(help.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(help.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, help.exitValue(), helpErr);
        assertEquals("jkvm: standard output: No space left on device\n", helpErr, "picocli's own output too, without a stack trace");
    }

    @Test
    void aClosedPipeStopsThePlanAtOnce() throws Exception {
        Process p = jkvm("experiment", "plan", spec(100_000).toString()).redirectError(ProcessBuilder.Redirect.PIPE).start();
        try (var out = p.getInputStream()) {
            for (int c = out.read(); c != '\n'; c = out.read()) {
                assertTrue(c >= 0, "no line on stdout");
            }
        }
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "jkvm went on writing to a closed pipe");
        assertEquals(1, p.exitValue());
        assertEquals("", new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8), "a reader that stops is no error to report");
    }
}
