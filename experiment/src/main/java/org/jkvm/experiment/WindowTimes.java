package org.jkvm.experiment;

import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.jkvm.vmm.vcpu.ThreadSchedStat;

/**
 * Where the vCPUs' time went over a run's workload window: how long the window lasted, how long
 * the vCPU threads ran and waited for a CPU in it, and how long the CPUs they run on sat idle.
 * With KVM's halt time over the same window (the run's {@code kvm} section) this accounts for
 * the window: a vCPU runs, waits runnable, or is halted by its guest (KVM's halt time also holds
 * a woken vCPU's wait for a CPU: {@link WindowAccount}); a CPU runs a vCPU, runs something else,
 * or idles. It tells whether time PV lock takes from spinning waiters goes to other vCPUs or is
 * left idle.
 */
final class WindowTimes {
    static final String MS = "ms_workload";
    static final String ON_CPU = "ms_vcpus_on_cpu_workload";
    static final String WAITING = "ms_vcpus_waiting_workload";
    static final String IDLE = "ms_cpus_idle_workload";
    static final String IDLE_CPUS = "cpus_idle_counted";

    private WindowTimes() {}

    /**
     * Adds the window's figures to a run's host figures: its length from the earliest VM's start
     * to the latest VM's end; the vCPU threads' times summed over the VMs where every VM read
     * them at both edges; the idle time of {@code vcpuCpus} (the CPUs the VMs are pinned to) over
     * the same span where read at both ends.
     */
    static void put(Map<String, Number> host, List<WindowEdges.Edges<EdgeCounts>> edges, BitSet vcpuCpus) {
        EdgeCounts first = edges.stream().map(WindowEdges.Edges::start).min(Comparator.comparingLong(EdgeCounts::at)).orElseThrow();
        EdgeCounts last = edges.stream().map(WindowEdges.Edges::end).max(Comparator.comparingLong(EdgeCounts::at)).orElseThrow();
        host.put(MS, (last.at() - first.at()) / 1_000_000);
        long on = 0, waiting = 0;
        boolean all = true;
        for (WindowEdges.Edges<EdgeCounts> e : edges) {
            Optional<ThreadSchedStat> d = e.start().vcpuTimes(e.end());
            if (d.isEmpty()) {
                all = false;
                break;
            }
            on += d.get().onCpuNanos();
            waiting += d.get().waitingNanos();
        }
        if (all) {
            host.put(ON_CPU, on / 1_000_000);
            host.put(WAITING, waiting / 1_000_000);
        }
        first.idleNanos(last, vcpuCpus).ifPresent(idle -> {
            host.put(IDLE, idle / 1_000_000);
            host.put(IDLE_CPUS, vcpuCpus.cardinality());
        });
    }
}
