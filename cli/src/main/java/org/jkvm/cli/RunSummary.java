package org.jkvm.cli;

import java.io.PrintWriter;

import org.jkvm.experiment.WindowAccount;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.pvlock.PvLockStats;
import org.jkvm.pvlock.PvLockTotals;
import org.jkvm.vmm.launch.RunReport;

/** {@code jkvm run}'s closing lines on stderr: how the guest ended, its exits, and what PV lock did. */
final class RunSummary {
    private RunSummary() {}

    static void print(PrintWriter err, RunReport run, PvLockDevice pvLock) {
        err.printf("jkvm: %s after %.2f s; %d exits%s%n", OutcomeText.describe(run.outcome()), run.ran().toNanos() / 1e9,
                run.exits(), run.strayMmio() == 0 ? "" : ", " + run.strayMmio() + " accesses to unmapped addresses");
        if (pvLock.region() != null) {
            PvLockStats s = pvLock.stats();
            PvLockTotals t = s.totals();
            if (pvLock.resolution().mode() == PvLockMode.KERNEL) {
                if (pvLock.sampling()) {
                    err.printf("jkvm: PV lock: %d PV-lock calls answered by jkvm; the host kernel changed preempted %d times,"
                            + " set in %.1f%% of the samples (read from the VMM side)%n",
                            t.pvLockCalls(), t.changesSeen(), t.preemptedShare() * 100);
                } else {
                    err.printf("jkvm: PV lock: %d PV-lock calls answered by jkvm; preempted not sampled (--pvlock-sample=0)%n",
                            t.pvLockCalls());
                }
            } else if (s.trackingStartedMillis() < 0) {
                err.printf("jkvm: PV lock: %d PV-lock calls answered; preemption tracking %s, no preempted flag written%n",
                        t.pvLockCalls(), pvLock.switchSource());
            } else {
                err.printf("jkvm: PV lock: %d PV-lock calls answered; %d preemptions and %d voluntary switch-outs of vCPU threads;"
                        + " preempted set %d and cleared %d times by jkvm, set %.1f%% of the time; switches from %s since %d ms, read in %d wake-ups%s%s%n",
                        t.pvLockCalls(), t.preemptions(), t.voluntarySwitchOuts(), t.preemptedSet(), t.preemptedCleared(),
                        t.preemptedShare() * 100, pvLock.switchSource(), s.trackingStartedMillis(), s.trackerWakeups(),
                        s.switchRecordsLost() == 0 && s.fullRings() == 0 ? "" : String.format(
                                " (%d dropped by the kernel, rings found full %d times)", s.switchRecordsLost(), s.fullRings()),
                        s.staleness().count() == 0 ? "" : String.format(
                                ", switch-to-flag delay mean %d us, p99 <= %d us, max %d us", s.staleness().meanNanos() / 1000,
                                s.staleness().p99BoundNanos() / 1000, s.staleness().maxNanos() / 1000));
            }
        }
        err.flush();
    }

    /**
     * The workload's window, where the guest marked one: how long, how much of it the guest saw its
     * vCPUs preempted, and where the vCPUs' time and their CPUs' went in it.
     */
    static void printWorkload(PrintWriter err, WorkloadWindow.Figures w, int vcpus) {
        err.printf("jkvm: workload: %.3f s from the guest's ready line to its result%s%n", w.nanos() / 1e9,
                Double.isNaN(w.flagged()) ? "" : String.format(", its vCPUs flagged preempted %.1f%% of it", w.flagged() * 100));
        if (w.vcpuThreads().isPresent() && w.idle().isPresent() && w.nanos() > 0) {
            WorkloadWindow.CpusIdle idle = w.idle().get();
            WindowAccount a = WindowAccount.of(w.nanos(), vcpus, w.vcpuThreads().get().onCpuNanos(),
                    w.vcpuThreads().get().waitingNanos(), Double.NaN, idle.cpus(), idle.nanos(), 0);
            err.printf("jkvm: workload: the vCPUs ran %.1f%% of their time in it and waited for a CPU %.1f%%; their %d host CPU%s"
                    + " idle %.1f%%%n", 100 * a.vcpusRunning(), 100 * a.vcpusWaiting(), idle.cpus(), idle.cpus() == 1 ? "" : "s",
                    100 * a.cpusIdle());
        }
        err.flush();
    }
}
