package org.jkvm.vmm.arch.aarch64.fdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.IntStream;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Binding;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Device;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Gic;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Region;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The arm64 device tree, read back by dtc. The machine layout here is the tests' own (QEMU
 * virt-like addresses); the device tree takes whatever layout the spec gives it.
 */
@Tag("unit")
class ArmDeviceTreeTest {

    private static final Region RAM = new Region(0x4000_0000L, 512L << 20);
    private static final Region GICD = new Region(0x0800_0000L, 0x1_0000L);
    private static final long ITS_BASE = 0x0808_0000L;
    private static final long GICR_BASE = 0x080a_0000L;
    private static final List<Device> UART = List.of(uart(new Region(0x0a00_0000L, 0x1000), 1));
    private static final Region INITRD = new Region(0x4800_0000L, 0x40_0000L);
    private static final String BOOTARGS = "console=ttyS0 reboot=k panic=1";

    static Device uart(Region mmio, int spi) {
        return new Device(Binding.NS16550A, mmio, spi);
    }

    /** MPIDR_EL1 as KVM resets it for a vCPU id: Aff0 = id[3:0], Aff1 = id[11:4], RES1 bit 31. */
    static long kvmMpidr(int vcpuId) {
        return 0x8000_0000L | ((long) (vcpuId >> 4 & 0xff) << 8) | (vcpuId & 0xf);
    }

    static List<Long> mpidrs(int n) {
        return IntStream.range(0, n).mapToObj(ArmDeviceTreeTest::kvmMpidr).toList();
    }

    static Gic gic(int cpus, boolean its) {
        return new Gic(GICD, new Region(GICR_BASE, cpus * DeviceTreeSpec.GICR_SIZE_PER_CPU),
                its ? OptionalLong.of(ITS_BASE) : OptionalLong.empty());
    }

    static byte[] seed() {
        byte[] seed = new byte[64];
        for (int i = 0; i < seed.length; i++) {
            seed[i] = (byte) i;
        }
        return seed;
    }

    /** The reviewed configuration of golden-2cpu.dts: every optional node present. */
    static DeviceTreeSpec goldenSpec() {
        return new DeviceTreeSpec(mpidrs(2), RAM, gic(2, true), UART, BOOTARGS, Optional.of(INITRD), seed(), true);
    }

    @Test
    void twoCpuMachineMatchesTheReviewedGoldenFile() throws Exception {
        String dts = Dtc.decompile(ArmDeviceTree.build(goldenSpec()));
        String golden;
        try (InputStream in = getClass().getResourceAsStream("/fdt/golden-2cpu.dts")) {
            assertNotNull(in, "test resource fdt/golden-2cpu.dts");
            golden = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(golden, dts);
    }

    @ParameterizedTest(name = "{0} vCPUs")
    @ValueSource(ints = {1, 8, 128})
    void describesEveryVcpuAndSizesTheRedistributorsForThem(int n) throws Exception {
        var spec = new DeviceTreeSpec(mpidrs(n), RAM, gic(n, n > 1), UART, BOOTARGS, Optional.empty(), seed(), n == 8);
        var tree = Dtc.parse(Dtc.decompile(ArmDeviceTree.build(spec)));

        var cpus = tree.get("/cpus");
        assertEquals("<0x02>", cpus.get("#address-cells"));
        assertEquals("<0x00>", cpus.get("#size-cells"));
        var cpuNodes = tree.keySet().stream().filter(p -> p.startsWith("/cpus/")).toList();
        assertEquals(n, cpuNodes.size());
        for (int id = 0; id < n; id++) {
            long affinity = kvmMpidr(id) & 0xff_ffffL; // bit 31 dropped; Aff3 is zero here
            var cpu = tree.get("/cpus/cpu@" + Long.toHexString(affinity));
            assertNotNull(cpu, "cpu node of vCPU " + id);
            assertEquals("<0x00 %s>".formatted(cell(affinity)), cpu.get("reg"));
            assertEquals("\"cpu\"", cpu.get("device_type"));
            assertEquals("\"arm,armv8\"", cpu.get("compatible"));
            assertEquals("\"psci\"", cpu.get("enable-method"));
        }

        var intc = tree.get("/interrupt-controller@8000000");
        assertEquals("<0x00 0x8000000 0x00 0x10000 0x00 0x80a0000 0x00 %s>".formatted(cell(n * 0x20000L)),
                intc.get("reg"));
        assertEquals(n > 1, tree.containsKey("/interrupt-controller@8000000/msi-controller@8080000"));
        assertEquals(n == 8, tree.containsKey("/pmu"));

        var chosen = tree.get("/chosen");
        assertEquals("\"" + BOOTARGS + "\"", chosen.get("bootargs"));
        assertEquals("\"/serial@a000000\"", chosen.get("stdout-path"));
        assertFalse(chosen.containsKey("linux,initrd-start"));
        assertTrue(tree.containsKey("/serial@a000000"));
    }

    @Test
    void aVirtioMmioTransportIsAnEdgeTriggeredCoherentNodeBesideTheConsole() throws Exception {
        List<Device> devices = List.of(UART.getFirst(), new Device(Binding.VIRTIO_MMIO, new Region(0x0a20_0000L, 0x1000), 16));
        var spec = new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), devices, BOOTARGS, Optional.empty(), seed(), false);
        var tree = Dtc.parse(Dtc.decompile(ArmDeviceTree.build(spec)));
        var virtio = tree.get("/virtio@a200000");
        assertNotNull(virtio, tree.keySet().toString());
        assertEquals("\"virtio,mmio\"", virtio.get("compatible"));
        assertEquals("<0x00 0xa200000 0x00 0x1000>", virtio.get("reg"));
        assertEquals("<0x00 0x10 0x01>", virtio.get("interrupts"));
        assertTrue(virtio.containsKey("dma-coherent"));
        assertEquals("\"/serial@a000000\"", tree.get("/chosen").get("stdout-path"));
    }

    @Test
    void cpuNodesUseOnlyTheAffinityFieldsOfTheMpidr() throws Exception {
        // Aff3 = 1, Aff2 = 2, Aff1 = 3, Aff0 = 4, with bit 31 (RES1) and bit 30 (U) set.
        long mpidr = 0x01_c002_0304L;
        var spec = new DeviceTreeSpec(List.of(mpidr), RAM, gic(1, false), UART, "", Optional.empty(), new byte[0], false);
        var tree = Dtc.parse(Dtc.decompile(ArmDeviceTree.build(spec)));

        assertEquals("<0x01 0x20304>", tree.get("/cpus/cpu@100020304").get("reg"));
        assertFalse(tree.get("/chosen").containsKey("rng-seed"), "no rng-seed property for an empty seed");
    }

    @Test
    void headerNamesTheBootCpu() {
        var spec = new DeviceTreeSpec(List.of(kvmMpidr(17), kvmMpidr(0)), RAM, gic(2, false), UART, "",
                Optional.empty(), new byte[0], false);
        byte[] dtb = ArmDeviceTree.build(spec);
        assertEquals(0x101, ByteBuffer.wrap(dtb).getInt(28), "boot_cpuid_phys");
    }

    @Test
    void rejectsSpecsTheGuestCouldNotUse() {
        List<Runnable> bad = new ArrayList<>();
        bad.add(() -> new DeviceTreeSpec(List.of(), RAM, gic(1, false), UART, "", Optional.empty(), new byte[0], false));
        // Same affinity: the two values differ only in RES1 bit 31.
        bad.add(() -> new DeviceTreeSpec(List.of(0L, 0x8000_0000L), RAM, gic(2, false), UART, "",
                Optional.empty(), new byte[0], false));
        bad.add(() -> new DeviceTreeSpec(mpidrs(4), RAM, gic(3, false), UART, "", Optional.empty(), new byte[0], false));
        bad.add(() -> new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), UART, "x".repeat(2048),
                Optional.empty(), new byte[0], false));
        bad.add(() -> new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), UART, "",
                Optional.of(new Region(0x3000_0000L, 0x1000)), new byte[0], false));
        bad.add(() -> new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), List.of(uart(new Region(0x0800_8000L, 0x1000), 1)),
                "", Optional.empty(), new byte[0], false));
        bad.add(() -> uart(new Region(0x0a00_0000L, 0x1000), 988));
        bad.add(() -> new Region(0x1000, 0));
        for (var spec : bad) {
            assertThrows(IllegalArgumentException.class, spec::run);
        }
    }

    @Test
    void specKeepsItsOwnCopyOfTheSeed() {
        byte[] seed = seed();
        var spec = new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), UART, "", Optional.empty(), seed, false);
        seed[0] = 42;
        spec.rngSeed()[1] = 42;
        assertEquals(0, spec.rngSeed()[0]);
        assertEquals(1, spec.rngSeed()[1]);
        assertEquals(spec, new DeviceTreeSpec(mpidrs(1), RAM, gic(1, false), UART, "", Optional.empty(), seed(), false));
    }

    /** A cell as dtc prints it: hex, at least two digits. */
    private static String cell(long value) {
        return "0x%02x".formatted(value);
    }
}
