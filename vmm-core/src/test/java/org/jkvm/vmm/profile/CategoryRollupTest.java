package org.jkvm.vmm.profile;

import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The category rule table and the roll-up of folded stacks, per vCPU and in total. */
@Tag("unit")
class CategoryRollupTest {
    private static Category of(String... outerToLeaf) {
        return CategoryRules.classify(List.of(outerToLeaf));
    }

    @Test
    void theLeafDecidesWhenTheTableNamesIt() {
        assertEquals(Category.OWNER_SPINNING, of("dup_mmap", "down_write", "rwsem_down_write_slowpath", "osq_lock"));
        assertEquals(Category.OWNER_SPINNING, of("mutex_spin_on_owner"));
        assertEquals(Category.SPINLOCK_SLOWPATH, of("folio_lruvec_lock_irqsave", "_raw_spin_lock_irqsave", "queued_spin_lock_slowpath"));
        assertEquals(Category.SPINLOCK_SLOWPATH, of("queued_write_lock_slowpath"));
        assertEquals(Category.IDLE, of("cpu_startup_entry", "do_idle", "default_idle_call", "cpu_do_idle"));
        assertEquals(Category.USER, of("[user]"));
        assertEquals(Category.JKVM, of("[jkvm]"));
    }

    @Test
    void aHelperLeafIsClassifiedByItsCallers() {
        assertEquals(Category.OWNER_SPINNING, of("rwsem_down_write_slowpath", "rwsem_optimistic_spin", "rwsem_spin_on_owner",
                "pv_vcpu_is_preempted"));
        assertEquals(Category.OWNER_SPINNING, of("osq_lock", "vcpu_is_preempted", "__cmpwait_relaxed"));
        assertEquals(Category.OTHER, of("vcpu_is_preempted"), "a helper with no caller that decides");
        assertEquals(Category.OTHER, of("schedule", "pv_vcpu_is_preempted"));
    }

    @Test
    void aFrameTheTableDoesNotKnowEndsTheWalk() {
        assertEquals(Category.OTHER, of("do_idle", "default_idle_call", "gic_handle_irq"), "an interrupt over the idle loop");
        assertEquals(Category.OTHER, of("rwsem_down_write_slowpath", "0xffff800080020010"));
        assertEquals(Category.OTHER, of("_raw_spin_lock"), "the fast path is not the slow path");
    }

    @Test
    void foldedStacksRollUpPerVcpuAndInTotalWithIntervals() {
        ProfileReport r = report(List.of(
                "vcpu0;down_write;rwsem_down_write_slowpath;osq_lock 30",
                "vcpu0;do_idle;cpu_do_idle 10",
                "vcpu0;[user] 60",
                "vcpu1;_raw_spin_lock;queued_spin_lock_slowpath 5",
                "vcpu1;[jkvm] 5",
                "vcpu1;0x1234 10"), 2);
        CategoryRollup c = CategoryRollup.of(r);
        assertEquals(Category.values().length, c.total().size(), "every category is listed");
        SymbolShare spin = c.vcpus().get(0).get(Category.OWNER_SPINNING.ordinal());
        assertEquals("owner-spinning", spin.symbol());
        assertEquals(30, spin.samples());
        assertEquals(0.30, spin.share(), 1e-12);
        assertEquals(SymbolShare.of("owner-spinning", 30, 100), spin, "the Wilson interval over the vCPU's samples");
        assertEquals(0, c.vcpus().get(1).get(Category.USER.ordinal()).samples());
        assertEquals(10, c.vcpus().get(1).get(Category.OTHER.ordinal()).samples());
        assertEquals(SymbolShare.of("user", 60, 120), c.total().get(Category.USER.ordinal()));
        assertEquals(5, c.total().get(Category.SPINLOCK_SLOWPATH.ordinal()).samples());
        assertEquals(120, c.total().stream().mapToLong(SymbolShare::samples).sum());
        String csv = c.csv();
        assertEquals(CategoryRollup.CSV_HEADER, csv.lines().findFirst().orElseThrow());
        assertEquals(1 + 3 * Category.values().length, csv.lines().count());
        assertEquals(1, csv.lines().filter(l -> l.startsWith("0,owner-spinning,30,0.300000,")).count(), csv);
        assertEquals(1, csv.lines().filter(l -> l.startsWith("all,user,60,0.500000,")).count(), csv);
    }

    @Test
    void aVcpuWithoutSamplesHasZeroSharesAndABadLineIsNamed() {
        CategoryRollup c = CategoryRollup.of(report(List.of("vcpu1;[user] 4"), 2));
        assertEquals(0, c.vcpus().get(0).stream().mapToLong(SymbolShare::samples).sum());
        assertEquals(1.0, c.vcpus().get(1).get(Category.USER.ordinal()).share(), 1e-12);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FoldedLine.parse("vcpu0;x"));
        assertEquals("not 'frame;...;frame count' (no count): vcpu0;x", e.getMessage());
    }

    private static ProfileReport report(List<String> folded, int vcpus) {
        long n = folded.stream().mapToLong(l -> FoldedLine.parse(l).count()).sum();
        List<ProfileReport.VcpuProfile> per = IntStream.range(0, vcpus)
                .mapToObj(v -> new ProfileReport.VcpuProfile(v, 0, 0, List.of())).toList();
        return new ProfileReport("test", per, List.of(), n, new LongSummaryStatistics(), 0, folded);
    }
}
