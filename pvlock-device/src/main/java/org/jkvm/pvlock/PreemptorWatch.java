package org.jkvm.pvlock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

import org.jkvm.kvm.ContextSwitchMonitor;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.KvmException;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.VcpuThreads;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.vcpu.VcpuRunListener;

/**
 * Tells who keeps the vCPUs from running: reads every scheduler switch on the host CPUs the vCPU
 * threads may use (CPU-wide perf context-switch records) and charges each task that runs there
 * with the time a preempted vCPU thread waits behind it ({@link PreemptorLedger}). The question
 * a PV-lock study asks of a preempted lock holder: another vCPU of the same VM (overcommit),
 * jkvm's own threads, or the rest of the host. Its thread runs where the PV-lock tracker would
 * ({@link TrackerCpus}); the records wake it only when a ring is half full.
 */
public final class PreemptorWatch implements VmExtension, VcpuRunListener {
    private static final System.Logger LOG = System.getLogger(PreemptorWatch.class.getName());
    /** 2^5 pages a CPU (128 KiB with 4 KiB pages): 2048 switches, each an out and an in record of 32 bytes. */
    private static final int RING_PAGES_LOG2 = 5;
    private static final int POLL_MILLIS = 100;

    private final BitSet cpus;
    private final ContextSwitchMonitor monitor;
    private final PreemptorLedger ledger;
    private final Thread poller;
    private volatile boolean stopping;

    private PreemptorWatch(int vcpus, BitSet cpus, ContextSwitchMonitor monitor, BitSet pollerCpus) {
        this.cpus = cpus;
        this.monitor = monitor;
        this.ledger = new PreemptorLedger(vcpus, cpus.stream().toArray(), PreemptorWatch::name, taskZero());
        this.poller = Thread.ofPlatform().name("preemptor-watch").daemon().unstarted(() -> poll(pollerCpus));
    }

    /**
     * Attaches a watch on the CPUs of the VM's {@code --pin} (all of jkvm's CPUs when unpinned);
     * called before any vCPU thread starts.
     * A host that refuses CPU-wide perf events (not root, perf_event_paranoid above 0) is an
     * {@link IllegalArgumentException} naming the fix.
     */
    public static VmExtension.Attach attaching() {
        return vm -> {
            int vcpus = vm.vcpus().size();
            BitSet pin = vm.config().pin();
            // Not the process's CPUs: under --vmm-pin they are the others already.
            BitSet watched = pin != null ? (BitSet) pin.clone() : HostCpus.currentAffinity();
            ContextSwitchMonitor m;
            try {
                m = ContextSwitchMonitor.openCpus(RING_PAGES_LOG2, watched.stream().toArray());
            } catch (KvmException e) {
                throw new IllegalArgumentException("telling who preempts the vCPUs needs every switch on host CPUs "
                        + CpuSet.format(watched) + ": " + e.getMessage(), e);
            }
            PreemptorWatch w = new PreemptorWatch(vcpus, watched, m, TrackerCpus.of(vcpus, pin).cpus());
            vm.addRunListener(w);
            w.poller.start();
            return w;
        };
    }

    @Override
    public String describe() {
        return "preemptor watch: every scheduler switch on host CPUs " + CpuSet.format(cpus)
                + ", charged to whoever ran while a vCPU waited";
    }

    private void poll(BitSet pollerCpus) {
        try {
            HostCpus.pinCurrentThread(pollerCpus);
        } catch (KvmException e) {
            LOG.log(Level.WARNING, "the preemptor watch runs on all of jkvm''s CPUs: {0}", e.getMessage());
        }
        try {
            while (!stopping) monitor.pollCpus(POLL_MILLIS, ledger);
            monitor.flushCpus(ledger);
        } catch (RuntimeException e) {
            // A monitor that fails ends the tally, not the VM: the run's other figures stand.
            LOG.log(Level.WARNING, "the preemptor tally stops here, short of the rest of the run: {0}", e.getMessage());
        }
    }

    /** What the switch records' task 0 is here: the idle task, and in a nested PID namespace also every task outside it. */
    static Preemptors.Who taskZero() {
        return PidNamespace.nested() ? Preemptors.Who.IDLE_OR_OUTSIDE : Preemptors.Who.IDLE;
    }

    /**
     * Names a task that is no vCPU thread of this VM: this process's own threads are jkvm's, its
     * {@code vcpu-N} threads those of another VM of an experiment's run.
     */
    static Preemptors.Who name(int tid) {
        Path own = Path.of("/proc/self/task/" + tid + "/comm");
        try {
            if (Files.exists(own)) {
                String comm = Files.readString(own).strip();
                return comm.startsWith(VcpuThreads.NAME_PREFIX) ? Preemptors.Who.OTHER_VMS_VCPUS
                        : new Preemptors.Who(Preemptors.Kind.VMM, comm);
            }
            return new Preemptors.Who(Preemptors.Kind.OTHER, Files.readString(Path.of("/proc/" + tid + "/comm")).strip());
        } catch (IOException e) {
            return new Preemptors.Who(Preemptors.Kind.OTHER, "exited");
        }
    }

    @Override
    public void started(int vcpu, int tid) {
        ledger.vcpuThread(vcpu, tid);
    }

    @Override
    public void stopped(int vcpu) {}

    /** Stops reading: the switches after the last vCPU stopped are no one's concern. */
    @Override
    public void vmStopped() {
        stopping = true;
        try {
            poller.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The tally; complete once the VM has stopped. */
    public Preemptors preemptors() {
        return ledger.tally(monitor.lostRecords());
    }

    /**
     * The tally's counts now, one edge of a window of the run (a workload's start or end); quick,
     * callable from a vCPU thread. The counts lag the switches by the few milliseconds the watch
     * holds each record to put the CPUs' records in order.
     */
    public Mark mark() {
        return new Mark(ledger.mark());
    }

    /**
     * What was counted between two marks of this watch, the records the kernel dropped in between
     * among it (each overflow notice carries its time).
     */
    public Preemptors between(Mark from, Mark to) {
        return ledger.between(from.counts, to.counts);
    }

    /** The tally's counts at one moment ({@link #mark}). */
    public static final class Mark {
        private final PreemptorLedger.Mark counts;

        private Mark(PreemptorLedger.Mark counts) {
            this.counts = counts;
        }
    }

    @Override
    public void close() {
        vmStopped();
        monitor.close();
    }
}
