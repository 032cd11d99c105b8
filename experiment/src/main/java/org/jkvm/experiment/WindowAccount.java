package org.jkvm.experiment;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * Where one run's workload window went, from the figures {@link WindowTimes} recorded and KVM's
 * halt time over the same window: of the vCPUs' CPUs' time (CPUs x window), the share idle and
 * the share running vCPU threads; of the vCPUs' time (vCPUs x window), the share their threads
 * ran, waited runnable for a CPU, and were halted by KVM (the guest idle or asleep in WFI); and
 * the vCPUs' CPU time per operation. It tells what PV lock does with the time it takes from
 * spinning waiters: whether other vCPUs get it, or it is left idle, or each operation costs more.
 *
 * @param cpusIdle     share of the vCPUs' CPUs' time they were idle, 0 to 1
 * @param cpusOnVcpus  share of it they ran vCPU threads
 * @param vcpusRunning share of the vCPUs' time their threads ran
 * @param vcpusWaiting share of it their threads waited runnable
 * @param vcpusHalted  share of it KVM held them halted; NaN where KVM's statistics over the window are missing. KVM's
 *                     halt time runs until the vCPU runs again, so it holds a woken vCPU's wait for a CPU, which
 *                     {@code vcpusWaiting} holds too: the three vCPU shares add up to more than 1 by that much
 * @param cpuMsPerOp   the vCPU threads' CPU milliseconds per operation (a run's results are in milliseconds); NaN where
 *                     the result is no rate of operations
 */
public record WindowAccount(double cpusIdle, double cpusOnVcpus, double vcpusRunning, double vcpusWaiting,
                            double vcpusHalted, double cpuMsPerOp) {
    private static final String HALT_NS = "halt_wait_ns";

    /**
     * What a successful run recorded, where it recorded the window's times; {@code vcpus} is its
     * vCPUs over all its VMs, {@code seconds} its workload's.
     */
    static Optional<WindowAccount> of(RunResult r, int vcpus, int seconds) {
        Map<String, Number> h = r.host();
        if (!r.ok() || !h.containsKey(WindowTimes.MS) || !h.containsKey(WindowTimes.ON_CPU)
                || !h.containsKey(WindowTimes.IDLE) || h.get(WindowTimes.MS).longValue() <= 0 || vcpus <= 0) {
            return Optional.empty();
        }
        double ops = r.unit().endsWith("ops/s") ? r.vmValues().stream().mapToDouble(Double::doubleValue).sum() * seconds : 0;
        return Optional.of(of(h.get(WindowTimes.MS).doubleValue(), vcpus, h.get(WindowTimes.ON_CPU).doubleValue(),
                h.get(WindowTimes.WAITING).doubleValue(), haltedMs(r), h.get(WindowTimes.IDLE_CPUS).intValue(),
                h.get(WindowTimes.IDLE).doubleValue(), ops));
    }

    /**
     * The account of a window {@code window} long, every time in the same unit: {@code vcpus} vCPU
     * threads ran {@code onCpu} and waited {@code waiting} in it, summed, and were halted
     * {@code halted} (NaN where unknown); {@code cpus} host CPUs were idle {@code idle}, summed;
     * the guests counted {@code ops} operations (0 where they count none). CPU per operation is
     * in the times' unit.
     */
    public static WindowAccount of(double window, int vcpus, double onCpu, double waiting, double halted, int cpus, double idle,
                                   double ops) {
        double cpuTime = cpus * window;
        double vcpuTime = vcpus * window;
        return new WindowAccount(idle / cpuTime, onCpu / cpuTime, onCpu / vcpuTime, waiting / vcpuTime, halted / vcpuTime,
                ops > 0 ? onCpu / ops : Double.NaN);
    }

    /** KVM's halt time over the window, summed over the run's vCPUs; NaN where KVM's statistics do not cover the window. */
    private static double haltedMs(RunResult r) {
        if (r.kvm() == null || !RunKvmStats.WORKLOAD.equals(r.kvm().window())) return Double.NaN;
        double ms = 0;
        for (RunKvmStats.Vm vm : r.kvm().vms()) {
            if (vm.unavailable() != null) return Double.NaN;
            for (Map<String, Object> v : vm.vcpus()) ms += v.get(HALT_NS) instanceof Long ns ? ns / 1e6 : 0;
        }
        return ms;
    }

    /**
     * A cell's runs: each share's median over them, and for the three that tell PV lock's effect
     * apart (CPUs idle, vCPUs halted, CPU per operation) a 95% bootstrap interval of the median.
     *
     * @param runs           runs that recorded it
     * @param cpusIdle       median share of the CPUs' time idle
     * @param idleInterval   its interval
     * @param cpusOnVcpus    median share of the CPUs' time running vCPUs
     * @param vcpusRunning   median share of the vCPUs' time running
     * @param vcpusWaiting   median share waiting runnable
     * @param vcpusHalted    median share halted
     * @param haltedInterval its interval
     * @param cpuMsPerOp     median CPU milliseconds per operation
     * @param perOpInterval  its interval
     */
    public record Summary(int runs, double cpusIdle, MedianInterval idleInterval, double cpusOnVcpus, double vcpusRunning,
                          double vcpusWaiting, double vcpusHalted, MedianInterval haltedInterval, double cpuMsPerOp,
                          MedianInterval perOpInterval) {
        /** The summary of {@code runs}, or null for none. */
        static Summary of(List<WindowAccount> runs) {
            if (runs.isEmpty()) return null;
            return new Summary(runs.size(), median(runs, WindowAccount::cpusIdle), interval(runs, WindowAccount::cpusIdle),
                    median(runs, WindowAccount::cpusOnVcpus), median(runs, WindowAccount::vcpusRunning),
                    median(runs, WindowAccount::vcpusWaiting), median(runs, WindowAccount::vcpusHalted),
                    interval(runs, WindowAccount::vcpusHalted), median(runs, WindowAccount::cpuMsPerOp),
                    interval(runs, WindowAccount::cpuMsPerOp));
        }

        private static double median(List<WindowAccount> runs, ToDoubleFunction<WindowAccount> figure) {
            return Stats.of(runs.stream().mapToDouble(figure).toArray()).median();
        }

        private static MedianInterval interval(List<WindowAccount> runs, ToDoubleFunction<WindowAccount> figure) {
            return MedianInterval.ofMedian(runs.stream().mapToDouble(figure).toArray());
        }
    }
}
