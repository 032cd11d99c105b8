package org.jkvm.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.VmConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.jkvm.experiment.SpecTest.errors;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Workloads that run a command (stress-ng) on a root file system image instead of an initramfs workload. */
@Tag("unit")
class CommandWorkloadSpecTest {
    private static final String FUTEX = "stress-ng --futex {workers} --timeout {seconds}s --metrics-brief";

    /** A spec with the guest's fields {@code guest} and the workloads {@code workloads}. */
    private static String spec(String guest, String workloads) {
        return """
                {
                  "name": "d",
                  "guest": { %s },
                  "vcpus": 4,
                  "pin": "0-1",
                  "workloads": [ %s ],
                  "variants": [ { "name": "off", "pvlock": "off" }, { "name": "pv", "pvlock": "userspace" } ],
                  "repetitions": 3
                }
                """.formatted(guest, workloads);
    }

    private static String command(String label, String command) {
        return "{ \"label\": \"" + label + "\", \"command\": \"" + command + "\", \"workers\": 8, \"seconds\": 5 }";
    }

    private static final String ROOTFS_GUEST = "\"kernel\": \"Image\", \"rootfs\": \"${JKVM_DEBIAN_ROOTFS}\"";

    @Test
    void aCommandWorkloadBootsTheRootFileSystemWithItsCommand() {
        ExperimentSpec s = ExperimentSpec.parse(spec(ROOTFS_GUEST, command("futex", FUTEX)), SpecTest.DIR.resolve("d.json"),
                false, Map.of("JKVM_DEBIAN_ROOTFS", "/cache/debian-arm64.ext4"));
        Workload w = s.workload("futex");
        assertEquals(ExperimentSpec.COMMAND, w.name());
        assertTrue(w.isCommand());
        assertEquals("stress-ng --futex 8 --timeout 5s --metrics-brief", w.commandLine());
        String encoded = Base64.getEncoder().encodeToString(w.commandLine().getBytes(StandardCharsets.UTF_8));
        assertEquals("console=ttyS0 panic=-1 quiet root=/dev/vda ro rootfstype=ext4 init=/sbin/jkvm-init jkvm.cmd=" + encoded,
                s.kernelCmdline(s.baseVariant(), w));
        assertNull(s.guest().initrd());
        assertEquals(List.of(SpecTest.DIR.resolve("Image"), Path.of("/cache/debian-arm64.ext4")), s.inputFiles());
        assertEquals(Set.of("JKVM_DEBIAN_ROOTFS"), s.variables());
    }

    @Test
    void theVmGetsTheImageReadOnlyAndNoInitrd(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("Image"), new byte[] {1});
        Files.write(dir.resolve("root.ext4"), new byte[4096]);
        Files.write(dir.resolve("initrd"), new byte[] {1});
        String text = spec("\"kernel\": \"Image\", \"initrd\": \"initrd\", \"rootfs\": \"root.ext4\"",
                command("futex", FUTEX) + ", { \"name\": \"cpu\", \"workers\": 1, \"seconds\": 1 }");
        ExperimentSpec s = ExperimentSpec.parse(text, dir.resolve("d.json"), false, Map.of());
        VmConfig futex = s.vmConfig(s.baseVariant(), s.workload("futex"));
        assertNull(futex.initrd());
        assertEquals(List.of(new Disk(dir.resolve("root.ext4"), true, "")), futex.disks());
        VmConfig cpu = s.vmConfig(s.baseVariant(), s.workload("cpu"));
        assertEquals(dir.resolve("initrd"), cpu.initrd());
        assertTrue(cpu.disks().isEmpty());
    }

    @Test
    void aRootFileSystemThatIsNoDiskImageIsRefusedWithTheFiles(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("Image"), new byte[] {1});
        Files.write(dir.resolve("root.ext4"), new byte[100]);
        String text = spec("\"kernel\": \"Image\", \"rootfs\": \"root.ext4\"", command("futex", FUTEX));
        Path file = dir.resolve("d.json");
        SpecException e = assertThrows(SpecException.class, () -> ExperimentSpec.parse(text, file, true, Map.of()));
        List<String> errors = e.errors().stream().map(SpecError::toString).toList();
        assertTrue(errors.contains(file + ":3:43: guest.rootfs: " + dir.resolve("root.ext4")
                + ": is 100 bytes, not a whole number of 512-byte sectors"), errors.toString());
    }

    @Test
    void eachMistakeInACommandWorkloadIsReported() {
        assertEquals(List.of("3:12 guest.rootfs: missing; workloads with a \"command\" boot on it"
                        + " (e.g. \"${JKVM_DEBIAN_ROOTFS}\", which guest/debian-rootfs/build prints)"),
                errors(spec("\"kernel\": \"Image\", \"initrd\": \"initrd\"", command("futex", FUTEX))));
        assertEquals(List.of("3:12 guest.initrd: missing; this object needs it"),
                errors(spec(ROOTFS_GUEST, command("futex", FUTEX) + ", { \"name\": \"cpu\", \"workers\": 1, \"seconds\": 1 }")));
        assertEquals(List.of("6:20 workloads[0].name: a workload with a \"command\" has no name; give it a \"label\""),
                errors(spec(ROOTFS_GUEST, "{ \"name\": \"cpu\", " + command("futex", FUTEX).substring(2))));
        assertEquals(List.of("6:18 workloads[0].label: missing; a workload with a \"command\" needs one"),
                errors(spec(ROOTFS_GUEST, "{ \"command\": \"" + FUTEX + "\", \"workers\": 1, \"seconds\": 1 }")));
        assertEquals(List.of("6:49 workloads[0].command: {cpus} is not a placeholder; a command takes {workers} and {seconds}"),
                errors(spec(ROOTFS_GUEST, command("futex", FUTEX.replace("{workers}", "{cpus}")))));
        assertEquals(List.of("6:49 workloads[0].command: its result is stress-ng's bogo ops/s: run stress-ng with --metrics-brief"),
                errors(spec(ROOTFS_GUEST, command("futex", "stress-ng --futex 4 --timeout 5s"))));
        assertEquals(List.of("6:49 workloads[0].command: the command is empty"), errors(spec(ROOTFS_GUEST, command("futex", " "))));
        assertEquals(List.of("3:79 guest.cmdline: jkvm.cmd= comes from a workload's \"command\"; take it out here"),
                errors(spec(ROOTFS_GUEST + ", \"cmdline\": \"jkvm.cmd=ZWNobw==\"", command("futex", FUTEX))));
    }

    @Test
    void aCommandTooLongForTheKernelsCommandLineIsRefused() {
        String longCommand = FUTEX + " --verbose".repeat(150);
        List<String> e = errors(spec(ROOTFS_GUEST, command("futex", longCommand)));
        assertEquals(1, e.size(), e.toString());
        assertTrue(e.getFirst().startsWith("6:49 workloads[0].command: the command line with jkvm's and workload futex's arguments is "),
                e.toString());
    }

    /**
     * A console of guest/debian-rootfs's init running a command workload ({@code stress-ng --cpu 2}
     * for 2 s; the project's kernel under QEMU TCG, -smp 2): the run's result holds stress-ng's
     * figure and the guest's counters over the command, which the init prints after its exit line.
     */
    @Test
    void aCommandRunsResultCarriesTheGuestsCountersOverTheCommand() throws IOException {
        String console = GuestCountersTest.console("tcg-debian-rootfs-command-6.12.117.log");
        ExperimentSpec s = ExperimentSpec.parse(spec(ROOTFS_GUEST, command("cpu", "stress-ng --cpu {workers} --timeout {seconds}s --metrics-brief")),
                SpecTest.DIR.resolve("d.json"), false, Map.of("JKVM_DEBIAN_ROOTFS", "/cache/debian-arm64.ext4"));
        GuestResult figure = ExperimentRunner.guestResult(s.workload("cpu"), console).orElseThrow();
        assertEquals(21.58, figure.value());
        RunGuestStats guest = RunGuestStats.fromConsoles(List.of(console));
        RunGuestStats.Vm v = guest.vms().getFirst();
        assertNull(v.unavailable());
        assertEquals(322L, v.change("uptime_cs"));
        assertEquals(117L, v.change("cpu.user"));
        assertEquals(47L, v.change("lock.lock_pending"));
        Run run = RunMatrix.of(s).runs().getFirst();
        RunResult r = RunResult.of(run, List.of(figure), 9.5, ResultsTest.T, Map.of()).withGuest(guest);
        String json = ResultsLog.toJson(r);
        assertTrue(json.contains("\"guest\":{\"vms\":[{\"changes\":{\"uptime_cs\":322,\"cpu.user\":117,"), json);
        assertEquals(r, ResultsLog.fromJson(json));
    }
}
