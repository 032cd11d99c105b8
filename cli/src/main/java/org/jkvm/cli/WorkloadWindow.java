package org.jkvm.cli;

import java.io.OutputStream;
import java.util.BitSet;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.experiment.EdgeCounts;
import org.jkvm.experiment.WindowEdges;
import org.jkvm.pvlock.PreemptorWatch;
import org.jkvm.pvlock.Preemptors;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.vmm.kvmstats.KvmStatsWindow;
import org.jkvm.vmm.launch.Launch;
import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.jkvm.vmm.vcpu.VcpuThreadTimes;

/**
 * {@code jkvm run}'s view of the guest's workload, where the guest marks one: the console passes
 * through {@link WindowEdges}, which reads KVM's statistics, the preemptor tally and the
 * {@code preempted} flags at the guest's ready line and at its first result line, as an
 * experiment's run does. A run's whole-run figures carry the boot and the power-off (a quarter to
 * a third of the vCPUs' waits in preemptors-4on1); these cover the workload alone.
 */
final class WorkloadWindow {
    private final WindowEdges<EdgeCounts> console;

    /** A window over the guest's console, which goes on to {@code out}. */
    WorkloadWindow(OutputStream out) {
        console = new WindowEdges<>(out);
    }

    /** The guest's console, to hand to the launch. */
    OutputStream console() {
        return console;
    }

    /** Reads the launch's counters at each edge from now on. */
    void watch(Launch launch, Optional<PreemptorWatch> preemptors, PvLockDevice pvLock) {
        VcpuThreadTimes vcpuTimes = launch.extension(VcpuThreadTimes.class);
        console.watch(() -> EdgeCounts.now(launch.kvmStatistics().snapshot(), preemptors.map(PreemptorWatch::mark),
                pvLock.flagMark(), vcpuTimes.mark()));
    }

    /**
     * What happened in the window, once the guest has printed both edges.
     *
     * @param from       when the guest printed its ready line, by {@link System#nanoTime}
     * @param to         when it printed its result line
     * @param kvm        KVM's statistics over it
     * @param preemptors who the vCPUs waited behind in it, where {@code --preemptors} watched
     * @param flagged    the vCPUs' mean share of it with {@code preempted} set, 0 to 1; NaN where PV lock measured none
     * @param vcpuThreads the vCPU threads' time on a CPU and on a run queue in it, summed, where read at both edges
     * @param idle       how long the vCPUs' host CPUs were idle in it, summed, where read at both edges
     */
    record Figures(long from, long to, KvmStatsWindow kvm, Optional<Preemptors> preemptors, double flagged,
                   Optional<ThreadSchedStat> vcpuThreads, Optional<CpusIdle> idle) {
        /** The window's length. */
        long nanos() {
            return to - from;
        }
    }

    /**
     * Idle time of host CPUs over the window.
     *
     * @param cpus  how many CPUs it sums: the vCPUs' {@code --pin}, or all of jkvm's
     * @param nanos their idle time, summed
     */
    record CpusIdle(int cpus, long nanos) {}

    /** The window's figures, or empty where the guest did not print both edges; {@code vcpuCpus} are the CPUs the vCPUs may use. */
    Optional<Figures> figures(Launch launch, Optional<PreemptorWatch> preemptors, BitSet vcpuCpus) {
        return console.edges().map(e -> new Figures(e.start().at(), e.end().at(),
                launch.kvmStatistics().window(e.start().kvm(), e.end().kvm()),
                preemptors.flatMap(w -> e.start().waitedBehind(e.end(), w)), e.start().flaggedShare(e.end()),
                e.start().vcpuTimes(e.end()), idle(e.start().idleNanos(e.end(), vcpuCpus), vcpuCpus.cardinality())));
    }

    /** The idle time of {@code cpus} CPUs, where both edges read it. */
    private static Optional<CpusIdle> idle(OptionalLong nanos, int cpus) {
        return nanos.isPresent() ? Optional.of(new CpusIdle(cpus, nanos.getAsLong())) : Optional.empty();
    }
}
