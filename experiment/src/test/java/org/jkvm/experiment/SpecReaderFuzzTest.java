package org.jkvm.experiment;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.vmm.config.Sizes;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any text as an experiment spec: a {@link SpecException} whose every problem names the file, a
 * place in it and what is wrong, or a spec whose derived values (run count, per-variant vCPUs,
 * pins and kernels, timeouts, memory, the files each workload boots on) are usable. Input: the
 * spec file's bytes. The dictionary adds what the seeds lack: escapes a path cannot hold,
 * variables, numbers at the limits, the command workloads' fields and placeholders.
 */
@Tag("unit")
@Tag("fuzz")
class SpecReaderFuzzTest {
    private static final String FILE = "fuzz.json";
    private static final Map<String, String> ENV = Map.of("JKVM_GUEST_IMAGE", "/guest/Image", "EMPTY", "");

    @DictionaryEntries({"\\u0000", "\\ud800", "\\u2028", "${", "${EMPTY}", "${JKVM_GUEST_IMAGE}", "2147483647",
        "2147483648", "100001", "1e2", "-0", "0.5", "9T", "\"command\"", "\"rootfs\"", "{workers}", "{seconds}", "{",
        "stress-ng --metrics-brief"})
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        ExperimentSpec spec;
        try {
            spec = ExperimentSpec.parse(text, Path.of("specs", FILE), false, ENV);
        } catch (SpecException e) {
            assertFalse(e.errors().isEmpty(), "a SpecException without errors");
            for (SpecError error : e.errors()) {
                assertEquals("specs/" + FILE, error.file(), error.toString());
                assertTrue(error.line() >= 0 && error.col() >= 0 && (error.line() == 0 || error.col() > 0), error.toString());
                assertFalse(error.message().isBlank(), error.toString());
            }
            return;
        }
        String what = spec.toString();
        assertTrue(spec.runCount() > 0, "run count " + spec.runCount() + " of " + what);
        assertEquals(spec.memory(), Sizes.parse(spec.memoryText()), what);
        assertEquals(spec.base(), spec.baseVariant().name(), what);
        spec.referenceVariant().ifPresent(r -> assertFalse(r.name().equals(spec.base()), what));
        assertFalse(spec.inputFiles().isEmpty(), what);
        for (Variant v : spec.variants()) {
            assertTrue(spec.vcpus(v) > 0, what);
            assertFalse(spec.pinSet(v).isEmpty(), what);
            double overcommit = spec.overcommit(v);
            assertTrue(overcommit > 0 && Double.isFinite(overcommit), what);
            assertTrue(spec.kernel(v).isAbsolute(), what);
        }
        for (Workload w : spec.workloads()) {
            assertTrue(spec.cmdline(spec.baseVariant(), w).endsWith(w.guestArgs()), what);
            assertEquals(w.isCommand(), w.name().equals(ExperimentSpec.COMMAND), what);
            assertTrue(spec.inputFiles().contains(w.isCommand() ? spec.guest().rootfs() : spec.guest().initrd()), what);
            assertTrue(spec.timeout(w).isPositive(), what);
            assertEquals(w, spec.workload(w.label()), what);
        }
    }
}
