package org.jkvm.vmm.arch.aarch64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.config.CpuOptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The vCPUs' optional features: what is asked for and offered becomes the KVM_ARM_VCPU_INIT bits and the names reported. */
@Tag("unit")
class GuestCpuTest {
    private static final Arm64.VcpuInit INIT = new Arm64.VcpuInit(5, new BitSet()).with(KvmArm64.KVM_ARM_VCPU_PSCI_0_2());

    @ParameterizedTest(name = "ptrauth asked {0} offered {1}, sve asked {2} offered {3}: {4}")
    @CsvSource(delimiter = '|', value = {
            "true  | true  | true  | true  | ptrauth sve",
            "true  | false | true  | true  | sve",
            "true  | true  | true  | false | ptrauth",
            "false | true  | false | true  | ''",
            "true  | false | false | true  | ''",
            "false | true  | true  | true  | sve"})
    void eachFeatureOnOnlyWhenAskedForAndOffered(boolean ptrAuthAsked, boolean ptrAuthOffered, boolean sveAsked,
                                                 boolean sveOffered, String expected) {
        GuestCpu cpu = GuestCpu.choose(new CpuOptions(ptrAuthAsked, sveAsked), ptrAuthOffered, sveOffered);
        assertEquals(expected.isEmpty() ? List.of() : List.of(expected.split(" ")), cpu.names());

        BitSet features = cpu.features(INIT).features();
        boolean ptrAuth = ptrAuthAsked && ptrAuthOffered;
        assertEquals(ptrAuth, features.get(KvmArm64.KVM_ARM_VCPU_PTRAUTH_ADDRESS()));
        assertEquals(ptrAuth, features.get(KvmArm64.KVM_ARM_VCPU_PTRAUTH_GENERIC()), "KVM takes both keys or neither");
        assertEquals(sveAsked && sveOffered, features.get(KvmArm64.KVM_ARM_VCPU_SVE()));
        assertTrue(features.get(KvmArm64.KVM_ARM_VCPU_PSCI_0_2()), "the other features stay");
        assertEquals(INIT.target(), cpu.features(INIT).target());
    }

    @ParameterizedTest(name = "sve {0}")
    @CsvSource({"false", "true"})
    void finishFinalizesSveOnlyWhenOn(boolean sve) {
        List<Integer> finalized = new ArrayList<>();
        new GuestCpu(true, sve).finish(finalized::add);
        assertEquals(sve ? List.of(KvmArm64.KVM_ARM_VCPU_SVE()) : List.of(), finalized);
    }
}
