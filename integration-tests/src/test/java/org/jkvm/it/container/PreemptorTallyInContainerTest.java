package org.jkvm.it.container;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.github.dockerjava.api.model.Capability;
import org.jkvm.kvm.HostCpus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The preemptor tally's task 0 inside a container, on the host's real scheduler: a thread of
 * this test, outside any container, spins on one CPU, and pvlock-device's {@code WaitBehindProbe}
 * spins a stand-in vCPU on the same CPU, once on the host and once in a container (a nested PID
 * namespace, with CAP_SYS_ADMIN for CPU-wide perf events). On the host the stand-in's waits are
 * charged to the spinning thread by name; in the container perf names every task outside its
 * namespace as task 0, so the same waits go to "idle, or a task outside this PID namespace",
 * never to a plain "idle".
 */
@Tag("container")
class PreemptorTallyInContainerTest {
    private static final String PROBE = "org.jkvm.pvlock.WaitBehindProbe";
    private static final String SPINNER = "outside-spinner";
    private static final long MILLIS = 3000;
    /** Two always-runnable threads on one CPU share it about equally: each waits about half the time. */
    private static final double LEAST_SHARE = 0.3;

    /** One row of the probe's tally. */
    private record Row(long nanos, String kind, String name) {}

    /** The probe's output: whether it ran in a nested PID namespace, and its rows, largest first. */
    private record Tally(boolean nested, List<Row> rows, String text) {
        static Tally parse(String out) {
            boolean nested = false;
            List<Row> rows = new ArrayList<>();
            for (String line : out.lines().toList()) {
                if (line.startsWith("nested ")) nested = Boolean.parseBoolean(line.substring(7).strip());
                if (line.startsWith("row ")) {
                    String[] f = line.split(" ", 4);
                    rows.add(new Row(Long.parseLong(f[1]), f[2], f.length > 3 ? f[3] : ""));
                }
            }
            return new Tally(nested, rows, out);
        }

        Row top() {
            assertTrue(!rows.isEmpty(), () -> "the probe charged no one:\n" + text);
            return rows.getFirst();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aTaskOutsideTheContainersPidNamespaceIsNotTakenForTheIdleTask() throws Exception {
        ContainerTier.requireDockerAndImage();
        Path testClasses = ContainerTier.testClassesWith("jkvm.container.pvlockDevice", "pvlock-device", PROBE);
        BitSet mine = HostCpus.currentAffinity();
        Assumptions.assumeTrue(mine.cardinality() >= 2,
                () -> ContainerTier.skip("the probe needs a CPU to measure and another to read from; this test has " + mine));
        int cpu = mine.length() - 1;

        AtomicBoolean stop = new AtomicBoolean();
        Thread spinner = Thread.ofPlatform().name(SPINNER).start(() -> {
            BitSet one = new BitSet();
            one.set(cpu);
            HostCpus.pinCurrentThread(one);
            while (!stop.get()) Thread.onSpinWait();
        });
        try (GenericContainer<?> c = ContainerTier.withProbeClasses(ContainerTier.container(false), testClasses)
                // CAP_PERFMON would do, but Debian 12's Docker (20.10) refuses it as unknown.
                .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withCapAdd(Capability.SYS_ADMIN))) {
            c.start();
            Tally host = Tally.parse(probeOnHost(testClasses, cpu));
            ExecResult r = ContainerTier.runProbe(c, PROBE, String.valueOf(cpu), String.valueOf(MILLIS));
            String out = r.getStdout() + r.getStderr();
            System.out.println("the probe on the host:\n" + host.text() + "the probe in the container:\n" + out);
            assertEquals(0, r.getExitCode(), () -> "the probe in the container:\n" + out);
            Tally inside = Tally.parse(out);

            assertTrue(!host.nested(), host.text());
            assertEquals(new Row(host.top().nanos(), "OTHER", SPINNER), host.top(),
                    "on the host the stand-in waited mostly behind the spinner, named");
            assertTrue(host.top().nanos() > LEAST_SHARE * MILLIS * 1e6, host.text());

            assertTrue(inside.nested(), inside.text());
            assertEquals(new Row(inside.top().nanos(), "IDLE", "idle, or a task outside this PID namespace"), inside.top(),
                    "in the container the same waits went to task 0, told as possibly outside");
            assertTrue(inside.top().nanos() > LEAST_SHARE * MILLIS * 1e6, inside.text());
            assertTrue(inside.rows().stream().noneMatch(row -> row.name().equals(SPINNER)),
                    "the container cannot name a task outside it: " + inside.text());
        } finally {
            stop.set(true);
            spinner.join();
        }
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aContainerWithoutTheCapabilityIsToldWhatToGiveIt() throws Exception {
        ContainerTier.requireDockerAndImage();
        Path testClasses = ContainerTier.testClassesWith("jkvm.container.pvlockDevice", "pvlock-device", PROBE);
        try (GenericContainer<?> c = ContainerTier.withProbeClasses(ContainerTier.container(false), testClasses)) {
            c.start();
            ExecResult r = ContainerTier.runProbe(c, PROBE, "0", "100");
            String out = r.getStdout() + r.getStderr();
            assertTrue(r.getExitCode() != 0, () -> "root in a container without the capability opened CPU-wide perf events:\n" + out);
            assertTrue(out.contains("perf_event_open(") && out.contains("EPERM")
                    && out.contains("in a container root is not enough") && out.contains("--cap-add PERFMON")
                    && out.contains("--cap-add SYS_ADMIN"), out);
        }
    }

    /** The probe run on the host, by this test's JDK, with the jar the containers get. */
    private static String probeOnHost(Path testClasses, int cpu) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", ContainerTier.jkvmJar() + ":" + testClasses, PROBE, String.valueOf(cpu), String.valueOf(MILLIS))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe on the host did not finish:\n" + out);
        assertEquals(0, p.exitValue(), () -> "the probe on the host:\n" + out);
        return out;
    }
}
