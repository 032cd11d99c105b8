package org.jkvm.vmm.vcpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicIntegerArray;

import org.jkvm.vmm.launch.VmExtension;

/**
 * Reads, from any thread and at any moment of a run, how long each vCPU thread has run and waited
 * for a CPU so far ({@link ThreadSchedStat}), so that a window of the run (an experiment's
 * workload) can be cut out of the whole; {@link VcpuStats#scheduled} has only the whole run, read
 * by each thread as it ends. It follows no entry: it costs the exit path nothing.
 */
public final class VcpuThreadTimes implements VmExtension, VcpuRunListener {
    private static final int NOT_STARTED = 0;

    private final AtomicIntegerArray tids;

    private VcpuThreadTimes(int vcpus) {
        tids = new AtomicIntegerArray(vcpus);
    }

    /** Attaches to a VM before its vCPUs start. */
    public static VmExtension.Attach attaching() {
        return vm -> {
            VcpuThreadTimes t = new VcpuThreadTimes(vm.vcpus().size());
            vm.addRunListener(t);
            return t;
        };
    }

    /** A new instance for {@code vcpus} vCPUs, told of their threads through {@link #started}. */
    static VcpuThreadTimes of(int vcpus) {
        return new VcpuThreadTimes(vcpus);
    }

    @Override
    public void started(int vcpu, int tid) {
        tids.set(vcpu, tid);
    }

    @Override
    public void stopped(int vcpu) {
        // The thread's figures go with it; a window that ends later has none (mark says so).
        tids.set(vcpu, NOT_STARTED);
    }

    /**
     * Each vCPU thread's figures now, in vCPU order; empty unless every vCPU thread is running
     * and the host kernel tells (CONFIG_SCHED_INFO).
     */
    public Optional<List<ThreadSchedStat>> mark() {
        List<ThreadSchedStat> all = new ArrayList<>(tids.length());
        for (int i = 0; i < tids.length(); i++) {
            int tid = tids.get(i);
            if (tid == NOT_STARTED) return Optional.empty();
            Optional<ThreadSchedStat> s = ThreadSchedStat.ofThread(tid);
            if (s.isEmpty()) return Optional.empty();
            all.add(s.get());
        }
        return Optional.of(all);
    }

    /** The vCPU threads' times summed from {@code start} to {@code end}, two {@link #mark}s of the same VM. */
    public static ThreadSchedStat between(List<ThreadSchedStat> start, List<ThreadSchedStat> end) {
        long on = 0, waiting = 0;
        for (int i = 0; i < start.size(); i++) {
            ThreadSchedStat d = end.get(i).since(start.get(i));
            on += d.onCpuNanos();
            waiting += d.waitingNanos();
        }
        return new ThreadSchedStat(on, waiting);
    }

    @Override
    public String describe() {
        return "vCPU thread times: read at the workload's edges";
    }

    @Override
    public void vmStopped() {}

    @Override
    public void close() {}
}
