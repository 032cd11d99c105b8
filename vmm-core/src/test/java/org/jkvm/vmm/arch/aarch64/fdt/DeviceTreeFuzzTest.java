package org.jkvm.vmm.arch.aarch64.fdt;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Binding;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Device;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Gic;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Region;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A machine description from fuzzed counts, regions and command line: {@link DeviceTreeSpec}
 * refuses it with an {@link IllegalArgumentException} that says why, or {@link ArmDeviceTree#build}
 * writes a well-formed blob of at most 2 MiB holding every vCPU and the command line unchanged.
 * Input, little-endian: vCPUs u16 (0..1023); 0 in a u8 for KVM's MPIDRs, else one u64 each; RAM,
 * GIC distributor and redistributors as base u64 and size u64 each; an ITS flag u8 and base u64;
 * devices u8 (0..8), each base u64, size u64 and SPI u16; bootargs length u16 (0..2199) and its
 * UTF-8 bytes; an initrd flag u8, base u64 and size u64; the RNG seed's length u8 and bytes; PMU u8.
 */
@Tag("unit")
@Tag("fuzz")
class DeviceTreeFuzzTest {
    private static final int FDT_MAGIC = 0xd00dfeed;
    private static final int BEGIN_NODE = 1, END_NODE = 2, PROP = 3, NOP = 4, END = 9;

    @FuzzTest(maxDuration = "30s")
    void build(byte[] data) {
        var in = new FuzzInput(data);
        DeviceTreeSpec spec;
        try {
            spec = spec(in);
        } catch (IllegalArgumentException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "a refusal without a reason");
            return;
        }
        byte[] dtb = ArmDeviceTree.build(spec);
        assertTrue(dtb.length <= Arm64Layout.FDT_MAX, dtb.length + " bytes");
        Map<String, byte[]> props = properties(dtb);
        byte[] bootargs = (spec.bootargs() + "\0").getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(bootargs, props.get("/chosen/bootargs"), spec.toString());
        long cpus = props.keySet().stream().filter(p -> p.startsWith("/cpus/cpu@") && p.endsWith("/reg")).count();
        assertEquals(spec.mpidrs().size(), cpus, spec.toString());
    }

    private static DeviceTreeSpec spec(FuzzInput in) {
        int vcpus = in.u16() % 1024;
        boolean kvmMpidrs = in.u8() == 0;
        List<Long> mpidrs = new ArrayList<>();
        for (int i = 0; i < vcpus; i++) mpidrs.add(kvmMpidrs ? kvmMpidr(i) : in.u64());
        Region memory = new Region(in.u64(), in.u64());
        Region distributor = new Region(in.u64(), in.u64());
        Region redistributors = new Region(in.u64(), in.u64());
        boolean its = (in.u8() & 1) != 0;
        long itsBase = in.u64();
        Gic gic = new Gic(distributor, redistributors, its ? OptionalLong.of(itsBase) : OptionalLong.empty());
        List<Device> devices = new ArrayList<>();
        for (int i = in.u8() % 9; i > 0; i--) {
            devices.add(new Device(Binding.NS16550A, new Region(in.u64(), in.u64()), in.u16()));
        }
        String bootargs = new String(in.bytes(in.u16() % 2200), StandardCharsets.UTF_8);
        boolean initrd = (in.u8() & 1) != 0;
        long initrdBase = in.u64();
        long initrdSize = in.u64();
        byte[] seed = in.bytes(in.u8());
        boolean pmu = (in.u8() & 1) != 0;
        return new DeviceTreeSpec(mpidrs, memory, gic, devices, bootargs,
                initrd ? Optional.of(new Region(initrdBase, initrdSize)) : Optional.empty(), seed, pmu);
    }

    /** MPIDR_EL1 as KVM resets it for a vCPU id: Aff0 = id[3:0], Aff1 = id[11:4], RES1 bit 31. */
    private static long kvmMpidr(int id) {
        return 0x8000_0000L | ((long) (id >> 4 & 0xff) << 8) | (id & 0xf);
    }

    /**
     * Every property of the blob by its path, read as the Devicetree Specification's chapter 5
     * lays the blob out; any structural fault fails the assertion or the buffer's bounds checks.
     */
    private static Map<String, byte[]> properties(byte[] dtb) {
        ByteBuffer b = ByteBuffer.wrap(dtb);
        assertEquals(FDT_MAGIC, b.getInt(0));
        assertEquals(dtb.length, b.getInt(4));
        int structAt = b.getInt(8), stringsAt = b.getInt(12), stringsSize = b.getInt(32);
        Map<String, byte[]> props = new LinkedHashMap<>();
        List<String> path = new ArrayList<>();
        b.position(structAt);
        for (int token = b.getInt(); token != END; token = b.getInt()) {
            switch (token) {
                case BEGIN_NODE -> path.add(cString(dtb, b.position()));
                case END_NODE -> path.removeLast();
                case PROP -> {
                    int len = b.getInt(), nameAt = b.getInt();
                    assertTrue(nameAt >= 0 && nameAt < stringsSize, "property name offset " + nameAt);
                    props.put(String.join("/", path) + "/" + cString(dtb, stringsAt + nameAt),
                            Arrays.copyOfRange(dtb, b.position(), b.position() + len));
                    b.position(b.position() + len);
                }
                case NOP -> { }
                default -> throw new AssertionError("token 0x" + Integer.toHexString(token) + " at " + (b.position() - 4));
            }
            if (token == BEGIN_NODE) b.position(b.position() + path.getLast().length() + 1);
            b.position((b.position() + 3) & ~3);
        }
        assertTrue(path.isEmpty(), "unclosed nodes " + path);
        return props;
    }

    private static String cString(byte[] dtb, int at) {
        int end = at;
        while (dtb[end] != 0) end++;
        return new String(dtb, at, end - at, StandardCharsets.US_ASCII);
    }
}
