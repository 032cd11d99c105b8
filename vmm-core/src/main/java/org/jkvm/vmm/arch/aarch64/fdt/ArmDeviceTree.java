package org.jkvm.vmm.arch.aarch64.fdt;

import java.util.List;

/**
 * Builds the device tree of jkvm's arm64 machine, a minimal {@code virt}-like board: vCPUs
 * started by PSCI over HVC, RAM, a GICv3 (optionally with an ITS), the architected timer, a
 * 16550 UART as console, and optionally a PMUv3. The devices on the MMIO bus are written in
 * the order the spec lists them, one node each, as kvmtool walks its device list.
 *
 * <p>One method per node, in the manner of Firecracker's {@code arch/aarch64/fdt.rs}, each short
 * enough to check against its binding under Linux's
 * {@code Documentation/devicetree/bindings/} (named in each method's comment).
 *
 * <p>Interrupt specifiers use the GICv3 binding's three cells: type (0 SPI, 1 PPI), number
 * within the type, flags (1 edge rising, 4 level high). The GICv3 binding has no CPU-mask
 * field in the flags (that is GICv2's), so none is written, as QEMU does for GICv3.
 */
public final class ArmDeviceTree {

    /** phandle of the GIC node; the root's {@code interrupt-parent}. */
    public static final int GIC_PHANDLE = 1;
    /** phandle of the ITS node, for the {@code msi-parent} of devices that signal MSIs. */
    public static final int ITS_PHANDLE = 2;

    /** PPI of the PMUv3 overflow interrupt (INTID 23): the VMM sets KVM_ARM_VCPU_PMU_V3_IRQ to it. */
    public static final int PMU_PPI = 7;
    /** PPI of the GIC maintenance interrupt (INTID 25), as Firecracker (always) and QEMU (with EL2) give it. */
    public static final int GIC_MAINTENANCE_PPI = 9;
    /** Timer PPIs in the binding's order: secure phys, non-secure phys, virtual, hyp phys (INTIDs 29, 30, 27, 26). */
    private static final int[] TIMER_PPIS = {13, 14, 11, 10};

    private static final int IRQ_TYPE_SPI = 0;
    private static final int IRQ_TYPE_PPI = 1;
    private static final int IRQ_LEVEL_HIGH = 4;
    private static final int IRQ_EDGE_RISING = 1;

    // PSCI 0.2 function ids (SMC64 where the call has a 64-bit form), offered to kernels that
    // only know the "arm,psci" (0.1) binding; KVM with PSCI 0.2 answers these ids only.
    private static final int PSCI_0_2_FN_CPU_OFF = 0x84000002;
    private static final int PSCI_0_2_FN64_CPU_ON = 0xc4000003;

    /** The 16550's reference clock, the classic 1.8432 MHz, so divisor 1 gives 115200 baud. */
    private static final int UART_CLOCK_HZ = 1_843_200;

    private ArmDeviceTree() {}

    /**
     * Builds the DTB for a machine.
     *
     * @param spec the machine
     * @return the blob, to be copied 8-byte aligned into guest RAM; arm64 Linux takes at most
     *         2 MiB (Documentation/arch/arm64/booting.rst)
     */
    public static byte[] build(DeviceTreeSpec spec) {
        var fdt = new FdtWriter();
        // The header field has one cell: the low cell of the boot CPU's reg (Aff2..Aff0).
        fdt.setBootCpuidPhys((int) affinity(spec.mpidrs().getFirst()));
        fdt.beginNode("");
        root(fdt);
        cpus(fdt, spec.mpidrs());
        psci(fdt);
        memory(fdt, spec.memory());
        gic(fdt, spec.gic());
        timer(fdt);
        if (spec.pmu()) {
            pmu(fdt);
        }
        for (DeviceTreeSpec.Device device : spec.devices()) {
            switch (device.binding()) {
                case NS16550A -> uart(fdt, device);
                case VIRTIO_MMIO -> virtioMmio(fdt, device);
            }
        }
        chosen(fdt, spec);
        fdt.endNode();
        return fdt.finish();
    }

    // Devicetree Specification 3.2 (root node); "linux,dummy-virt" as QEMU's virt and Firecracker.
    private static void root(FdtWriter fdt) {
        fdt.propertyString("compatible", "linux,dummy-virt");
        fdt.propertyString("model", "jkvm");
        fdt.propertyU32("#address-cells", 2);
        fdt.propertyU32("#size-cells", 2);
        fdt.propertyU32("interrupt-parent", GIC_PHANDLE);
    }

    // bindings/arm/cpus.yaml: on arm64 #address-cells = 2 makes reg <Aff3, Aff2.Aff1.Aff0>, which
    // holds any MPIDR; QEMU switches to 1 cell when Aff3 is zero, Firecracker always uses 2.
    // "arm,armv8" is the binding's compatible for software models (QEMU and Firecracker write
    // "arm,arm-v8", which the binding does not list; Linux matches neither).
    private static void cpus(FdtWriter fdt, List<Long> mpidrs) {
        fdt.beginNode("cpus");
        fdt.propertyU32("#address-cells", 2);
        fdt.propertyU32("#size-cells", 0);
        for (long mpidr : mpidrs) {
            long reg = affinity(mpidr);
            fdt.beginNode("cpu@" + Long.toHexString(reg));
            fdt.propertyString("device_type", "cpu");
            fdt.propertyString("compatible", "arm,armv8");
            fdt.propertyString("enable-method", "psci");
            fdt.propertyU64("reg", reg);
            fdt.endNode();
        }
        fdt.endNode();
    }

    // bindings/arm/psci.yaml: with "arm,psci" in the list the binding requires cpu_on and cpu_off.
    private static void psci(FdtWriter fdt) {
        fdt.beginNode("psci");
        fdt.propertyStringList("compatible", "arm,psci-0.2", "arm,psci");
        fdt.propertyString("method", "hvc");
        fdt.propertyU32("cpu_on", PSCI_0_2_FN64_CPU_ON);
        fdt.propertyU32("cpu_off", PSCI_0_2_FN_CPU_OFF);
        fdt.endNode();
    }

    // Devicetree Specification 3.4 (memory node).
    private static void memory(FdtWriter fdt, DeviceTreeSpec.Region ram) {
        fdt.beginNode("memory@" + Long.toHexString(ram.base()));
        fdt.propertyString("device_type", "memory");
        fdt.propertyU64Array("reg", ram.base(), ram.size());
        fdt.endNode();
    }

    // bindings/interrupt-controller/arm,gic-v3.yaml; the node name is the one dt-schema's
    // interrupt-controller.yaml requires. #address-cells, #size-cells and an empty ranges let
    // the ITS child use the root's 64-bit addresses unchanged.
    private static void gic(FdtWriter fdt, DeviceTreeSpec.Gic gic) {
        fdt.beginNode("interrupt-controller@" + Long.toHexString(gic.distributor().base()));
        fdt.propertyString("compatible", "arm,gic-v3");
        fdt.propertyU32("#interrupt-cells", 3);
        fdt.propertyEmpty("interrupt-controller");
        fdt.propertyU64Array("reg",
                gic.distributor().base(), gic.distributor().size(),
                gic.redistributors().base(), gic.redistributors().size());
        fdt.propertyU32("#address-cells", 2);
        fdt.propertyU32("#size-cells", 2);
        fdt.propertyEmpty("ranges");
        fdt.propertyU32Array("interrupts", IRQ_TYPE_PPI, GIC_MAINTENANCE_PPI, IRQ_LEVEL_HIGH);
        fdt.propertyU32("phandle", GIC_PHANDLE);
        gic.itsBase().ifPresent(base -> its(fdt, base));
        fdt.endNode();
    }

    // arm,gic-v3.yaml, the msi-controller@ child.
    private static void its(FdtWriter fdt, long base) {
        fdt.beginNode("msi-controller@" + Long.toHexString(base));
        fdt.propertyString("compatible", "arm,gic-v3-its");
        fdt.propertyEmpty("msi-controller");
        fdt.propertyU32("#msi-cells", 1);
        fdt.propertyU64Array("reg", base, DeviceTreeSpec.ITS_SIZE);
        fdt.propertyU32("phandle", ITS_PHANDLE);
        fdt.endNode();
    }

    // bindings/timer/arm,arch_timer.yaml. KVM's timers are level-sensitive, active high in the
    // vGIC; Linux 4.8-rc6 and later program them as level whatever the tree says.
    private static void timer(FdtWriter fdt) {
        int[] interrupts = new int[TIMER_PPIS.length * 3];
        for (int i = 0; i < TIMER_PPIS.length; i++) {
            interrupts[3 * i] = IRQ_TYPE_PPI;
            interrupts[3 * i + 1] = TIMER_PPIS[i];
            interrupts[3 * i + 2] = IRQ_LEVEL_HIGH;
        }
        fdt.beginNode("timer");
        fdt.propertyString("compatible", "arm,armv8-timer");
        fdt.propertyEmpty("always-on");
        fdt.propertyU32Array("interrupts", interrupts);
        fdt.endNode();
    }

    // bindings/arm/pmu.yaml.
    private static void pmu(FdtWriter fdt) {
        fdt.beginNode("pmu");
        fdt.propertyString("compatible", "arm,armv8-pmuv3");
        fdt.propertyU32Array("interrupts", IRQ_TYPE_PPI, PMU_PPI, IRQ_LEVEL_HIGH);
        fdt.endNode();
    }

    // bindings/serial/8250.yaml. Byte-wide registers at consecutive addresses (reg-shift 0,
    // reg-io-width 1); a 16550's INTR output is a level. The node name is the one serial.yaml requires.
    private static void uart(FdtWriter fdt, DeviceTreeSpec.Device uart) {
        fdt.beginNode(uart.nodeName());
        fdt.propertyString("compatible", uart.binding().compatible());
        fdt.propertyU64Array("reg", uart.reg().base(), uart.reg().size());
        fdt.propertyU32("clock-frequency", UART_CLOCK_HZ);
        fdt.propertyU32Array("interrupts", IRQ_TYPE_SPI, uart.spi(), IRQ_LEVEL_HIGH);
        fdt.propertyU32("reg-shift", 0);
        fdt.propertyU32("reg-io-width", 1);
        fdt.endNode();
    }

    // bindings/virtio/mmio.yaml. Edge-triggered, as Firecracker and cloud-hypervisor declare theirs:
    // the device interrupts with an irqfd, which pulses the line. The rings are in coherent RAM.
    private static void virtioMmio(FdtWriter fdt, DeviceTreeSpec.Device virtio) {
        fdt.beginNode(virtio.nodeName());
        fdt.propertyString("compatible", virtio.binding().compatible());
        fdt.propertyU64Array("reg", virtio.reg().base(), virtio.reg().size());
        fdt.propertyU32Array("interrupts", IRQ_TYPE_SPI, virtio.spi(), IRQ_EDGE_RISING);
        fdt.propertyEmpty("dma-coherent");
        fdt.endNode();
    }

    // Devicetree Specification 3.6 (chosen); linux,initrd-* per Linux's drivers/of/fdt.c, which
    // takes the end as exclusive; rng-seed is consumed (and wiped) by early_init_dt_scan_chosen.
    private static void chosen(FdtWriter fdt, DeviceTreeSpec spec) {
        fdt.beginNode("chosen");
        fdt.propertyString("bootargs", spec.bootargs());
        spec.console().ifPresent(console -> fdt.propertyString("stdout-path", "/" + console.nodeName()));
        spec.initrd().ifPresent(initrd -> {
            fdt.propertyU64("linux,initrd-start", initrd.base());
            fdt.propertyU64("linux,initrd-end", initrd.base() + initrd.size());
        });
        byte[] seed = spec.rngSeed();
        if (seed.length > 0) {
            fdt.property("rng-seed", seed);
        }
        fdt.endNode();
    }

    private static long affinity(long mpidr) {
        return mpidr & DeviceTreeSpec.MPIDR_AFFINITY_MASK;
    }
}
