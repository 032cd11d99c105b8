package org.jkvm.vmm.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Every message {@code jkvm run} shows for a setting it cannot use. */
@Tag("unit")
class VmConfigTest {
    static final long MiB = 1L << 20;

    @TempDir
    Path dir;
    Path kernel;
    Path initrd;

    @BeforeEach
    void files() throws IOException {
        kernel = Files.write(dir.resolve("Image"), new byte[] {1});
        initrd = Files.write(dir.resolve("initrd.img"), new byte[] {2});
    }

    VmConfig config(Path kernel, Path initrd, int cpus, long memory, BitSet pin, Duration timeout) {
        return new VmConfig(kernel, initrd, "console=ttyS0", cpus, memory, pin, PvOptions.DEFAULT, false, timeout);
    }

    static void assertRefused(String message, Executable e) {
        SettingException x = assertThrows(SettingException.class, e);
        assertEquals(message, x.getMessage());
    }

    @Test
    void eachFrontEndNamesTheSettingItsOwnWay() {
        SettingException x = assertThrows(SettingException.class, () -> config(kernel, null, 1, 63 * MiB, null, null));
        assertEquals("memory", x.setting());
        assertEquals("--memory 63M: give at least 64M", x.describe("--memory"));
        assertEquals("\"memory\" 63M: give at least 64M", x.describe("\"memory\""));
    }

    @Test
    void aValidConfigKeepsWhatWasGiven() {
        BitSet pin = CpuSet.parse("0-1");
        VmConfig c = config(kernel, initrd, 2, 512 * MiB, pin, Duration.ofSeconds(30));
        assertEquals(kernel, c.kernel());
        assertEquals(initrd, c.initrd());
        assertEquals(2, c.cpus());
        assertEquals(512 * MiB, c.memory());
        assertEquals(pin, c.pin());
        assertEquals(Duration.ofSeconds(30), c.timeout());
    }

    @Test
    void optionalSettingsDefault() {
        VmConfig c = new VmConfig(kernel, null, null, 1, 64 * MiB, null, null, false, null);
        assertNull(c.initrd());
        assertEquals("", c.cmdline());
        assertNull(c.pin());
        assertEquals(PvOptions.DEFAULT, c.pv());
        assertNull(c.timeout());
    }

    @Test
    void missingKernelOptionIsRequired() {
        assertRefused("kernel: give the guest's arm64 Image",
                () -> config(null, null, 1, 64 * MiB, null, null));
    }

    @Test
    void kernelThatDoesNotExistIsNamed() {
        Path missing = dir.resolve("nope");
        assertRefused("kernel " + missing + ": no such file", () -> config(missing, null, 1, 64 * MiB, null, null));
    }

    @Test
    void kernelThatIsADirectoryIsRefused() {
        assertRefused("kernel " + dir + ": is a directory, not a kernel image", () -> config(dir, null, 1, 64 * MiB, null, null));
    }

    @Test
    void kernelOrInitrdThatIsADeviceIsRefusedByName() {
        Path zero = Path.of("/dev/zero");
        assertRefused("kernel /dev/zero: is a character device, not a kernel image", () -> config(zero, null, 1, 64 * MiB, null, null));
        assertRefused("initrd /dev/zero: is a character device, not an initrd", () -> config(kernel, zero, 1, 64 * MiB, null, null));
    }

    @Test
    void kernelOrInitrdLargerThanTheGuestRamIsRefused() throws IOException {
        Path big = dir.resolve("big");
        try (var ch = java.nio.channels.FileChannel.open(big, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {1}), 64 * MiB);
        }
        assertRefused("kernel " + big + ": 65 MiB is more than the guest's 64 MiB of RAM",
                () -> config(big, null, 1, 64 * MiB, null, null));
        assertRefused("initrd " + big + ": 65 MiB is more than the guest's 64 MiB of RAM",
                () -> config(kernel, big, 1, 64 * MiB, null, null));
        assertDoesNotThrow(() -> config(kernel, big, 1, 128 * MiB, null, null));
    }

    @Test
    void initrdThatDoesNotExistIsNamed() {
        Path missing = dir.resolve("no-initrd");
        assertRefused("initrd " + missing + ": no such file",
                () -> config(kernel, missing, 1, 64 * MiB, null, null));
    }

    @Test
    void zeroVcpusAreRefused() {
        assertRefused("cpus 0: a VM needs at least 1 vCPU", () -> config(kernel, null, 0, 64 * MiB, null, null));
    }

    @Test
    void negativeVcpusAreRefused() {
        assertRefused("cpus -3: a VM needs at least 1 vCPU", () -> config(kernel, null, -3, 64 * MiB, null, null));
    }

    @Test
    void memoryBelow64MiBIsRefusedInUnits() {
        assertRefused("memory 63M: give at least 64M", () -> config(kernel, null, 1, 63 * MiB, null, null));
        assertRefused("memory 0: give at least 64M", () -> config(kernel, null, 1, 0, null, null));
    }

    @Test
    void exactly64MiBIsEnough() {
        assertDoesNotThrow(() -> config(kernel, null, 1, VmConfig.MIN_MEMORY, null, null));
        assertEquals(64 * MiB, VmConfig.MIN_MEMORY);
    }

    @Test
    void memoryNotAWholeNumberOfMiBIsRefused() {
        long odd = 64 * MiB + 4096;
        assertRefused("memory " + odd + " bytes: give a whole number of MiB, e.g. 512M",
                () -> config(kernel, null, 1, odd, null, null));
    }

    @Test
    void emptyPinSetIsRefused() {
        assertRefused("pin: the CPU set is empty", () -> config(kernel, null, 1, 64 * MiB, new BitSet(), null));
    }

    @Test
    void pinSetIsCopiedInAndOut() {
        BitSet pin = CpuSet.parse("3");
        VmConfig c = config(kernel, null, 1, 64 * MiB, pin, null);
        pin.set(7);
        assertEquals(CpuSet.parse("3"), c.pin(), "changing the caller's set changes the config");
        c.pin().set(9);
        assertEquals(CpuSet.parse("3"), c.pin(), "changing the returned set changes the config");
        assertNotSame(c.pin(), c.pin());
    }

    @Test
    void zeroTimeoutIsRefused() {
        assertRefused("timeout 0: must be positive",
                () -> config(kernel, null, 1, 64 * MiB, null, Duration.ZERO));
    }

    @Test
    void negativeTimeoutIsRefused() {
        assertRefused("timeout -1: must be positive",
                () -> config(kernel, null, 1, 64 * MiB, null, Duration.ofSeconds(-1)));
    }

    @Test
    void moreVcpusThanTheHostAllowsAreRefused() {
        VmConfig c = config(kernel, null, 8, 64 * MiB, null, null);
        assertRefused("cpus 8: this host's KVM allows at most 4 vCPUs per VM", () -> c.checkAgainstHost(4));
    }

    @Test
    void asManyVcpusAsTheHostAllowsAreFine() {
        VmConfig c = config(kernel, null, 4, 64 * MiB, null, null);
        assertDoesNotThrow(() -> c.checkAgainstHost(4));
    }

    @Test
    void moreVcpusThanTheMachineHoldsAreRefusedWithoutAHost() {
        assertRefused("cpus 513: jkvm's arm64 machine has room for at most 512 vCPUs (GICv3 redistributors)",
                () -> config(kernel, null, 513, 64 * MiB, null, null));
        assertDoesNotThrow(() -> config(kernel, null, 512, 64 * MiB, null, null));
    }

    @Test
    void commandLineOverArm64LinuxsLimitIsRefused() {
        String longest = "x".repeat(VmConfig.MAX_CMDLINE_BYTES - 1);
        assertDoesNotThrow(() -> new VmConfig(kernel, null, longest, 1, 64 * MiB, null, null, false, null));
        assertRefused("cmdline 2048 bytes: arm64 Linux keeps at most 2047 bytes of command line (COMMAND_LINE_SIZE)",
                () -> new VmConfig(kernel, null, longest + "y", 1, 64 * MiB, null, null, false, null));
        assertRefused("cmdline 2048 bytes: arm64 Linux keeps at most 2047 bytes of command line (COMMAND_LINE_SIZE)",
                () -> new VmConfig(kernel, null, "\u00e9".repeat(1024), 1, 64 * MiB, null, null, false, null));
    }

    @Test
    void commandLineWithANulIsRefused() {
        assertRefused("cmdline: contains a NUL character, which would end it there",
                () -> new VmConfig(kernel, null, "quiet\0x", 1, 64 * MiB, null, null, false, null));
    }

    @Test
    void valuesAreCheckedWithoutTheFiles() {
        // what an experiment spec check uses before the kernel exists: the same limits, no file
        assertDoesNotThrow(() -> VmConfig.checkValues("quiet", 2, 512 * MiB, CpuSet.parse("0-1"), Duration.ofSeconds(5)));
        SettingException x = assertThrows(SettingException.class,
                () -> VmConfig.checkValues("quiet", 2, 32 * MiB, null, null));
        assertEquals("memory", x.setting());
        assertEquals("32M", x.value());
        assertEquals("give at least 64M", x.problem());
    }

    @Test
    void pinSetMustBeWithinTheCpusThisProcessMayUse() {
        assertDoesNotThrow(() -> CpuSet.checkWithin("pin", CpuSet.parse("1-2"), CpuSet.parse("0-3")));
        assertRefused("pin 2-5: this process may run on CPUs 0-3 only; 4-5 are not among them",
                () -> CpuSet.checkWithin("pin", CpuSet.parse("2-5"), CpuSet.parse("0-3")));
        assertRefused("pin 7: this process may run on CPUs 0,2 only; 7 is not among them",
                () -> CpuSet.checkWithin("pin", CpuSet.parse("7"), CpuSet.parse("0,2")));
    }
}
