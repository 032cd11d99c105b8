package org.jkvm.kvm;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real KVM: the binary statistics of a VM and of a vCPU count what a tiny guest did. */
@Tag("kvm")
class StatsFdTest {
    private static Kvm kvm;

    @BeforeAll
    static void open() {
        kvm = KvmTier.openOrSkip();
        assumeTrue(kvm.check(Capability.BINARY_STATS_FD) > 0, "this host's KVM has no KVM_CAP_BINARY_STATS_FD");
    }

    @AfterAll
    static void close() {
        if (kvm != null) kvm.close();
    }

    /** OUT to port 0x3f8 five times in a loop, then HLT. */
    private static final byte[] FIVE_OUTS_THEN_HLT = {
        (byte) 0xba, (byte) 0xf8, 0x03, // mov dx, 0x3f8
        (byte) 0xb9, 0x05, 0x00,        // mov cx, 5
        (byte) 0xee,                    // loop: out dx, al
        0x49,                           // dec cx
        0x75, (byte) 0xfc,              // jnz loop
        (byte) 0xf4,                    // hlt
    };

    @Test
    void vcpuCountersGrowByTheExitsTheGuestMade() {
        try (TinyGuest g = new TinyGuest(kvm, FIVE_OUTS_THEN_HLT); StatsFd stats = g.vcpu.statsFd()) {
            long[] before = stats.read();
            for (int i = 0; i < 5; i++) assertEquals(ExitReason.IO, g.vcpu.run());
            assertEquals(ExitReason.HLT, g.vcpu.run());
            long[] after = stats.read();

            // io_exits is not asserted: where the CPU cannot run real mode natively (nested KVM),
            // KVM emulates these instructions and counts their port I/O elsewhere
            assertEquals(1, delta(stats, "halt_exits", before, after), "one HLT");
            assertTrue(delta(stats, "exits", before, after) >= 6, "every exit is counted in exits");
            assertTrue(stats.id().contains("vcpu"), stats.id());
        }
    }

    @Test
    void descriptorsAreNamedUniquelyAndTheirValuesFitTheDataBlock() {
        try (VmFd vm = kvm.createVm(); StatsFd stats = vm.statsFd()) {
            List<StatDescriptor> ds = stats.descriptors();
            assertFalse(ds.isEmpty());
            int words = stats.read().length;
            Set<String> names = new HashSet<>();
            for (StatDescriptor d : ds) {
                assertFalse(d.name().isEmpty());
                assertTrue(names.add(d.name()), "duplicate " + d.name());
                assertTrue(d.size() >= 1 && d.index() + d.size() <= words, d.toString());
                assertTrue(d.base() == 2 || d.base() == 10, d.toString());
            }
            StatDescriptor flushes = ds.stream().filter(d -> d.name().equals("remote_tlb_flush")).findFirst().orElseThrow();
            assertEquals(StatDescriptor.Type.CUMULATIVE, flushes.type());
        }
    }

    @Test
    void aClosedFileRefusesToRead() {
        try (VmFd vm = kvm.createVm()) {
            StatsFd stats = vm.statsFd();
            stats.close();
            stats.close();
            assertThrows(IllegalStateException.class, stats::read);
        }
    }

    private static long delta(StatsFd stats, String name, long[] before, long[] after) {
        StatDescriptor d = stats.descriptors().stream().filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no statistic " + name + " in " + stats.descriptors()));
        return after[d.index()] - before[d.index()];
    }
}
