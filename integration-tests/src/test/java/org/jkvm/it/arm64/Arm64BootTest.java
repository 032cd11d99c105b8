package org.jkvm.it.arm64;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run} booting Debian's arm64 6.12 kernel inside the emulated arm64 host, and how
 * each way a guest can end shows in jkvm's exit code and output.
 */
@Tag("arm64")
class Arm64BootTest {
    private static List<Path> guest;

    @BeforeAll
    static void host() throws Exception {
        EmulatedArm64Host.requireOrSkip();
        guest = GuestFixture.filesOrSkip();
    }

    private static Map<String, Steps.Step> runSteps(Steps steps, List<Path> extra) throws Exception {
        List<Path> files = new ArrayList<>(guest);
        files.addAll(extra);
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(12), steps.script(), files);
        assertEquals(0, r.exitCode(), "the emulated host itself failed:\n" + r.output());
        return Steps.parse(r.output());
    }


    /**
     * The 8-vCPU guest asks for a PMU ({@code --pmu}); the others get none, the default. The 2-vCPU
     * boot also writes --stats-json: KVM's own vCPU statistics show its WFI and HVC exits.
     */
    @Test
    void bootsToTheMarkerWith1And2And8VcpusAllOnlineAndPowerOffEndsWith0() throws Exception {
        Steps steps = new Steps();
        String pmus = GuestFixture.command("echo PMU-DEVICES $(ls /sys/bus/event_source/devices | grep -c pmuv3)");
        for (int n : new int[] {1, 2, 8}) {
            String stats = n == 2 ? " --stats-json cpus2.json" : "";
            String then = n == 2 ? "; rc=$?; cat cpus2.json; exit $rc" : "";
            steps.step("cpus" + n, GuestFixture.jkvmRun("--cpus " + n + " --memory 512M --timeout 300"
                    + (n == 8 ? " --pmu" : "") + stats, pmus) + then);
        }
        Map<String, Steps.Step> out = runSteps(steps, List.of());
        for (int n : new int[] {1, 2, 8}) {
            Steps.Step s = Steps.require(out, "cpus" + n);
            assertTrue(s.output().contains("JKVM-GUEST-READY cpus=" + n + " "), s.output());
            assertTrue(s.output().contains("PMU-DEVICES " + (n == 8 ? 1 : 0)), "the guest's PMUs follow --pmu:\n" + s.output());
            assertTrue(s.output().contains("the guest powered off"), s.output());
            assertEquals(0, s.exitCode(), s.output());
        }
        String json = Steps.require(out, "cpus2").output();
        int at = json.indexOf("\"kvm\": {");
        int workloadAt = json.indexOf("\"workload\": {", at);
        assertTrue(at >= 0 && workloadAt > at, "no KVM statistics, or no workload window (the guest's ready line to its"
                + " command's exit), in --stats-json:\n" + json);
        String kvm = json.substring(at, workloadAt);
        String workload = json.substring(workloadAt);
        assertFalse(kvm.contains("\"unavailable\""), "KVM statistics unavailable on the 6.12 host:\n" + kvm);
        System.err.println("KVM statistics of a 2-vCPU boot (emulated arm64 host):\n" + kvm + "\nover its command:\n" + workload);
        for (String counter : List.of("wfi_exit_stat", "hvc_exit_stat", "exits")) {
            long[] perVcpu = perVcpu(counter, kvm);
            assertEquals(2, perVcpu.length, counter + " per vCPU:\n" + kvm);
            assertTrue(Arrays.stream(perVcpu).sum() > 0, counter + " grew by nothing:\n" + kvm);
            long[] inWindow = perVcpu(counter, workload);
            assertEquals(2, inWindow.length, counter + " per vCPU over the command:\n" + workload);
            assertTrue(Arrays.stream(inWindow).sum() <= Arrays.stream(perVcpu).sum(), counter + ": the command is part of the run");
        }
        Matcher ms = Pattern.compile("\"ms\": (\\d+)").matcher(workload);
        assertTrue(ms.find() && Long.parseLong(ms.group(1)) < 60_000, "the command's window has a length:\n" + workload);
    }

    private static long[] perVcpu(String counter, String json) {
        return Pattern.compile("\"" + counter + "\": (\\d+)").matcher(json).results().mapToLong(r -> Long.parseLong(r.group(1))).toArray();
    }

    /**
     * Pointer authentication and SVE, which the emulated host's KVM offers (its CPU is QEMU's
     * {@code max}): the vCPUs have them by default, as a QEMU {@code -cpu host} guest of the same
     * host does, and {@code --cpu ptrauth=off,sve=off} takes them away. The guest kernel's hwcaps
     * say what it found in its ID registers and switched on.
     */
    @Test
    void theGuestHasPointerAuthenticationAndSveUnlessSwitchedOff() throws Exception {
        String hwcaps = GuestFixture.command("echo \"HWCAPS $(grep -m1 '^Features' /proc/cpuinfo | cut -d: -f2) .\"");
        Map<String, Steps.Step> out = runSteps(new Steps()
                .step("default", GuestFixture.jkvmRun("--timeout 300", hwcaps))
                .step("off", GuestFixture.jkvmRun("--timeout 300 --cpu ptrauth=off,sve=off", hwcaps)), List.of());
        Steps.Step on = Steps.require(out, "default");
        Steps.Step off = Steps.require(out, "off");
        for (Steps.Step s : List.of(on, off)) assertEquals(0, s.exitCode(), s.output());
        List<String> withThem = hwcaps(on);
        List<String> without = hwcaps(off);
        for (String cap : List.of("paca", "pacg", "sve")) {
            assertTrue(withThem.contains(cap), cap + " missing by default: " + withThem);
            assertFalse(without.contains(cap), cap + " still there with --cpu ptrauth=off,sve=off: " + without);
        }
        assertTrue(on.output().contains(", CPU features ptrauth sve"), on.output());
        assertFalse(off.output().contains("CPU features"), off.output());
    }

    private static List<String> hwcaps(Steps.Step s) {
        Matcher m = Pattern.compile("HWCAPS (.*) \\.").matcher(s.output());
        assertTrue(m.find(), s.output());
        return List.of(m.group(1).strip().split("\\s+"));
    }

    @Test
    void aPanickingGuestEndsWithThePanicExitCodeAndTheReportShowsThePanic() throws Exception {
        Map<String, Steps.Step> out = runSteps(new Steps().step("panic",
                GuestFixture.jkvmRun("--timeout 300", "jkvm.panic=1")), List.of());
        Steps.Step s = Steps.require(out, "panic");
        assertEquals(3, s.exitCode(), s.output());
        assertTrue(s.output().contains("jkvm: the guest panicked: Kernel panic - not syncing"), s.output());
    }

    @Test
    void aBusyGuestStopsOnSigintWithin2Seconds() throws Exception {
        String busy = GuestFixture.jkvmRun("--cpus 2 --timeout 300",
                GuestFixture.command("while :; do :; done & while :; do :; done"));
        // jkvm runs in the foreground (a shell ignores SIGINT in its background jobs, and a
        // program started with SIGINT ignored rightly keeps ignoring it); a background helper
        // waits for the guest's marker, notes the time and sends SIGINT.
        String killer = "(while ! grep -q JKVM-GUEST-READY log 2>/dev/null; do sleep 0.2; done; sleep 1; "
                + "cut -d' ' -f1 /proc/uptime > t0; kill -INT $$) & exec " + busy + " > log 2>&1";
        String script = "sh -c \"" + killer.replace("\\", "\\\\").replace("\"", "\\\"").replace("$", "\\$") + "\"; rc=$?; "
                + "t1=$(cut -d' ' -f1 /proc/uptime); cat log; echo \"STOPPED rc=$rc t0=$(cat t0) t1=$t1\"; "
                + "pidof java >/dev/null && echo STILL-THERE || echo GONE";
        Map<String, Steps.Step> out = runSteps(new Steps().step("sigint", script), List.of());
        Steps.Step s = Steps.require(out, "sigint");
        Matcher m = Pattern.compile("STOPPED rc=(\\d+) t0=([\\d.]+) t1=([\\d.]+)").matcher(s.output());
        assertTrue(m.find(), s.output());
        assertEquals(130, Integer.parseInt(m.group(1)), s.output());
        double seconds = Double.parseDouble(m.group(3)) - Double.parseDouble(m.group(2));
        assertTrue(seconds < 2.0, "jkvm took " + seconds + " s to stop after SIGINT\n" + s.output());
        assertTrue(s.output().contains("jkvm: stopped by SIGINT"), s.output());
        assertTrue(s.output().contains("GONE"), s.output());
    }

    @Test
    void stealTimeGrowsWith8VcpusPinnedOnOneHostCpuAndStaysFlatWhenOff() throws Exception {
        String measure = "for i in 1 2 3 4 5 6 7 8; do (while :; do :; done) & done; "
                + "s1=$(head -n1 /proc/stat | tr -s ' ' | cut -d' ' -f9); sleep 4; "
                + "s2=$(head -n1 /proc/stat | tr -s ' ' | cut -d' ' -f9); echo \"STEAL $s1 $s2\"";
        String options = "--cpus 8 --pin 0 --memory 512M --timeout 600";
        Map<String, Steps.Step> out = runSteps(new Steps()
                .step("on", GuestFixture.jkvmRun(options, GuestFixture.command(measure)))
                .step("off", GuestFixture.jkvmRun(options + " --pv steal-time=off", GuestFixture.command(measure))),
                List.of());
        long[] on = steal(Steps.require(out, "on"));
        long[] off = steal(Steps.require(out, "off"));
        assertTrue(on[1] - on[0] >= 50, "steal ticks with steal time on: " + on[0] + " -> " + on[1]);
        assertEquals(0, off[1] - off[0], "steal ticks with steal time off: " + off[0] + " -> " + off[1]);
    }

    private static long[] steal(Steps.Step s) {
        Matcher m = Pattern.compile("STEAL (\\d+) (\\d+)").matcher(s.output());
        assertTrue(m.find(), s.output());
        assertEquals(0, s.exitCode(), s.output());
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    @Test
    void badInputsGetOneLineErrorsAndExitCode2(@TempDir Path tmp) throws Exception {
        byte[] image = Files.readAllBytes(guest.getFirst());
        Path truncated = tmp.resolve("truncated.img");
        Files.write(truncated, Arrays.copyOf(image, 4096));
        // A well-formed Image header (no PE/COFF part) claiming 1 GiB in memory.
        Path huge = tmp.resolve("huge.img");
        ByteBuffer header = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        header.putInt(0, 0x14000010).putLong(16, 1L << 30).putLong(24, 0xa).putInt(56, 0x644d5241);
        Files.write(huge, header.array());
        String run = "java -jar jkvm.jar run --cmdline console=ttyS0 --timeout 60 ";
        Map<String, Steps.Step> out = runSteps(new Steps()
                .step("not-an-image", run + "--kernel initramfs.cpio.gz")
                .step("truncated", run + "--kernel truncated.img")
                .step("too-large", run + "--kernel huge.img --memory 256M")
                .step("missing-initrd", run + "--kernel Image --initrd nowhere.cpio")
                .step("zero-cpus", run + "--kernel Image --cpus 0")
                .step("too-many-cpus", run + "--kernel Image --cpus 100000")
                .step("unknown-pv", run + "--kernel Image --pv bogus=on")
                .step("unknown-cpu-feature", run + "--kernel Image --cpu mte=on"),
                List.of(truncated, huge));
        Map<String, String> expect = Map.of(
                "not-an-image", "not an arm64 Image",
                "truncated", "truncated",
                "too-large", "RAM",
                "missing-initrd", "nowhere.cpio",
                "zero-cpus", "--cpus 0",
                "too-many-cpus", "at most",
                "unknown-pv", "unknown feature 'bogus'",
                "unknown-cpu-feature", "unknown feature 'mte'; known: ptrauth, sve");
        for (Map.Entry<String, String> e : expect.entrySet()) {
            Steps.Step s = Steps.require(out, e.getKey());
            assertEquals(2, s.exitCode(), e.getKey() + ":\n" + s.output());
            List<String> lines = s.output().lines().filter(l -> !l.isBlank()).toList();
            assertEquals(1, lines.size(), e.getKey() + " printed more than one line:\n" + s.output());
            assertTrue(lines.getFirst().startsWith("jkvm: "), lines.getFirst());
            assertTrue(lines.getFirst().toLowerCase().contains(e.getValue().toLowerCase()),
                    e.getKey() + ": '" + e.getValue() + "' not in: " + lines.getFirst());
        }
    }

    @Test
    void a128VcpuVmIsSetUpAndStarted() throws Exception {
        Map<String, Steps.Step> out = runSteps(new Steps().step("big",
                GuestFixture.jkvmRun("--cpus 128 --memory 1G --timeout 20", "")), List.of());
        Steps.Step s = Steps.require(out, "big");
        Matcher m = Pattern.compile("jkvm: 128 vCPUs, 1G RAM, set up in (\\d+) ms").matcher(s.output());
        assertTrue(m.find(), s.output());
        System.err.println("128-vCPU VM set up in " + m.group(1) + " ms (emulated arm64 host)");
        assertTrue(s.exitCode() == 0 || s.exitCode() == 5, "powered off or timed out, not failed:\n" + s.output());
    }
}
