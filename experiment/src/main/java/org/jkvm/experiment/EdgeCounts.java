package org.jkvm.experiment;

import java.util.Optional;

import org.jkvm.pvlock.FlagMark;
import org.jkvm.pvlock.PreemptorWatch;
import org.jkvm.vmm.kvmstats.KvmStatsSnapshot;

/**
 * The counters one VM's workload window is cut from ({@link WindowEdges}), read at one edge.
 *
 * @param at         when ({@link System#nanoTime}) they were read
 * @param kvm        KVM's statistics
 * @param preemptors the preemptor tally's counts, where the run watches who preempts the vCPUs
 * @param flags      how much each vCPU's {@code preempted} has read 1, where PV lock measures it
 */
public record EdgeCounts(long at, KvmStatsSnapshot kvm, Optional<PreemptorWatch.Mark> preemptors, Optional<FlagMark> flags) {
    /** The counters read now. */
    public static EdgeCounts now(KvmStatsSnapshot kvm, Optional<PreemptorWatch.Mark> preemptors, Optional<FlagMark> flags) {
        return new EdgeCounts(System.nanoTime(), kvm, preemptors, flags);
    }
}
