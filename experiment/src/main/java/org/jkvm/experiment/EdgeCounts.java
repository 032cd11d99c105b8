package org.jkvm.experiment;

import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.pvlock.FlagMark;
import org.jkvm.pvlock.PreemptorWatch;
import org.jkvm.pvlock.Preemptors;
import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;
import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.jkvm.vmm.vcpu.VcpuThreadTimes;

/**
 * The counters one VM's workload window is cut from ({@link WindowEdges}), read at one edge.
 *
 * @param at         when ({@link System#nanoTime}) they were read
 * @param kvm        KVM's statistics
 * @param preemptors the preemptor tally's counts, where the run watches who preempts the vCPUs
 * @param flags      how much each vCPU's {@code preempted} has read 1, where PV lock measures it
 * @param vcpuThreads each vCPU thread's run and wait times ({@link VcpuThreadTimes}), where read
 * @param idle       how long each host CPU has been idle, where read
 */
public record EdgeCounts(long at, KvmStatsSnapshot kvm, Optional<PreemptorWatch.Mark> preemptors, Optional<FlagMark> flags,
                         Optional<List<ThreadSchedStat>> vcpuThreads, Optional<HostIdle> idle) {
    /** The counters read now, the host CPUs' idle time among them. */
    public static EdgeCounts now(KvmStatsSnapshot kvm, Optional<PreemptorWatch.Mark> preemptors, Optional<FlagMark> flags,
                                 Optional<List<ThreadSchedStat>> vcpuThreads) {
        return new EdgeCounts(System.nanoTime(), kvm, preemptors, flags, vcpuThreads, HostIdle.now());
    }

    /** Who the vCPUs waited behind from here to {@code end}, where {@code watch} marked both edges. */
    public Optional<Preemptors> waitedBehind(EdgeCounts end, PreemptorWatch watch) {
        return preemptors.flatMap(from -> end.preemptors.map(to -> watch.between(from, to)));
    }

    /** The vCPUs' mean share of the window from here to {@code end} with {@code preempted} set; NaN where PV lock measured none. */
    public double flaggedShare(EdgeCounts end) {
        return flags.isPresent() && end.flags.isPresent() ? FlagMark.meanShare(flags.get(), end.flags.get()) : Double.NaN;
    }

    /** The vCPU threads' run and wait times from here to {@code end}, summed; empty where either edge did not read them. */
    public Optional<ThreadSchedStat> vcpuTimes(EdgeCounts end) {
        return vcpuThreads.flatMap(from -> end.vcpuThreads.map(to -> VcpuThreadTimes.between(from, to)));
    }

    /** Nanoseconds the host CPUs in {@code cpus} were idle from here to {@code end}, summed; empty where either edge did not read them. */
    public OptionalLong idleNanos(EdgeCounts end, BitSet cpus) {
        return idle.isPresent() && end.idle.isPresent() ? OptionalLong.of(idle.get().idleNanos(end.idle.get(), cpus)) : OptionalLong.empty();
    }
}
