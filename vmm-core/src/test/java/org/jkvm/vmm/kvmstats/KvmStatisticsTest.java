package org.jkvm.vmm.kvmstats;

import java.util.List;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Capability;
import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.vmm.memory.KvmTier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Real KVM (x86_64): a window of KVM's statistics holds what the guest did in it, by name. */
@Tag("kvm")
class KvmStatisticsTest {
    /** An x86 vCPU starts at 0xfffffff0, which is this 64 KiB page's offset 0xfff0. */
    private static final long RESET_PAGE = 0xffff_0000L;
    private static final long RESET_OFFSET = 0xfff0;
    private static final byte HLT = (byte) 0xf4;
    private static Kvm kvm;

    @BeforeAll
    static void open() {
        kvm = KvmTier.openOrSkip();
        assumeTrue(Arch.host() == Arch.X86_64, "the guest here is one x86 HLT instruction");
        assumeTrue(kvm.check(Capability.BINARY_STATS_FD) > 0, "this host's KVM has no KVM_CAP_BINARY_STATS_FD");
    }

    @AfterAll
    static void close() {
        if (kvm != null) kvm.close();
    }

    @Test
    void aGuestThatHaltsOnceShowsOneHaltExitOnItsVcpuAndNothingOnTheOther() {
        try (VmFd vm = kvm.createVm(); MappedMemory ram = MappedMemory.anonymous(0x1_0000, false);
             VcpuFd halts = vm.createVcpu(0); VcpuFd idle = vm.createVcpu(1);
             KvmStatistics stats = KvmStatistics.open(vm, List.of(halts, idle))) {
            ram.segment().set(JAVA_BYTE, RESET_OFFSET, HLT);
            vm.setUserMemoryRegion(0, 0, RESET_PAGE, ram.segment());
            assertTrue(stats.unavailable().isEmpty());

            KvmStatsSnapshot start = stats.snapshot();
            assertEquals(ExitReason.HLT, halts.run());
            KvmStatsWindow w = stats.window(start, stats.snapshot());

            assertEquals(1, w.vcpus().get(0).get("halt_exits").value());
            assertTrue(w.vcpus().get(0).get("exits").value() >= 1);
            assertEquals(0, w.vcpus().get(1).get("exits").value(), "vCPU 1 never ran");
            assertEquals(1, w.vcpuTotal("halt_exits"));
            assertTrue(w.vm().containsKey("remote_tlb_flush"), w.vm().keySet().toString());
        }
    }

    @Test
    void aSnapshotOfAClosedVmsStatisticsIsRefusedNotWrong() {
        try (VmFd vm = kvm.createVm()) {
            KvmStatistics stats = KvmStatistics.open(vm, List.of());
            stats.close();
            stats.close();
            assertThrows(IllegalStateException.class, stats::snapshot);
        }
    }
}
