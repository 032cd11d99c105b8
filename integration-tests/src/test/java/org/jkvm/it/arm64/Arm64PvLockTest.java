package org.jkvm.it.arm64;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * The PV-lock device on Debian's stock 6.12 host kernel (no PV-lock series), seen from a
 * bare-metal guest (guest/pvlock-probe) on every vCPU of a 4-vCPU VM: discovery, per-vCPU
 * structures, and another vCPU's {@code preempted} flipping while the vCPUs share the host's
 * CPUs with hogs; {@code --vmm-pin} moving every other thread of jkvm off the vCPUs' CPU;
 * {@code off} advertising nothing; {@code track-only} advertising nothing either while jkvm
 * tracks the same hogged vCPUs' preemptions and writes their flags, and with {@code --pvlock-batch}
 * reads them in batches (fewer wake-ups, later flags); {@code kernel} refused; and
 * pvlock-device's own arm64 tests (the attribute's ENXIO path) run inside the host.
 */
@Tag("arm64")
class Arm64PvLockTest {
    private static final long REGION = 0x0A10_0000L;
    private static Path probe;

    @BeforeAll
    static void host() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        Process p = new ProcessBuilder(EmulatedArm64Host.repo().resolve("guest/pvlock-probe/build").toString())
                .redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        Assumptions.assumeTrue(p.waitFor(5, TimeUnit.MINUTES) && p.exitValue() == 0 && out.startsWith("JKVM_PVLOCK_PROBE="),
                "arm64 tier skipped: guest/pvlock-probe/build failed (needs gcc-aarch64-linux-gnu: ./setup --tests)");
        probe = Path.of(out.substring(out.indexOf('=') + 1));
    }

    private static String probeRun(String mode, String extra) {
        return "java -jar jkvm.jar run --kernel probe.img --cpus 4 --memory 64M --timeout 300 --pvlock " + mode
                + " " + extra;
    }

    @Test
    void userspaceModeGivesEveryVcpuAStructureAndTheGuestSeesAnotherVcpuPreempted() throws Exception {
        // Overcommit: 4 vCPUs and a hog on each of the host's 2 CPUs. (With every vCPU on a single
        // host CPU no two vCPUs ever run at once, so a correct flag is non-zero whenever the
        // observing vCPU looks: the observer needs a second host CPU to see one go back to zero.)
        String hogs = "taskset -c 0 sh -c 'while :; do :; done' & h0=$!; taskset -c 1 sh -c 'while :; do :; done' & h1=$!";
        Map<String, Steps.Step> out = run(new Steps()
                .step("userspace", hogs + "; " + probeRun("userspace", "--pin 0-1 --cmdline probe.seconds=4")
                        + " --stats-json userspace.json; rc=$?; kill $h0 $h1; cat userspace.json; exit $rc")
                .step("off", probeRun("off", "--cmdline probe.seconds=1"))
                .step("track-only", hogs + "; " + probeRun("track-only", "--pin 0-1 --cmdline probe.seconds=2")
                        + " --stats-json track.json; rc=$?; kill $h0 $h1; cat track.json; exit $rc")
                .step("track-batched", hogs + "; " + probeRun("track-only", "--pin 0-1 --pvlock-batch 50 --cmdline probe.seconds=2")
                        + " --stats-json batched.json; rc=$?; kill $h0 $h1; cat batched.json; exit $rc")
                // While the probe watches the flags, where each of jkvm's threads may run.
                .step("vmm-pin", probeRun("userspace", "--pin 0 --vmm-pin 1 --cmdline probe.seconds=4") + " > v.out 2>&1 & j=$!;"
                        + " until grep -q 'PVPROBE cpu=3' v.out || ! kill -0 $j 2>/dev/null; do sleep 0.2; done; "
                        + ThreadPlacement.listing("j") + " wait $j; rc=$?; cat v.out; exit $rc")
                .step("kernel", probeRun("kernel", "--cmdline probe.seconds=1")));

        Steps.Step u = Steps.require(out, "userspace");
        assertEquals(0, u.exitCode(), u.output());
        List<Long> addresses = new ArrayList<>();
        Matcher m = Pattern.compile("PVPROBE cpu=(\\d) uid=(\\w+) features=0x(\\p{XDigit}+) pvlock=0x(\\p{XDigit}+)")
                .matcher(u.output());
        while (m.find()) {
            assertEquals("ok", m.group(2), "the KVM UID, vcpu " + m.group(1));
            assertTrue((Long.parseLong(m.group(3), 16) & 4) != 0, "features bit 2 on vcpu " + m.group(1));
            addresses.add(Long.parseLong(m.group(4), 16));
        }
        assertEquals(4, addresses.size(), u.output());
        for (int v = 0; v < 4; v++) assertEquals(REGION + 64L * v, addresses.get(v), "vcpu " + v + "'s structure");
        assertTrue(u.output().contains("PVPROBE addresses distinct=yes aligned64=yes count=4"), u.output());
        Matcher o = Pattern.compile("PVPROBE observe cpu=(\\d) went_nonzero=(\\d+) back_to_zero=(\\d+)").matcher(u.output());
        boolean flipped = false;
        while (o.find()) flipped |= Long.parseLong(o.group(2)) > 0 && Long.parseLong(o.group(3)) > 0;
        assertTrue(flipped, "no vCPU's preempted went non-zero and back to zero:\n" + u.output());
        assertTrue(u.output().contains("\"mode\": \"userspace\""), u.output());
        assertTrue(Pattern.compile("\"tracking_started_ms\": \\d+").matcher(u.output()).find(),
                "the guest's PV-lock calls start the preemption tracker:\n" + u.output());
        assertTrue(u.output().contains("PVPROBE done"), u.output());

        Steps.Step off = Steps.require(out, "off");
        assertEquals(0, off.exitCode(), off.output());
        notOffered(off.output(), "off");

        Steps.Step t = Steps.require(out, "track-only");
        assertEquals(0, t.exitCode(), t.output());
        notOffered(t.output(), "track-only");
        assertTrue(t.output().contains("\"mode\": \"track-only\"") && t.output().contains("\"answered_by\": null"), t.output());
        assertTrue(Pattern.compile("\"tracking_started_ms\": \\d+").matcher(t.output()).find(),
                "tracking starts without a PV-lock call:\n" + t.output());
        long set = Pattern.compile("\"preempted_set\": (\\d+)").matcher(t.output()).results()
                .mapToLong(r -> Long.parseLong(r.group(1))).sum();
        assertTrue(set > 0, "the hogs preempt the vCPUs, and jkvm flags them where the guest cannot look:\n" + t.output());
        Steps.Step b = Steps.require(out, "track-batched");
        assertEquals(0, b.exitCode(), b.output());
        assertTrue(b.output().contains("read every 50 ms"), "the switch source names the period:\n" + b.output());
        long wakeups = figure(b.output(), "tracker_wakeups");
        long read = figure(b.output(), "switches");
        assertTrue(wakeups > 0 && read > 2 * wakeups, "a batch holds several switches: " + read + " read in " + wakeups
                + " wake-ups\n" + b.output());
        assertEquals(List.of(0L, 0L), List.of(figure(b.output(), "tracker_records_dropped"), figure(b.output(), "tracker_rings_full")),
                "50 ms of these vCPUs' switches leave their rings room:\n" + b.output());
        assertTrue(figure(b.output(), "mean_ns") > figure(t.output(), "mean_ns"),
                "batched flags come later than flags written at each switch:\n" + b.output() + "\n" + t.output());
        Steps.Step v = Steps.require(out, "vmm-pin");
        assertEquals(0, v.exitCode(), v.output());
        assertTrue(v.output().contains("PVPROBE done"), v.output());
        ThreadPlacement.assertPinned(v.output(), "0", "1", 4);

        Steps.Step k = Steps.require(out, "kernel");
        assertEquals(2, k.exitCode(), k.output());
        assertTrue(k.output().contains("lacks the PV-lock series"), k.output());
    }

    /** The one whole-number figure named {@code name} in a run's --stats-json. */
    private static long figure(String output, String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(output);
        assertTrue(m.find(), name + " in:\n" + output);
        return Long.parseLong(m.group(1));
    }

    /** Every vCPU of the probe finds bit 2 clear and its PV-lock call unsupported. */
    private static void notOffered(String output, String mode) {
        Matcher f = Pattern.compile("PVPROBE cpu=\\d uid=ok features=0x(\\p{XDigit}+) pvlock=unsupported").matcher(output);
        int n = 0;
        while (f.find()) {
            assertEquals(0, Long.parseLong(f.group(1), 16) & 4, "bit 2 must be clear with --pvlock " + mode);
            n++;
        }
        assertEquals(4, n, output);
        assertTrue(output.contains("PVPROBE pvlock unavailable"), output);
    }

    @Test
    void pvlockDevicesOwnArm64TestsPassInsideTheHost(@TempDir Path tmp) throws Exception {
        Path launcher = Path.of(System.getProperty("jkvm.container.consoleLauncher", ""));
        Path testClasses = EmulatedArm64Host.repo().resolve("pvlock-device/target/test-classes");
        Assumptions.assumeTrue(Files.isRegularFile(launcher) && Files.isDirectory(testClasses),
                "arm64 tier skipped: the console launcher or pvlock-device's test classes are not built (mvn verify builds them)");
        Path tests = tmp.resolve("tests.jar");
        Process jar = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jar").toString(),
                "--create", "--file", tests.toString(), "-C", testClasses.toString(), ".").inheritIO().start();
        assertEquals(0, jar.waitFor());
        Path console = tmp.resolve("console.jar");
        Files.copy(launcher, console);
        String cmd = "java --enable-native-access=ALL-UNNAMED -jar console.jar execute -cp jkvm.jar:tests.jar"
                + " --select-package org.jkvm.pvlock --include-tag arm64 --fail-if-no-tests --disable-banner"
                + " --details=tree";
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(10), cmd, List.of(tests, console));
        assertEquals(0, r.exitCode(), r.output());
        assertTrue(r.output().contains("PvLockAttributeTest"), r.output());
        assertTrue(r.output().contains("0 tests failed"), r.output());
        assertTrue(r.output().contains("PV-lock attribute absent (stock kernel)")
                || r.output().contains("PV-lock attribute present"), r.output());
    }

    private static Map<String, Steps.Step> run(Steps steps) throws IOException, InterruptedException {
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(12), steps.script(), List.of(probe));
        assertEquals(0, r.exitCode(), "the emulated host itself failed:\n" + r.output());
        return Steps.parse(r.output());
    }

}
