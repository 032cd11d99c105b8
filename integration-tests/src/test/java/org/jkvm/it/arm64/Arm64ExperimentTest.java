package org.jkvm.it.arm64;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short real experiment inside the emulated arm64 host: 4 vCPUs pinned onto one host CPU,
 * PV lock off against userspace, two workloads, two repetitions each; then the same command
 * again, which finds nothing left to run and reports the same results.
 */
@Tag("arm64")
class Arm64ExperimentTest {
    private static Path workloads;
    private static Path image;

    @BeforeAll
    static void host() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        image = GuestFixture.filesOrSkip().getFirst();
        Process p = new ProcessBuilder(EmulatedArm64Host.repo().resolve("guest/workloads/build").toString(), "--quiet")
                .redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Assumptions.assumeTrue(p.waitFor(10, TimeUnit.MINUTES) && p.exitValue() == 0,
                "arm64 tier skipped: guest/workloads/build failed (run it as root to see why)");
        Matcher m = Pattern.compile("JKVM_WORKLOADS_INITRD=(\\S+)").matcher(out);
        assertTrue(m.find(), out);
        workloads = Path.of(m.group(1).replace("'", ""));
    }

    @Test
    void aTwoVariantExperimentRunsReportsAndResumes(@TempDir Path tmp) throws Exception {
        Path spec = tmp.resolve("short.json");
        Files.writeString(spec, """
                {
                  "name": "short",
                  "guest": { "kernel": "Image", "initrd": "%s" },
                  "vcpus": 4,
                  "memory": "256M",
                  "pin": "0",
                  "workloads": [
                    { "name": "mmap-shared", "workers": 4, "seconds": 2 },
                    { "name": "cpu", "workers": 4, "seconds": 2 }
                  ],
                  "variants": [
                    { "name": "off", "pvlock": "off" },
                    { "name": "user", "pvlock": "userspace" }
                  ],
                  "repetitions": 2
                }
                """.formatted(workloads.getFileName()));
        String run = "java -jar jkvm.jar experiment run short.json --out out";
        Map<String, Steps.Step> out = Steps.parse(EmulatedArm64Host.run("", Duration.ofMinutes(20), new Steps()
                .step("first", run + " && wc -l < short.results.jsonl && grep -c '<svg' out/chart.svg && head -n 1 out/results.csv")
                .step("again", run + " && wc -l < short.results.jsonl")
                .script(), List.of(image, workloads, spec)).output());

        Steps.Step first = out.get("first");
        assertTrue(first != null, out.keySet().toString());
        assertEquals(0, first.exitCode(), first.output());
        assertTrue(first.output().contains("8/8") || first.output().contains("mmap-shared"), first.output());
        assertTrue(Pattern.compile("(?m)^8$").matcher(first.output()).find(), "8 results:\n" + first.output());
        assertTrue(first.output().contains("Experiment short: 8 of 8 measured runs"), "the report:\n" + first.output());
        assertTrue(first.output().contains("id,variant,workload"), "the CSV:\n" + first.output());
        assertTrue(!first.output().contains("failed: "), "a run failed:\n" + first.output());

        Steps.Step again = out.get("again");
        assertTrue(again != null, out.keySet().toString());
        assertEquals(0, again.exitCode(), again.output());
        assertTrue(Pattern.compile("(?m)^8$").matcher(again.output()).find(), "still 8 results:\n" + again.output());
        assertTrue(!again.output().contains("done in"), "nothing should run again:\n" + again.output());
    }
}
