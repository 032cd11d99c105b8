package org.jkvm.experiment;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.kvm.StatDescriptor;
import org.jkvm.kvm.StatDescriptor.Type;
import org.jkvm.kvm.StatDescriptor.Unit;
import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;
import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** KVM's statistics in a results line: the compact form, the round trip, and lines written before they existed. */
@Tag("unit")
class RunKvmStatsTest {
    private static final List<StatDescriptor> VM = List.of(
            new StatDescriptor("remote_tlb_flush", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 0, 0),
            new StatDescriptor("pages_4k", Type.INSTANT, Unit.NONE, 10, 0, 1, 1, 0));
    private static final List<StatDescriptor> VCPU = List.of(
            new StatDescriptor("halt_exits", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 0, 0),
            new StatDescriptor("wfe_exit_stat", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 1, 0),
            new StatDescriptor("halt_wait_hist", Type.LOG_HIST, Unit.SECONDS, 10, -9, 4, 2, 0));

    static KvmStatsWindow window() {
        KvmStatsSnapshot start = new KvmStatsSnapshot(new long[] {5, 100},
                List.of(new long[] {10, 7, 0, 1, 0, 0}, new long[] {3, 3, 0, 0, 0, 0}));
        KvmStatsSnapshot end = new KvmStatsSnapshot(new long[] {5, 120},
                List.of(new long[] {15, 7, 2, 4, 0, 0}, new long[] {3, 9, 0, 0, 0, 0}));
        return KvmStatsWindow.between(VM, List.of(VCPU, VCPU), start, end);
    }

    @Test
    void onlyWhatChangedIsKept() {
        RunKvmStats.Vm v = RunKvmStats.Vm.of(window());
        assertNull(v.unavailable());
        // the flush counter did not move; the instant value is kept as it stood at the end
        assertEquals(Map.of("pages_4k", 120L), v.vm());
        assertEquals(Map.of("halt_exits", 5L, "halt_wait_hist", List.of(2L, 3L)), v.vcpus().get(0));
        assertEquals(Map.of("wfe_exit_stat", 6L), v.vcpus().get(1));
        RunKvmStats.Vm none = RunKvmStats.Vm.of(KvmStatsWindow.unavailable("no KVM_CAP_BINARY_STATS_FD"));
        assertEquals("no KVM_CAP_BINARY_STATS_FD", none.unavailable());
        assertTrue(none.vm().isEmpty() && none.vcpus().isEmpty());
    }

    @Test
    void aResultLineCarriesThemAndReadsThemBack() {
        Run run = RunMatrix.of(RunMatrixTest.spec(1, 0)).runs().getFirst();
        RunKvmStats kvm = new RunKvmStats(RunKvmStats.WORKLOAD, List.of(RunKvmStats.Vm.of(window()),
                RunKvmStats.Vm.of(KvmStatsWindow.unavailable("no stats"))));
        RunResult r = ResultsTest.ok(run, 10, 20).withKvm(kvm);
        String line = ResultsLog.toJson(r);
        assertTrue(line.endsWith(",\"kvm\":{\"window\":\"workload\",\"vms\":[{\"vm\":{\"pages_4k\":120},\"vcpus\":["
                + "{\"halt_exits\":5,\"halt_wait_hist\":[2,3]},{\"wfe_exit_stat\":6}]},"
                + "{\"unavailable\":\"no stats\",\"vm\":{},\"vcpus\":[]}]}}"), line);
        assertEquals(r, ResultsLog.fromJson(line));
        RunResult failed = RunResult.failed(run, "timeout", 1, null, Map.of())
                .withKvm(new RunKvmStats(RunKvmStats.RUN, List.of(RunKvmStats.Vm.of(window()))));
        assertEquals(failed, ResultsLog.fromJson(ResultsLog.toJson(failed)));
    }

    @Test
    void aLineWithoutThemStillReadsAndABadOneIsRejected() {
        String old = "{\"id\":\"hackbench/a/1\",\"variant\":\"a\",\"workload\":\"hackbench\",\"repetition\":1,\"warmup\":false,"
                + "\"value\":12.5,\"unit\":\"ops/s\",\"better\":\"higher\",\"wall_s\":3,\"started\":null,"
                + "\"vm_values\":[12.5],\"host\":{\"exits\":4},\"error\":null}";
        RunResult r = ResultsLog.fromJson(old);
        assertNull(r.kvm());
        assertEquals(12.5, r.value());
        assertEquals(old, ResultsLog.toJson(r), "an old line is written back as it was");
        String bad = old.substring(0, old.length() - 1) + ",\"kvm\":{\"window\":\"run\",\"vms\":[{\"vm\":{\"halt_exits\":1.5}}]}}";
        assertEquals("kvm.vms[0].vm.halt_exits is not a whole number",
                assertThrows(IllegalArgumentException.class, () -> ResultsLog.fromJson(bad)).getMessage());
        assertEquals(Optional.empty(), Optional.ofNullable(ResultsLog.fromJson(old.replace("}}", "},\"kvm\":null}")).kvm()));
    }
}
