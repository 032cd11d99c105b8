package org.jkvm.experiment;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which host boot runs which variant: one boot per distinct set of host kernel arguments. */
@Tag("unit")
class HostKernelArgsTest {
    private static final ExperimentSpec SPEC = ExperimentSpec.parse("""
            {"name": "wfe", "guest": {"kernel": "I", "initrd": "R"}, "vcpus": 8, "pin": "0-1",
             "workloads": [{"name": "cpu", "workers": 8, "seconds": 5}],
             "variants": [{"name": "base", "pvlock": "off"},
                          {"name": "user", "pvlock": "userspace"},
                          {"name": "notrap", "pvlock": "off", "host_kernel_args": " kvm-arm.wfe_trap_policy=notrap "},
                          {"name": "notrap-nvhe", "pvlock": "off",
                           "host_kernel_args": "kvm-arm.mode=nvhe kvm-arm.wfe_trap_policy=notrap"}],
             "repetitions": 1}
            """, Path.of("wfe.json"), false, Map.of());

    @Test
    void oneGroupPerDistinctArgumentSetInVariantOrder() {
        assertEquals(List.of(Set.of(), Set.of("kvm-arm.wfe_trap_policy=notrap"),
                Set.of("kvm-arm.mode=nvhe", "kvm-arm.wfe_trap_policy=notrap")), HostKernelArgs.groups(SPEC));
    }

    @Test
    void aHostRunsExactlyTheVariantsOfTheArgumentsItBootedWith() {
        String plain = "console=ttyAMA0 rdinit=/init panic=-1 quiet";
        String notrap = plain + " kvm-arm.wfe_trap_policy=notrap";
        String both = notrap + " kvm-arm.mode=nvhe";
        assertEquals(List.of("base", "user"), runsOn(plain));
        assertEquals(List.of("notrap"), runsOn(notrap));
        assertEquals(List.of("notrap-nvhe"), runsOn(both));
        assertEquals(List.of(), runsOn(plain + " kvm-arm.mode=nvhe"), "nvhe alone is no variant's host");
    }

    @Test
    void argumentsTheSpecNeverNamesDoNotMatter() {
        assertTrue(HostKernelArgs.runsOn(SPEC, SPEC.variant("base"), "console=ttyAMA0 mitigations=off"));
        assertFalse(HostKernelArgs.runsOn(SPEC, SPEC.variant("notrap"), "console=ttyAMA0 mitigations=off"));
        assertEquals("kvm-arm.mode=nvhe kvm-arm.wfe_trap_policy=notrap",
                HostKernelArgs.text(HostKernelArgs.booted(SPEC, "x kvm-arm.wfe_trap_policy=notrap y kvm-arm.mode=nvhe")));
    }

    private static List<String> runsOn(String cmdline) {
        return SPEC.variants().stream().filter(v -> HostKernelArgs.runsOn(SPEC, v, cmdline)).map(ExperimentSpec.Variant::name).toList();
    }
}
