package org.jkvm.cli;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.experiment.Json;
import org.jkvm.kvm.StatDescriptor;
import org.jkvm.kvm.StatDescriptor.Type;
import org.jkvm.kvm.StatDescriptor.Unit;
import org.jkvm.pvlock.Preemptors;
import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;
import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The "kvm" and "workload" objects of {@code --stats-json}: KVM's statistics by name, or why there are none; the workload's window. */
@Tag("unit")
class RunStatsJsonTest {
    @Test
    void vmAndEachVcpuMapKvmsNamesToWhatTheyCameTo() {
        StatDescriptor flushes = new StatDescriptor("remote_tlb_flush", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 0, 0);
        StatDescriptor wfi = new StatDescriptor("wfi_exit_stat", Type.CUMULATIVE, Unit.NONE, 10, 0, 1, 0, 0);
        StatDescriptor peak = new StatDescriptor("halt_wait_max_ns", Type.PEAK, Unit.SECONDS, 10, -9, 1, 1, 0);
        StatDescriptor hist = new StatDescriptor("halt_wait_hist", Type.LOG_HIST, Unit.SECONDS, 10, -9, 3, 2, 0);
        List<StatDescriptor> vcpu = List.of(wfi, peak, hist);
        KvmStatsWindow w = KvmStatsWindow.between(List.of(flushes), List.of(vcpu, vcpu),
                new KvmStatsSnapshot(new long[] {2}, List.of(new long[] {10, 5, 0, 0, 0}, new long[] {0, 0, 0, 0, 0})),
                new KvmStatsSnapshot(new long[] {9}, List.of(new long[] {25, 400, 2, 3, 0}, new long[] {1, 0, 0, 0, 0})));

        Map<String, Object> kvm = RunStatsJson.kvm(w);

        assertEquals("""
                {
                  "vm": {
                    "remote_tlb_flush": 7
                  },
                  "vcpus": [{
                    "wfi_exit_stat": 15,
                    "halt_wait_max_ns": 400,
                    "halt_wait_hist": [2, 3]
                  }, {
                    "wfi_exit_stat": 1,
                    "halt_wait_max_ns": 0,
                    "halt_wait_hist": []
                  }]
                }""", Json.pretty(kvm));
    }

    @Test
    void theWorkloadsWindowHasItsLengthSharePreemptorsAndStatistics() {
        Preemptors waited = new Preemptors(new BitSet(), 12, 3_456_789_000L, List.of(), 2, 1);
        WorkloadWindow.Figures w = new WorkloadWindow.Figures(0, 5_012_345_678L, KvmStatsWindow.unavailable("none here"),
                Optional.of(waited), 0.123456, Optional.of(new ThreadSchedStat(2_500_000_000L, 7_400_000_000L)),
                Optional.of(new WorkloadWindow.CpusIdle(2, 120_000_000)));
        assertEquals("""
                {
                  "ms": 5012,
                  "mean_preempted_share": 0.1235,
                  "preemptors": {
                    "preemptions": 12,
                    "waited_ms": 3456,
                    "records_lost": 2,
                    "rings_full": 1
                  },
                  "vcpus_on_cpu_ms": 2500,
                  "vcpus_waiting_ms": 7400,
                  "idle_cpus": 2,
                  "cpus_idle_ms": 120,
                  "kvm": {
                    "unavailable": "none here"
                  }
                }""", Json.pretty(RunStatsJson.workload(w)));
        Map<String, Object> unmeasured = RunStatsJson.workload(new WorkloadWindow.Figures(0, 1_000_000, KvmStatsWindow.unavailable("x"),
                Optional.empty(), Double.NaN, Optional.empty(), Optional.empty()));
        assertNull(unmeasured.get("mean_preempted_share"), "PV lock off: no share, not 0");
        assertNull(unmeasured.get("preemptors"), "without --preemptors");
        assertNull(unmeasured.get("vcpus_on_cpu_ms"), "threads not read at both edges: no figure, not 0");
        assertNull(unmeasured.get("cpus_idle_ms"));
    }

    @Test
    void aHostWithoutBinaryStatisticsIsReportedWithTheReason() {
        assertEquals(Map.of("unavailable", "no KVM_CAP_BINARY_STATS_FD"),
                RunStatsJson.kvm(KvmStatsWindow.unavailable("no KVM_CAP_BINARY_STATS_FD")));
    }
}
