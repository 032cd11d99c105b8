package org.jkvm.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import org.jkvm.kvm.Arch;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.Net;
import org.jkvm.vmm.config.SettingException;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.config.Vsock;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jkvm run} short of booting: the wrong-host refusal, and how its options and --config file
 * become a {@link VmConfig}. picocli converts the values (bad ones stop it before {@code call()});
 * on x86_64 {@code call()} refuses before building the VM, so the rest is reached through
 * RunCommand's {@code config()} after picocli has parsed the arguments.
 */
@Tag("unit")
class RunCommandTest {
    static final String ARCH_MESSAGE_START = "jkvm: jkvm run boots arm64 guests on an arm64 host with KVM; this host is ";

    @TempDir
    Path dir;
    Path kernel;

    @BeforeEach
    void kernel() throws IOException {
        kernel = Files.write(dir.resolve("Image"), new byte[] {1});
    }

    static void assumeNotArm64() {
        Assumptions.assumeTrue(Arch.host() != Arch.AARCH64, "jkvm run only refuses on a host that is not arm64");
    }

    @Test
    void runOnANonArm64HostSaysSoInOneLineAndExits2() {
        assumeNotArm64();
        Cli r = Cli.run("run");
        assertEquals(2, r.exitCode());
        assertEquals("", r.out());
        String[] lines = r.errLines();
        assertEquals(1, lines.length, r.err());
        assertTrue(lines[0].startsWith(ARCH_MESSAGE_START + System.getProperty("os.arch")), lines[0]);
        assertTrue(lines[0].contains("./demo"), lines[0]);
    }

    @Test
    void hostCheckComesBeforeTheConfigChecksOnANonArm64Host() {
        assumeNotArm64();
        Cli r = Cli.run("run", "--kernel", dir.resolve("missing").toString());
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith(ARCH_MESSAGE_START), r.err());
    }

    @Test
    void unknownOptionIsAUsageError() {
        Cli r = Cli.run("run", "--bogus");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().contains("Unknown option: '--bogus'"), r.err());
    }

    /** What {@code jkvm run args...} would boot, or the exception it would stop with. */
    static VmConfig config(String... args) throws Exception {
        return command(args).config();
    }

    static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    @Test
    void defaultsAreOneVcpu512MAndTheSerialConsole() throws Exception {
        VmConfig c = config("--kernel", kernel.toString());
        assertEquals(kernel, c.kernel());
        assertNull(c.initrd());
        assertEquals(1, c.cpus());
        assertEquals(512L << 20, c.memory());
        assertEquals("console=ttyS0", c.cmdline());
        assertNull(c.pin());
        assertTrue(c.pv().stealTime());
        assertFalse(c.pmu(), "no guest PMU unless --pmu");
        assertNull(c.timeout());
    }

    @Test
    void everyOptionReachesTheConfig() throws Exception {
        Path initrd = Files.write(dir.resolve("initrd"), new byte[] {2});
        VmConfig c = config("--kernel", kernel.toString(), "--initrd", initrd.toString(), "--cmdline", "quiet",
                "--cpus", "4", "--memory", "1G", "--pin", "0-3", "--pv", "steal-time=off", "--pmu", "--timeout", "60");
        assertEquals(initrd, c.initrd());
        assertEquals("quiet", c.cmdline());
        assertEquals(4, c.cpus());
        assertEquals(1L << 30, c.memory());
        assertEquals(CpuSet.parse("0-3"), c.pin());
        assertFalse(c.pv().stealTime());
        assertTrue(c.pmu());
        assertEquals(Duration.ofSeconds(60), c.timeout());
    }

    /**
     * A value the option's converter refuses stops picocli's parsing: one line on stderr, exit 2, on
     * any host (it comes before the host check).
     */
    static void assertRefused(String message, String... args) {
        Cli r = Cli.run(prepend("run", args));
        assertEquals(2, r.exitCode(), r.err());
        assertEquals("", r.out());
        assertArrayEquals(new String[] {"jkvm: " + message}, r.errLines(), r.err());
    }

    @Test
    void disksReachTheConfigInOrderWithTheirSettings() throws Exception {
        Path root = Files.write(dir.resolve("root.img"), new byte[1024]);
        Path data = Files.write(dir.resolve("data.img"), new byte[512]);
        VmConfig c = config("--kernel", kernel.toString(), "--disk", root.toString(),
                "--disk", data + ",ro,serial=data-1", "--rng");
        assertEquals(List.of(new Disk(root, false, ""), new Disk(data, true, "data-1")), c.disks());
        assertTrue(c.rng());
        assertEquals(List.of(), config("--kernel", kernel.toString()).disks());
    }

    @Test
    void vsockReachesTheConfigWithItsContextId() throws Exception {
        Path socket = dir.resolve("v.sock");
        assertEquals(new Vsock(socket, Vsock.DEFAULT_CID), config("--kernel", kernel.toString(), "--vsock", socket.toString()).vsock());
        assertEquals(new Vsock(socket, 7), config("--kernel", kernel.toString(), "--vsock", socket + ",cid=7").vsock());
        assertEquals(null, config("--kernel", kernel.toString()).vsock());
    }

    @Test
    void aBadVsockIsOneLineBeforeTheGuestStarts() throws IOException {
        Path socket = dir.resolve("v.sock");
        assertRefused("--vsock " + socket + ",port=1: unknown setting 'port=1'; give PATH[,cid=N]",
                "--kernel", kernel.toString(), "--vsock", socket + ",port=1");
        assertRefused("--vsock cid=2: the guest's context id must be 3 to 4294967294",
                "--kernel", kernel.toString(), "--vsock", socket + ",cid=2");
        Path taken = Files.createFile(socket);
        assertRefused("--vsock " + taken + ": exists already; remove it if no VM listens there",
                "--kernel", kernel.toString(), "--vsock", taken.toString());
        assertRefused("--vsock " + dir.resolve("no/v.sock") + ": its directory does not exist",
                "--kernel", kernel.toString(), "--vsock", dir.resolve("no/v.sock").toString());
    }

    @Test
    void netGivesTheGuestACardOnATapFromTheCommandLineOrTheConfigFile() throws Exception {
        assertEquals(new Net("tap0", "52:54:00:00:00:01"),
                config("--kernel", kernel.toString(), "--net", "tap=tap0,mac=52:54:00:00:00:01").net());
        assertEquals(null, config("--kernel", kernel.toString()).net());
        Path file = Files.writeString(dir.resolve("net.conf"), "kernel = " + kernel + "\nnet = tap=jkvm0\n");
        assertEquals("jkvm0", config("--config", file.toString()).net().tap());
        assertRefused("--net tap=tap0,vhost=on: unknown setting 'vhost=on'; give tap=NAME[,mac=52:54:00:xx:xx:xx]",
                "--kernel", kernel.toString(), "--net", "tap=tap0,vhost=on");
    }

    @Test
    void aBadDiskIsOneLineNamingItsPathBeforeTheGuestStarts() throws IOException {
        Path missing = dir.resolve("missing.img");
        assertRefused("--disk " + missing + ": no such file", "--kernel", kernel.toString(), "--disk", missing.toString());
        assertRefused("--disk " + dir + ": is a directory, not a disk image", "--kernel", kernel.toString(), "--disk", dir.toString());
        Path odd = Files.write(dir.resolve("odd.img"), new byte[1000]);
        assertRefused("--disk " + odd + ": is 1000 bytes, not a whole number of 512-byte sectors",
                "--kernel", kernel.toString(), "--disk", odd.toString());
        Path ok = Files.write(dir.resolve("ok.img"), new byte[512]);
        assertRefused("--disk " + ok + ",rw: unknown setting 'rw'; give PATH[,ro][,serial=S]",
                "--kernel", kernel.toString(), "--disk", ok + ",rw");
        assertRefused("--disk " + ok + ": the serial '" + "s".repeat(21) + "' is not at most 20 ASCII characters",
                "--kernel", kernel.toString(), "--disk", ok + ",serial=" + "s".repeat(21));
    }

    @Test
    void unknownPvFeatureIsRefusedListingTheKnownOnes() {
        assertRefused("--pv bogus=on: unknown feature 'bogus'; known: steal-time", "--kernel", kernel.toString(), "--pv", "bogus=on");
    }

    @Test
    void badMemorySizeIsRefused() {
        assertRefused("'lots' is not a size: write e.g. 512M or 2G", "--kernel", kernel.toString(), "--memory", "lots");
    }

    @Test
    void badPinIsRefused() {
        assertRefused("'3-1' is not a CPU list: write e.g. 0, 0-3 or 0,2,4-7", "--kernel", kernel.toString(), "--pin", "3-1");
    }

    @Test
    void nonNumericCpusIsRefused() {
        assertRefused("--cpus two: not a whole number", "--kernel", kernel.toString(), "--cpus", "two");
    }

    @Test
    void nonNumericTimeoutIsRefused() {
        assertRefused("--timeout 1m: not a whole number", "--kernel", kernel.toString(), "--timeout", "1m");
    }

    @Test
    void missingKernelIsRefusedNamingTheOption() {
        // the core names the setting; the CLI's error handler says it as the option
        SettingException e = assertThrows(SettingException.class, () -> config());
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(2, new ErrorHandler().handleExecutionException(e, cl, null));
        assertEquals("jkvm: --kernel: give the guest's arm64 Image" + System.lineSeparator(), err.toString());
    }

    @Test
    void configFileSuppliesSettings() throws Exception {
        Path file = Files.writeString(dir.resolve("vm.conf"),
                "kernel = " + kernel + "\ncpus = 2\nmemory = 256M\npv = steal-time=off\npmu = true\ncmdline = console=ttyS0 quiet\n");
        VmConfig c = config("--config", file.toString());
        assertEquals(kernel, c.kernel());
        assertEquals(2, c.cpus());
        assertEquals(256L << 20, c.memory());
        assertFalse(c.pv().stealTime());
        assertTrue(c.pmu());
        assertEquals("console=ttyS0 quiet", c.cmdline());
    }

    @Test
    void configFileGivesADiskAndTheRngWhichADiskOnTheCommandLineReplaces() throws Exception {
        Path image = Files.write(dir.resolve("disk.img"), new byte[1024]);
        Path other = Files.write(dir.resolve("other.img"), new byte[512]);
        Path file = Files.writeString(dir.resolve("vm.conf"),
                "kernel = " + kernel + "\ndisk = " + image + ",ro,serial=conf-1\nrng = true\n");
        VmConfig c = config("--config", file.toString());
        assertEquals(List.of(new Disk(image, true, "conf-1")), c.disks());
        assertTrue(c.rng());
        assertEquals(List.of(new Disk(other, false, "")), config("--config", file.toString(), "--disk", other.toString()).disks());
        Path bad = Files.writeString(dir.resolve("bad.conf"), "kernel = " + kernel + "\ndisk = " + image + ",rw\n");
        assertRefused("--disk " + image + ",rw: unknown setting 'rw'; give PATH[,ro][,serial=S]", "--config", bad.toString());
    }

    @Test
    void configFileGivesMoreDisksInTheOrderOfTheirNumbers() throws Exception {
        Path a = Files.write(dir.resolve("a.img"), new byte[512]);
        Path b = Files.write(dir.resolve("b.img"), new byte[512]);
        Path c = Files.write(dir.resolve("c.img"), new byte[512]);
        Path file = Files.writeString(dir.resolve("vm.conf"), "kernel = " + kernel + "\ndisk.10 = " + c + "\ndisk = " + a
                + ",serial=root\ndisk.2 = " + b + ",ro\n");
        assertEquals(List.of(new Disk(a, false, "root"), new Disk(b, true, ""), new Disk(c, false, "")),
                config("--config", file.toString()).disks());
        assertEquals(List.of(new Disk(c, false, "")), config("--config", file.toString(), "--disk", c.toString()).disks());
        Path noFirst = Files.writeString(dir.resolve("more.conf"), "kernel = " + kernel + "\ndisk.3 = " + b + "\ndisk.2 = " + a + "\n");
        assertEquals(List.of(new Disk(a, false, ""), new Disk(b, false, "")), config("--config", noFirst.toString()).disks());
        Path bad = Files.writeString(dir.resolve("bad.conf"), "kernel = " + kernel + "\ndisk = " + a + "\ndisk.2 = " + b + ",rw\n");
        assertRefused("--disk " + b + ",rw: unknown setting 'rw'; give PATH[,ro][,serial=S]", "--config", bad.toString());
        Path key = Files.writeString(dir.resolve("key.conf"), "kernel = " + kernel + "\ndisk.x = " + a + "\n");
        assertRefused("--config " + key + ": unknown setting 'disk.x'", "--config", key.toString());
    }

    @Test
    void resultsPortGivesTheGuestAConsoleAndMayNotReplaceAnInput() throws Exception {
        assertFalse(config("--kernel", kernel.toString()).console());
        assertTrue(config("--kernel", kernel.toString(), "--virtio-console").console());
        Path results = dir.resolve("results.txt");
        RunCommand c = command("--kernel", kernel.toString(), "--results-port", results.toString());
        assertTrue(c.config().console());
        try (ClaimedOutput out = c.claimResults()) {
            assertFalse(Files.exists(results), "written only when the run ends");
            out.write("RESULT 1\n");
        }
        assertEquals("RESULT 1\n", Files.readString(results));
        RunCommand over = command("--kernel", kernel.toString(), "--results-port", kernel.toString());
        assertEquals("--results-port " + kernel + ": is the kernel " + kernel + "; choose another file",
                assertThrows(Exception.class, over::checkOutputs).getMessage());
    }

    @Test
    void commandLineWinsOverTheConfigFile() throws Exception {
        Path file = Files.writeString(dir.resolve("vm.conf"), "kernel = " + kernel + "\ncpus = 2\nmemory = 256M\n");
        VmConfig c = config("--config", file.toString(), "--cpus", "3");
        assertEquals(3, c.cpus());
        assertEquals(256L << 20, c.memory());
    }

    @Test
    void unknownSettingInTheConfigFileIsNamed() throws IOException {
        Path file = Files.writeString(dir.resolve("vm.conf"), "kernel = " + kernel + "\nmemroy = 1G\n");
        assertRefused("--config " + file + ": unknown setting 'memroy'", "--config", file.toString());
    }

    @Test
    void malformedEscapeInTheConfigFileIsNamed() throws IOException {
        Path file = Files.writeString(dir.resolve("bad.conf"), "cmdline = console=\\u00zz\n");
        assertRefused("--config " + file + ": a malformed \\uXXXX escape (write a backslash as \\\\)",
                "--config", file.toString());
    }

    @Test
    void missingConfigFileIsNamed() {
        Path file = dir.resolve("nope.conf");
        assertRefused("--config " + file + ": no such file", "--config", file.toString());
    }

    @Test
    void aConfigFileThatIsNoFileOrTooLargeIsRefusedByName() throws IOException {
        assertRefused("--config /dev/zero: is a character device, not a config file", "--config", "/dev/zero");
        assertRefused("--config " + dir + ": is a directory, not a config file", "--config", dir.toString());
        Path big = Files.writeString(dir.resolve("big.conf"), "#".repeat(65 << 10) + "\n");
        assertRefused("--config " + big + ": 66561 bytes is more than the 64 KiB a config file may have", "--config", big.toString());
    }

    @Test
    void profileOutOverTheKernelOrTheSymbolsIsRefusedBeforeTheGuestRuns() throws Exception {
        Path map = Files.writeString(dir.resolve("System.map"), "ffff800080000000 T _text\n");
        RunCommand run = command("--kernel", kernel.toString(), "--profile", "--profile-out", kernel.toString());
        assertEquals("--profile-out " + kernel + ": is the kernel " + kernel + "; choose another file",
                assertThrows(Exception.class, run::checkOutputs).getMessage());
        RunCommand again = command("--kernel", kernel.toString(), "--profile", "--symbols", map.toString(),
                "--profile-out", map.toString());
        assertEquals("--profile-out " + map + ": is the --symbols file " + map + "; choose another file",
                assertThrows(Exception.class, again::checkOutputs).getMessage());
    }

    @Test
    void statsJsonOverAnInputIsRefusedBeforeTheGuestRuns() throws Exception {
        Path conf = Files.writeString(dir.resolve("vm.conf"), "kernel = " + kernel + "\n");
        CommandLine cl = Main.commandLine();
        cl.parseArgs("run", "--config", conf.toString(), "--stats-json", kernel.toString());
        RunCommand run = cl.getSubcommands().get("run").getCommand();
        Exception e = assertThrows(Exception.class, run::checkOutputs);
        assertEquals("--stats-json " + kernel + ": is the kernel " + kernel + "; choose another file", e.getMessage());
        cl.parseArgs("run", "--kernel", kernel.toString(), "--stats-json", conf.toString(), "--config", conf.toString());
        RunCommand again = cl.getSubcommands().get("run").getCommand();
        assertEquals("--stats-json " + conf + ": is the --config file " + conf + "; choose another file",
                assertThrows(Exception.class, again::checkOutputs).getMessage());
    }

    @Test
    void badValueInTheConfigFileIsRefusedLikeOnTheCommandLine() throws IOException {
        Path file = Files.writeString(dir.resolve("vm.conf"), "kernel = " + kernel + "\ncpus = two\n");
        assertRefused("--cpus two: not a whole number", "--config", file.toString());
        Path memory = Files.writeString(dir.resolve("m.conf"), "memory = lots\n");
        assertRefused("'lots' is not a size: write e.g. 512M or 2G", "--config", memory.toString());
    }

    @Test
    void badSettingsExitWith2AndOneLine() {
        // what picocli does with config()'s exceptions once the host check has passed
        for (Exception e : new Exception[] {new IllegalArgumentException("--pv bogus=on: unknown feature 'bogus'"),
                new UserError("--cpus two: not a whole number")}) {
            StringWriter err = new StringWriter();
            CommandLine cl = Main.commandLine();
            cl.setErr(new PrintWriter(err, true));
            assertEquals(2, new ErrorHandler().handleExecutionException(e, cl, null));
            assertEquals("jkvm: " + e.getMessage() + System.lineSeparator(), err.toString());
        }
    }

    @Test
    void otherParseErrorsKeepPicocliMessages() {
        Cli r = Cli.run("run", "--cpus");
        assertEquals(2, r.exitCode());
        assertTrue(r.err().startsWith("Missing required parameter for option '--cpus'"), r.err());
    }

    @Test
    void otherFailuresExitWith1() {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(1, new ErrorHandler().handleExecutionException(new IllegalStateException("boom"), cl, null));
        assertEquals("jkvm: boom" + System.lineSeparator(), err.toString());
    }

    /** The command picocli has filled from {@code jkvm run args...}, to reach what it checks before KVM on any host. */
    static RunCommand command(String... args) {
        CommandLine cl = Main.commandLine();
        cl.parseArgs(prepend("run", args));
        return cl.getSubcommands().get("run").getCommand();
    }

    /** What jkvm prints and exits with when {@code e} escapes a command. */
    static void assertHandled(int exitCode, String line, Exception e) {
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(exitCode, new ErrorHandler().handleExecutionException(e, cl, null));
        assertEquals(line + System.lineSeparator(), err.toString());
    }

    @Test
    void cmdlineOverArm64LinuxsLimitIsRefusedNamingTheOption() {
        SettingException e = assertThrows(SettingException.class, () -> config("--kernel", kernel.toString(), "--cmdline", "x".repeat(2048)));
        assertHandled(2, "jkvm: --cmdline 2048 bytes: arm64 Linux keeps at most 2047 bytes of command line (COMMAND_LINE_SIZE)", e);
    }

    @Test
    void pinWithACpuThisProcessMayNotUseIsRefusedBeforeKvmIsOpened() {
        RunCommand c = command("--kernel", kernel.toString(), "--pin", "2-5");
        SettingException e = assertThrows(SettingException.class, () -> c.checkBeforeBoot(c.config(), CpuSet.parse("0-3")));
        assertHandled(2, "jkvm: --pin 2-5: this process may run on CPUs 0-3 only; 4-5 are not among them", e);
        RunCommand fits = command("--kernel", kernel.toString(), "--pin", "1-2");
        assertNull(assertDoesNotThrow(() -> fits.checkBeforeBoot(fits.config(), CpuSet.parse("0-3"))));
    }

    @Test
    void vmmPinNeedsAPinForTheVcpusAndCpusOutsideItThisProcessMayUse() {
        RunCommand alone = command("--kernel", kernel.toString(), "--vmm-pin", "1");
        SettingException e = assertThrows(SettingException.class, () -> alone.checkBeforeBoot(alone.config(), CpuSet.parse("0-3")));
        assertHandled(2, "jkvm: --vmm-pin 1: without --pin the vCPU threads would run there too: give --pin with the CPUs they may use", e);
        RunCommand outside = command("--kernel", kernel.toString(), "--pin", "0", "--vmm-pin", "3-4");
        e = assertThrows(SettingException.class, () -> outside.checkBeforeBoot(outside.config(), CpuSet.parse("0-3")));
        assertHandled(2, "jkvm: --vmm-pin 3-4: this process may run on CPUs 0-3 only; 4 is not among them", e);
        RunCommand shared = command("--kernel", kernel.toString(), "--pin", "0-1", "--vmm-pin", "1-3");
        e = assertThrows(SettingException.class, () -> shared.checkBeforeBoot(shared.config(), CpuSet.parse("0-3")));
        assertHandled(2, "jkvm: --vmm-pin 1-3: shares CPU 1 with --pin 0-1: give the rest of jkvm CPUs outside --pin", e);
        RunCommand fits = command("--kernel", kernel.toString(), "--pin", "0", "--vmm-pin", "1-3");
        assertNull(assertDoesNotThrow(() -> fits.checkBeforeBoot(fits.config(), CpuSet.parse("0-3"))));
    }

    /** The refusal {@code jkvm run --stats-json target} gets before the guest boots. */
    UserError statsJsonRefused(Path target) {
        RunCommand c = command("--kernel", kernel.toString(), "--stats-json", target.toString());
        return assertThrows(UserError.class, () -> c.checkBeforeBoot(c.config(), CpuSet.parse("0")));
    }

    @Test
    void statsJsonThatCannotBeWrittenIsRefusedBeforeKvmIsOpened() throws IOException {
        Path noFolder = dir.resolve("no/such/stats.json");
        UserError e = statsJsonRefused(noFolder);
        assertHandled(2, "jkvm: --stats-json " + noFolder + ": no such folder " + dir.resolve("no/such"), e);
        assertEquals("--stats-json " + dir + ": is a directory", statsJsonRefused(dir).getMessage());
        Path underAFile = kernel.resolve("stats.json");
        assertEquals("--stats-json " + underAFile + ": cannot create a file in " + kernel + ": Not a directory",
                statsJsonRefused(underAFile).getMessage());
        Path locked = Files.createDirectory(dir.resolve("locked"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
        // root may write in any folder, but not in sysfs
        Path folder = Files.isWritable(locked) ? Path.of("/sys") : locked;
        Path noPermission = folder.resolve("jkvm-stats.json");
        assertTrue(statsJsonRefused(noPermission).getMessage().startsWith("--stats-json " + noPermission + ": cannot create a file in "
                + folder + ": "), statsJsonRefused(noPermission).getMessage());
        try (var left = Files.list(dir)) {
            assertEquals(List.of("Image", "locked"), left.map(p -> p.getFileName().toString()).sorted().toList(), "no file left behind");
        }
    }

    @Test
    void statsJsonIsClaimedBeforeBootAndReplacedOnlyAtTheEnd() throws Exception {
        Path stats = Files.writeString(dir.resolve("stats.json"), "old");
        RunCommand c = command("--kernel", kernel.toString(), "--stats-json", stats.toString());
        try (ClaimedOutput out = c.checkBeforeBoot(c.config(), CpuSet.parse("0"))) {
            assertEquals("old", Files.readString(stats), "the run has not ended");
            out.write("{}\n");
        }
        assertEquals("{}\n", Files.readString(stats));
        try (ClaimedOutput out = c.checkBeforeBoot(c.config(), CpuSet.parse("0"))) {
            assertEquals(3, countFiles(), "the claim is a file next to it");
        }
        assertEquals("{}\n", Files.readString(stats), "a run that failed before its end leaves it as it was");
        assertEquals(2, countFiles(), "and takes its claim away");
    }

    private long countFiles() throws IOException {
        try (var files = Files.list(dir)) {
            return files.count();
        }
    }
}
