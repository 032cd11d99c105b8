package org.jkvm.it.container;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code jkvm caps} inside a container: with the host's /dev/kvm passed in, and without. */
@Tag("container")
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JkvmCapsInContainerTest {
    // Each test skips on its own: an abort in @BeforeAll would show in surefire's counts as
    // no test run at all, not as skipped ones.
    @BeforeEach
    void requireTheTier() {
        ContainerTier.requireDockerAndImage();
        ContainerTier.jkvmJar();
    }

    @Test
    void capsSeesTheHostsKvmThroughThePassedInDevice() throws Exception {
        ContainerTier.requireHostKvm();
        String host = hostCapsJson();
        try (GenericContainer<?> withKvm = ContainerTier.container(true)) {
            withKvm.start();

            ExecResult r = withKvm.execInContainer("jkvm", "caps", "--json");

            assertEquals(0, r.getExitCode(), () -> "jkvm caps --json in the container:\n" + r);
            String json = r.getStdout();
            assertEquals(12, intField(json, "api_version"), json);
            assertEquals(intField(host, "max_vcpus"), intField(json, "max_vcpus"),
                    () -> "max_vcpus in the container vs on the host:\n" + json + "\nhost:\n" + host);
            assertEquals(stringField(host, "kvm"), stringField(json, "kvm"));
            assertEquals(stringField(host, "arch"), stringField(json, "arch"));

            // Docker's default seccomp profile refuses perf_event_open to a container without the capability.
            assertFalse(boolField(json, "per_thread"), json);
            assertFalse(boolField(json, "cpu_wide"), json);
            assertTrue(stringField(json, "per_thread_refusal").contains("--cap-add PERFMON"), json);
            assertTrue(stringField(json, "cpu_wide_refusal").contains("--cap-add PERFMON"), json);
            if ("root".equals(System.getProperty("user.name"))) {
                assertTrue(boolField(host, "per_thread") && boolField(host, "cpu_wide"),
                        () -> "root on the host reads both kinds of switch record:\n" + host);
            }
        }
    }

    @Test
    void withoutTheDeviceCapsExitsTwoWithOneLineSayingWhatToDo() throws Exception {
        try (GenericContainer<?> noKvm = ContainerTier.container(false)) {
            noKvm.start();

            ExecResult r = noKvm.execInContainer("jkvm", "caps");

            assertEquals(2, r.getExitCode(), () -> "jkvm caps without /dev/kvm:\n" + r);
            assertEquals("", r.getStdout());
            List<String> lines = r.getStderr().lines().toList();
            assertEquals(1, lines.size(), () -> "one line expected on stderr:\n" + r.getStderr());
            assertTrue(lines.getFirst().contains("no KVM"), lines.getFirst());
            assertTrue(lines.getFirst().contains("--device /dev/kvm"), lines.getFirst());
        }
    }

    /** {@code jkvm caps --json} on the host, with the JDK running this test. */
    private static String hostCapsJson() throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-jar", ContainerTier.jkvmJar().toString(), "caps", "--json")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "jkvm caps on the host did not finish");
        assertEquals(0, p.exitValue(), () -> "jkvm caps --json on the host:\n" + out);
        return out;
    }

    private static long intField(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        assertTrue(m.find(), () -> "no number \"" + name + "\" in:\n" + json);
        return Long.parseLong(m.group(1));
    }

    private static boolean boolField(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(true|false)").matcher(json);
        assertTrue(m.find(), () -> "no boolean \"" + name + "\" in:\n" + json);
        return Boolean.parseBoolean(m.group(1));
    }

    private static String stringField(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        assertTrue(m.find(), () -> "no string \"" + name + "\" in:\n" + json);
        return m.group(1);
    }
}
