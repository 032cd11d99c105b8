package org.jkvm.vmm.arch.aarch64.fdt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.config.VmConfig;

/**
 * Everything {@link ArmDeviceTree#build} needs to describe one arm64 guest, validated once here:
 * distinct vCPU affinities, a redistributor region large enough for every vCPU, RAM and device
 * ranges that do not overlap, SPIs the GIC has, an initrd inside RAM, and bootargs Linux will
 * not truncate.
 *
 * @param mpidrs     the MPIDR_EL1 of each vCPU in vCPU order, as read back from KVM; only the
 *                   affinity fields (Aff3, Aff2..Aff0) are used, so RES1 bit 31 and the U/MT bits
 *                   may be present. The first is the boot CPU. The affinities must be distinct.
 * @param memory     guest RAM
 * @param gic        the GICv3 the VM was given
 * @param devices    the devices on the MMIO bus, in the order their nodes are written; the
 *                   first {@link Binding#NS16550A} is the console
 * @param bootargs   the kernel command line
 * @param initrd     where the initrd was loaded, if any
 * @param rngSeed    bytes for {@code /chosen/rng-seed}, which Linux mixes into its entropy pool
 *                   at boot; empty for none
 * @param pmu        whether the vCPUs have a PMUv3 (KVM_ARM_VCPU_PMU_V3) with its interrupt on
 *                   PPI {@link ArmDeviceTree#PMU_PPI}
 */
public record DeviceTreeSpec(
        List<Long> mpidrs,
        Region memory,
        Gic gic,
        List<Device> devices,
        String bootargs,
        Optional<Region> initrd,
        byte[] rngSeed,
        boolean pmu) {

    /** Bits of MPIDR_EL1 that identify a CPU: Aff3 [39:32] and Aff2..Aff0 [23:0]. */
    public static final long MPIDR_AFFINITY_MASK = 0xff_00ff_ffffL;

    /** Size of one GICv3 redistributor (RD_base and SGI_base frames), from KVM's uapi. */
    public static final long GICR_SIZE_PER_CPU = KvmArm64.KVM_VGIC_V3_REDIST_SIZE();

    /** Size of the ITS register frames KVM maps, from KVM's uapi. */
    public static final long ITS_SIZE = KvmArm64.KVM_VGIC_V3_ITS_SIZE();

    /** The largest SPI number the GICv3 binding allows. */
    private static final int MAX_SPI = 987;

    /**
     * A guest-physical address range.
     *
     * @param base the first address
     * @param size the length in bytes, positive
     */
    public record Region(long base, long size) {
        /** Validates that the range is non-empty and does not wrap. */
        public Region {
            if (base < 0 || size <= 0 || base + size < base) {
                throw new IllegalArgumentException("bad guest-physical range: base 0x%x size 0x%x"
                        .formatted(base, size));
            }
        }

        /** Shows the range in hex, as addresses are read: {@code [0x40000000..0x60000000)}. */
        @Override
        public String toString() {
            return "[0x%x..0x%x)".formatted(base, base + size);
        }
    }

    /**
     * The GICv3 regions.
     *
     * @param distributor     the distributor (GICD), usually 64 KiB
     * @param redistributors  one region holding every vCPU's redistributor (GICR), at least
     *                        {@link #GICR_SIZE_PER_CPU} per vCPU
     * @param itsBase         the ITS base address, if the VM has an ITS; it spans {@link #ITS_SIZE}
     */
    public record Gic(Region distributor, Region redistributors, OptionalLong itsBase) {
        /** Validates that the ITS range, if any, does not wrap. */
        public Gic {
            Objects.requireNonNull(distributor, "distributor");
            Objects.requireNonNull(redistributors, "redistributors");
            Objects.requireNonNull(itsBase, "itsBase (OptionalLong.empty() for none)");
            itsBase.ifPresent(base -> new Region(base, ITS_SIZE));
        }
    }

    /**
     * What a device on the MMIO bus is, as the device tree says it: the binding its node follows
     * (one {@link ArmDeviceTree} method each) and the name of its node.
     */
    public enum Binding {
        /** A 16550A UART, bindings/serial/8250.yaml. */
        NS16550A("serial", "ns16550a"),
        /** A virtio-mmio transport, bindings/virtio/mmio.yaml. */
        VIRTIO_MMIO("virtio", "virtio,mmio");

        private final String nodeName;
        private final String compatible;

        Binding(String nodeName, String compatible) {
            this.nodeName = nodeName;
            this.compatible = compatible;
        }

        /** The generic node name the binding asks for, before the unit address. */
        public String nodeName() {
            return nodeName;
        }

        /** The binding's {@code compatible} string. */
        public String compatible() {
            return compatible;
        }
    }

    /**
     * A device on the MMIO bus.
     *
     * @param binding what it is
     * @param reg     its MMIO window
     * @param spi     its interrupt as an SPI number (GIC INTID minus 32)
     */
    public record Device(Binding binding, Region reg, int spi) {
        /** Validates the SPI number. */
        public Device {
            Objects.requireNonNull(binding, "binding");
            Objects.requireNonNull(reg, "reg");
            if (spi < 0 || spi > MAX_SPI) {
                throw new IllegalArgumentException("%s at %s: SPI %d is outside 0..%d"
                        .formatted(binding.compatible(), reg, spi, MAX_SPI));
            }
        }

        /** The node's name with its unit address, e.g. {@code serial@9000000}. */
        public String nodeName() {
            return binding.nodeName() + "@" + Long.toHexString(reg.base());
        }
    }

    /** Validates the whole machine description; messages say which value is wrong and why. */
    public DeviceTreeSpec {
        mpidrs = List.copyOf(Objects.requireNonNull(mpidrs, "mpidrs"));
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(gic, "gic");
        devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
        Objects.requireNonNull(bootargs, "bootargs");
        Objects.requireNonNull(initrd, "initrd (Optional.empty() for none)");
        rngSeed = Objects.requireNonNull(rngSeed, "rngSeed (an empty array for none)").clone();

        if (mpidrs.isEmpty()) {
            throw new IllegalArgumentException("a VM needs at least one vCPU; mpidrs is empty");
        }
        var seen = new HashSet<Long>();
        for (long mpidr : mpidrs) {
            if (!seen.add(mpidr & MPIDR_AFFINITY_MASK)) {
                throw new IllegalArgumentException("two vCPUs have the affinity 0x%x (MPIDR 0x%x)"
                        .formatted(mpidr & MPIDR_AFFINITY_MASK, mpidr));
            }
        }
        long needed = mpidrs.size() * GICR_SIZE_PER_CPU;
        if (gic.redistributors().size() < needed) {
            throw new IllegalArgumentException("the GIC redistributor region is 0x%x bytes; %d vCPUs need 0x%x"
                    .formatted(gic.redistributors().size(), mpidrs.size(), needed));
        }
        int bootargsBytes = bootargs.getBytes(StandardCharsets.UTF_8).length;
        if (bootargsBytes >= VmConfig.MAX_CMDLINE_BYTES) {
            throw new IllegalArgumentException("bootargs is %d bytes; arm64 Linux keeps at most %d"
                    .formatted(bootargsBytes, VmConfig.MAX_CMDLINE_BYTES - 1));
        }
        if (bootargs.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("bootargs contains a NUL character");
        }
        initrd.ifPresent(range -> {
            if (range.base() < memory.base() || range.base() + range.size() > memory.base() + memory.size()) {
                throw new IllegalArgumentException("the initrd %s lies outside guest RAM %s".formatted(range, memory));
            }
        });
        checkDisjoint(memory, gic, devices);
    }

    /** The console: the first UART, if there is one. */
    public Optional<Device> console() {
        return devices.stream().filter(d -> d.binding() == Binding.NS16550A).findFirst();
    }

    private record Named(String name, Region region) {}

    /** The guest would see two devices, or a device and RAM, at one address. */
    private static void checkDisjoint(Region memory, Gic gic, List<Device> devices) {
        var named = new ArrayList<Named>();
        named.add(new Named("RAM", memory));
        named.add(new Named("GIC distributor", gic.distributor()));
        named.add(new Named("GIC redistributors", gic.redistributors()));
        gic.itsBase().ifPresent(base -> named.add(new Named("GIC ITS", new Region(base, ITS_SIZE))));
        devices.forEach(d -> named.add(new Named(d.nodeName(), d.reg())));
        for (int i = 0; i < named.size(); i++) {
            for (int j = i + 1; j < named.size(); j++) {
                Region a = named.get(i).region();
                Region b = named.get(j).region();
                if (a.base() < b.base() + b.size() && b.base() < a.base() + a.size()) {
                    throw new IllegalArgumentException("%s %s overlaps %s %s".formatted(
                            named.get(i).name(), a, named.get(j).name(), b));
                }
            }
        }
    }

    /** Returns a copy of the RNG seed, so the record stays immutable. */
    @Override
    public byte[] rngSeed() {
        return rngSeed.clone();
    }

    // The seed is an array: equality and the string form compare and show its contents.
    @Override
    public boolean equals(Object o) {
        return o instanceof DeviceTreeSpec s
                && mpidrs.equals(s.mpidrs) && memory.equals(s.memory) && gic.equals(s.gic)
                && devices.equals(s.devices) && bootargs.equals(s.bootargs) && initrd.equals(s.initrd)
                && Arrays.equals(rngSeed, s.rngSeed) && pmu == s.pmu;
    }

    @Override
    public int hashCode() {
        return Objects.hash(mpidrs, memory, gic, devices, bootargs, initrd, Arrays.hashCode(rngSeed), pmu);
    }

    @Override
    public String toString() {
        return "DeviceTreeSpec[mpidrs=%s, memory=%s, gic=%s, devices=%s, bootargs=%s, initrd=%s, rngSeed=%s, pmu=%s]"
                .formatted(mpidrs, memory, gic, devices, bootargs, initrd, HexFormat.of().formatHex(rngSeed), pmu);
    }
}
