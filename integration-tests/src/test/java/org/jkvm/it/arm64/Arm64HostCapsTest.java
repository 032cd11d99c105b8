package org.jkvm.it.arm64;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code jkvm caps} inside the emulated arm64 host, with its KVM in VHE and in nVHE mode, on
 * Debian's stock 6.12 kernel: KVM present, the SMCCC filter offered, steal time offered, and
 * the PV-lock vCPU attribute absent (the stock kernel lacks the series).
 */
@Tag("arm64")
class Arm64HostCapsTest {
    @BeforeAll
    static void host() {
        EmulatedArm64Host.requireOrSkip();
    }

    @ParameterizedTest(name = "kernel args \"{0}\" -> {1}")
    @CsvSource(value = {"'', VHE", "kvm-arm.mode=nvhe, nVHE"})
    void capsReportsKvmTheSmcccFilterPointerAuthSveAndNoPvLockAttribute(String kernelArgs, String mode) throws Exception {
        EmulatedArm64Host.Result r = EmulatedArm64Host.run(kernelArgs, Duration.ofMinutes(5),
                "java -jar jkvm.jar caps --json");
        assertEquals(0, r.exitCode(), r.output());
        String json = r.output();
        assertEquals("\"aarch64\"", field(json, "arch"));
        assertEquals("\"" + mode + "\"", field(json, "kvm"));
        assertEquals("12", field(json, "api_version"));
        assertEquals("true", field(json, "smccc_filter"));
        // QEMU's max CPU has both, and KVM offers them to guests in either mode.
        assertEquals("true", field(json, "ptrauth"));
        assertEquals("true", field(json, "sve"));
        assertEquals("true", field(json, "pvtime_attr"));
        assertEquals("false", field(json, "pvlock_attr"));
        // As root there, jkvm may read both kinds of switch record: PV-lock tracking and --preemptors can run.
        assertEquals(List.of("true", "true"), List.of(field(json, "per_thread"), field(json, "cpu_wide")), json);
    }

    private static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (\"[^\"]*\"|[^,\\n}]+)").matcher(json);
        if (!m.find()) throw new AssertionError("no \"" + name + "\" in:\n" + json);
        return m.group(1).strip();
    }
}
