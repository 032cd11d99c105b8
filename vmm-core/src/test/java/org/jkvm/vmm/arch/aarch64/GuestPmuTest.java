package org.jkvm.vmm.arch.aarch64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.arch.aarch64.fdt.ArmDeviceTree;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec.Region;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The guest's PMUv3 follows the switch: the vCPU feature, the per-vCPU set-up and the device-tree node together. */
@Tag("unit")
class GuestPmuTest {
    private static final Arm64.VcpuInit INIT = new Arm64.VcpuInit(5, new BitSet()).with(KvmArm64.KVM_ARM_VCPU_PSCI_0_2());
    /** The pmu node's compatible string, NUL-terminated as the blob stores it; nothing else in the tree has it. */
    private static final String PMU_COMPATIBLE = "arm,armv8-pmuv3\0";

    @ParameterizedTest(name = "asked {0}, offered {1}: PMU {2}")
    @CsvSource({"false, true, false", "false, false, false", "true, false, false", "true, true, true"})
    void onOnlyWhenAskedForAndOffered(boolean asked, boolean offered, boolean on) {
        GuestPmu pmu = GuestPmu.choose(asked, offered);
        assertEquals(on, pmu.on());

        BitSet features = pmu.features(INIT).features();
        assertEquals(on, features.get(KvmArm64.KVM_ARM_VCPU_PMU_V3()));
        assertTrue(features.get(KvmArm64.KVM_ARM_VCPU_PSCI_0_2()), "the other features stay");

        String dtb = new String(ArmDeviceTree.build(tree(pmu)), StandardCharsets.ISO_8859_1);
        assertEquals(on, dtb.contains(PMU_COMPATIBLE), "the device tree's pmu node");
    }

    @ParameterizedTest(name = "offered {0}")
    @CsvSource({"false", "true"})
    void offSetsUpNoVcpu(boolean offered) {
        GuestPmu.choose(false, offered).setUp(() -> {
            throw new AssertionError("a vCPU was set up for a PMU that is off");
        });
    }

    /** A one-vCPU machine's tree, as Arm64Vm describes it, with the PMU node as {@code pmu} says. */
    private static DeviceTreeSpec tree(GuestPmu pmu) {
        var gic = new DeviceTreeSpec.Gic(new Region(0x0800_0000L, 0x1_0000L),
                new Region(0x080a_0000L, DeviceTreeSpec.GICR_SIZE_PER_CPU), OptionalLong.empty());
        return new DeviceTreeSpec(List.of(0x8000_0000L), new Region(0x4000_0000L, 64L << 20), gic, List.of(),
                "console=ttyS0", Optional.empty(), new byte[64], pmu.on());
    }
}
