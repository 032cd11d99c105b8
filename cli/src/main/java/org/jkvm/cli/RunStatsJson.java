package org.jkvm.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockStats;
import org.jkvm.pvlock.TrackerCpus;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.kvmstats.StatChange;
import org.jkvm.vmm.launch.RunReport;
import org.jkvm.vmm.vcpu.VcpuStats;

/**
 * The tree {@code jkvm run --stats-json} writes: the run, each vCPU's exits, the PV-lock device's
 * counters, KVM's own statistics over the run, and, where the guest marked its workload, what
 * happened over that window ({@link WorkloadWindow}).
 */
final class RunStatsJson {
    private RunStatsJson() {}

    static Map<String, Object> of(RunReport run, PvLockDevice pvLock, Optional<WorkloadWindow.Figures> workload) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outcome", run.outcome().getClass().getSimpleName().toLowerCase(Locale.ROOT));
        m.put("outcome_detail", OutcomeText.describe(run.outcome()));
        Map<String, Object> kernels = new LinkedHashMap<>();
        kernels.put("host", run.hostKernel());
        kernels.put("guest", run.guestKernel().orElse(null));
        m.put("kernels", kernels);
        m.put("setup_ms", run.setup().toMillis());
        m.put("run_ms", run.ran().toMillis());
        m.put("stray_mmio", run.strayMmio());
        m.put("undecodable_mmio", run.undecodableMmio());
        m.put("unknown_hypercalls", run.unknownHypercalls());
        m.put("steal_time_region", run.stealTimeRegion().isPresent() ? hex(run.stealTimeRegion().getAsLong()) : null);
        m.put("cpu_features", run.cpuFeatures());
        m.put("vcpus", run.vcpus().stream().map(RunStatsJson::vcpu).toList());
        m.put("pvlock", pvLock(pvLock));
        m.put("kvm", kvm(run.kvm()));
        m.put("workload", workload.map(RunStatsJson::workload).orElse(null));
        return m;
    }

    /**
     * The workload's window: its length, the vCPUs' flagged share, who they waited behind, the vCPU
     * threads' time on a CPU and waiting for one, their CPUs' idle time, and KVM's statistics over it.
     */
    static Map<String, Object> workload(WorkloadWindow.Figures w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ms", w.nanos() / 1_000_000);
        m.put("mean_preempted_share", Double.isNaN(w.flagged()) ? null : Math.round(w.flagged() * 10_000) / 10_000.0);
        m.put("preemptors", w.preemptors().map(p -> {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("preemptions", p.preemptions());
            t.put("waited_ms", p.waitedNanos() / 1_000_000);
            t.put("records_lost", p.lostRecords());
            t.put("rings_full", p.ringsFull());
            return t;
        }).orElse(null));
        m.put("vcpus_on_cpu_ms", w.vcpuThreads().map(t -> t.onCpuNanos() / 1_000_000).orElse(null));
        m.put("vcpus_waiting_ms", w.vcpuThreads().map(t -> t.waitingNanos() / 1_000_000).orElse(null));
        m.put("idle_cpus", w.idle().map(WorkloadWindow.CpusIdle::cpus).orElse(null));
        m.put("cpus_idle_ms", w.idle().map(i -> i.nanos() / 1_000_000).orElse(null));
        m.put("kvm", kvm(w.kvm()));
        return m;
    }

    /**
     * KVM's statistics: {@code vm} and, per vCPU in id order, {@code vcpus}, each a map of KVM's
     * names to a counter's delta, an instant value or peak at the end, or a histogram's bucket
     * deltas; or {@code unavailable} with the reason.
     */
    static Map<String, Object> kvm(KvmStatsWindow w) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (w.unavailable().isPresent()) {
            m.put("unavailable", w.unavailable().get());
            return m;
        }
        m.put("vm", changes(w.vm()));
        m.put("vcpus", w.vcpus().stream().map(RunStatsJson::changes).toList());
        return m;
    }

    private static Map<String, Object> changes(Map<String, StatChange> stats) {
        Map<String, Object> m = new LinkedHashMap<>();
        stats.forEach((name, c) -> m.put(name, c.reported()));
        return m;
    }

    private static Object vcpu(VcpuStats s) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("vcpu", s.vcpu());
        v.put("exits", s.totalExits());
        Map<String, Object> by = new LinkedHashMap<>();
        s.exitsByReason().forEach((r, n) -> by.put(r.name().toLowerCase(Locale.ROOT), n));
        v.put("exits_by_reason", by);
        v.put("ms_in_kvm_run", s.nanosInKvmRun() / 1_000_000);
        v.put("ms_outside", s.nanosOutside() / 1_000_000);
        return v;
    }

    private static Map<String, Object> pvLock(PvLockDevice pvLock) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", pvLock.resolution().mode().cliName());
        m.put("reason", pvLock.resolution().reason());
        m.put("region", pvLock.region() == null ? null : hex(pvLock.region().region().gpa()));
        m.put("switch_source", pvLock.switchSource());
        long started = pvLock.stats().trackingStartedMillis();
        boolean tracked = pvLock.switchSource() != null && started >= 0;
        m.put("tracking_started_ms", tracked ? started : null);
        m.put("tracker_wakeups", tracked ? pvLock.stats().trackerWakeups() : null);
        m.put("tracker_records_dropped", tracked ? pvLock.stats().switchRecordsLost() : null);
        m.put("tracker_rings_full", tracked ? pvLock.stats().fullRings() : null);
        m.put("answered_by", !pvLock.offered() ? null : pvLock.answeredByJkvm() ? "jkvm" : "kernel");
        m.put("thread_cpus", pvLock.threadCpus().map(c -> CpuSet.format(c.cpus())).orElse(null));
        m.put("thread_own_cpu", pvLock.threadCpus().map(TrackerCpus::ownCpu).orElse(null));
        PvLockStats s = pvLock.stats();
        List<Object> per = new ArrayList<>();
        for (int v = 0; v < s.vcpus(); v++) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("vcpu", v);
            e.put("feature_calls", s.featureCalls(v));
            e.put("pvlock_calls", s.pvLockCalls(v));
            e.put("preempted_set", s.preemptedSet(v));
            e.put("preempted_cleared", s.preemptedCleared(v));
            e.put("preemptions", s.preemptions(v));
            e.put("voluntary_switch_outs", s.voluntarySwitchOuts(v));
            double share = s.preemptedShare(v);
            e.put("preempted_share", Double.isNaN(share) ? null : Math.round(share * 10_000) / 10_000.0);
            e.put("kernel_changes_seen", s.changesSeen(v));
            per.add(e);
        }
        m.put("vcpus", per);
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("switches", s.staleness().count());
        st.put("mean_ns", s.staleness().meanNanos());
        st.put("p99_ns_upper_bound", s.staleness().p99BoundNanos());
        st.put("max_ns", s.staleness().maxNanos());
        m.put("staleness", st);
        return m;
    }

    private static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }
}
