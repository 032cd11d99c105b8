package org.jkvm.kvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every uapi name the shared code uses resolves on both architectures, whichever host runs
 * the test, so a value one architecture's bindings lack is caught on the other too.
 */
@Tag("unit")
class UapiTest {

    /** Members whose contents are one architecture's own; shared code reads nothing inside them. */
    private static final Set<String> ARCH_SPECIFIC = Set.of("kvm_run.debug.arch", "kvm_run.s.regs");

    /**
     * The empty struct __DECLARE_FLEX_ARRAY puts before a flexible array; only some of the
     * pinned headers spell flexible arrays with it, and no code reads it.
     */
    private static final String FLEX_ARRAY_MARKER = "__empty_";

    @ParameterizedTest
    @EnumSource(Arch.class)
    void everySharedNameResolves(Arch arch) {
        Uapi u = HostUapi.of(arch);
        for (UapiConstant c : UapiConstant.values()) u.constant(c);
        for (UapiStruct s : UapiStruct.values()) {
            GroupLayout g = u.struct(s);
            assertEquals(s.name(), g.name().orElseThrow(), arch + " maps " + s + " to another struct");
        }
        for (ExitReason r : ExitReason.values()) assertTrue(u.exitReason(r) >= 0, r + " on " + arch);
        for (Capability c : Capability.values()) assertTrue(u.capability(c) >= 0, c + " on " + arch);
    }

    @Test
    void theHostsValuesAreItsArchitecturesBindings() {
        Class<? extends Uapi> expected = Arch.host() == Arch.AARCH64 ? Arm64Uapi.class : X86Uapi.class;
        assertInstanceOf(expected, HostUapi.of(Arch.host()));
        assertEquals(HostUapi.of(Arch.host()).exitReason(ExitReason.MMIO), ExitReason.MMIO.number());
        assertEquals(HostUapi.of(Arch.host()).capability(Capability.ONE_REG), Capability.ONE_REG.number());
    }

    @Test
    void kvmsOwnNumbersAgreeAcrossArchitectures() {
        Uapi x86 = HostUapi.of(Arch.X86_64);
        Uapi arm64 = HostUapi.of(Arch.AARCH64);
        for (ExitReason r : ExitReason.values()) assertEquals(x86.exitReason(r), arm64.exitReason(r), r.name());
        for (Capability c : Capability.values()) assertEquals(x86.capability(c), arm64.capability(c), c.name());
    }

    /** The member paths shared code names by string (offset(kvm_run, "mmio", "len")) exist on both. */
    @ParameterizedTest
    @EnumSource(UapiStruct.class)
    void sharedStructsHaveTheSameMembersOnBothArchitectures(UapiStruct s) {
        TreeSet<String> x86 = paths(HostUapi.of(Arch.X86_64).struct(s));
        TreeSet<String> arm64 = paths(HostUapi.of(Arch.AARCH64).struct(s));
        assertEquals(x86, arm64, "member paths of " + s);
        for (List<String> path : memberPaths(HostUapi.of(Arch.AARCH64).struct(s))) {
            HostUapi.offset(HostUapi.of(Arch.X86_64).struct(s), path.toArray(String[]::new));
        }
    }

    private static TreeSet<String> paths(GroupLayout g) {
        TreeSet<String> out = new TreeSet<>();
        for (List<String> p : memberPaths(g)) out.add(String.join(".", p));
        return out;
    }

    /** Every named member path of a struct, through anonymous members as C names them. */
    private static List<List<String>> memberPaths(GroupLayout g) {
        List<List<String>> out = new ArrayList<>();
        collect(g.name().orElseThrow(), g, List.of(), out);
        return out;
    }

    private static void collect(String struct, GroupLayout g, List<String> prefix, List<List<String>> out) {
        for (MemoryLayout e : g.memberLayouts()) {
            if (e instanceof PaddingLayout || e.name().isEmpty()) continue;
            String n = e.name().get();
            if (n.startsWith(FLEX_ARRAY_MARKER)) continue;
            boolean anonymous = n.startsWith("$anon$");
            List<String> path = prefix;
            if (!anonymous) {
                path = new ArrayList<>(prefix);
                path.add(n);
                out.add(path);
            }
            MemoryLayout inner = e instanceof SequenceLayout seq ? seq.elementLayout() : e;
            boolean own = ARCH_SPECIFIC.contains(struct + "." + String.join(".", path));
            if (inner instanceof GroupLayout ig && !own && !(e instanceof SequenceLayout)) {
                collect(struct, ig, path, out);
            }
        }
    }
}
