package org.jkvm.vmm;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.jkvm.kvm.VcpuFd;
import org.jkvm.vmm.vcpu.MachineControl;
import org.jkvm.vmm.vcpu.VcpuLoop;
import org.jkvm.vmm.vcpu.VcpuStats;

/**
 * A built VM's vCPUs and their threads, arch-neutral: starts one platform thread per vCPU
 * (KVM_RUN blocks; a virtual thread would pin its carrier), and ends the VM exactly once, by
 * the first outcome reported (guest power-off, a signal, a timeout, a failure), kicking every
 * vCPU out of KVM_RUN and joining its thread.
 */
public final class VcpuThreads implements MachineControl {
    private static final System.Logger LOG = System.getLogger(VcpuThreads.class.getName());
    /** Each vCPU thread is named this and the vCPU's id (how the host's tools list it too). */
    public static final String NAME_PREFIX = "vcpu-";
    /** How long all vCPU threads together may take to return once the VM has ended. */
    static final Duration JOIN_LIMIT = Duration.ofSeconds(5);

    private final List<VcpuFd> vcpus;
    private final List<VcpuLoop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CompletableFuture<VmOutcome> outcome = new CompletableFuture<>();
    private volatile boolean stopping;

    /** The threads of {@code vcpus}; their loops are added with {@link #addLoop} before {@link #start}. */
    public VcpuThreads(List<VcpuFd> vcpus) {
        this.vcpus = List.copyOf(vcpus);
    }

    /** Adds the run loop for the next vCPU. */
    public void addLoop(VcpuLoop loop) {
        loops.add(loop);
    }

    /** Starts every vCPU's thread. */
    public void start() {
        if (loops.size() != vcpus.size()) throw new IllegalStateException(loops.size() + " loops for " + vcpus.size() + " vCPUs");
        for (int i = 0; i < loops.size(); i++) {
            threads.add(Thread.ofPlatform().name(NAME_PREFIX + vcpus.get(i).id()).daemon().start(loops.get(i)));
        }
    }

    @Override
    public boolean stopping() {
        return stopping;
    }

    @Override
    public void finish(VmOutcome o) {
        if (!outcome.complete(o)) return;
        StopMarks.ended();
        stopping = true;
        for (VcpuFd v : vcpus) v.kick();
        StopMarks.mark(vcpus.size() + " vCPUs kicked");
    }

    /** Stops the VM from outside (a signal, a caller); a no-op once it has ended. */
    public void stop(String reason) {
        Objects.requireNonNull(reason, "reason");
        finish(new VmOutcome.Stopped(reason));
    }

    /**
     * Waits for the VM to end, at most {@code timeout} (null: no limit), then for every vCPU
     * thread to return. Returns how it ended.
     */
    public VmOutcome await(Duration timeout) throws InterruptedException {
        VmOutcome o;
        try {
            o = timeout == null ? outcome.get() : outcome.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            finish(new VmOutcome.TimedOut(timeout.toSeconds()));
            o = outcome.join();
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        joinAll();
        return o;
    }

    /**
     * Joins every vCPU thread within {@link #JOIN_LIMIT} in all, not each: a thread that cannot
     * be kicked out would be a KVM bug, and a few of them must not add up to minutes.
     */
    private void joinAll() throws InterruptedException {
        long deadline = System.nanoTime() + JOIN_LIMIT.toNanos();
        for (Thread t : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) break;
        }
        List<String> running = threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (!running.isEmpty()) {
            LOG.log(Level.WARNING, "{0} vCPU thread(s) still running {1} s after the VM ended: {2}",
                    running.size(), JOIN_LIMIT.toSeconds(), String.join(", ", running));
        }
        StopMarks.mark((threads.size() - running.size()) + " vCPU threads returned");
    }

    /** Whether every vCPU thread has returned. */
    public boolean allThreadsEnded() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /** The counters of every vCPU, in vCPU order. */
    public List<VcpuStats> stats() {
        return loops.stream().map(VcpuLoop::stats).toList();
    }
}
