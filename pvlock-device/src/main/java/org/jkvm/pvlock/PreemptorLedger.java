package org.jkvm.pvlock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import org.jkvm.kvm.ContextSwitchMonitor;

/**
 * Who kept the vCPU threads off their CPUs, from every switch on those CPUs: while a vCPU thread
 * waits preempted (switched out still runnable) on a CPU, the time each other task runs there is
 * charged to that task, per waiting vCPU. So with two vCPUs waiting behind a third, the third is
 * charged twice: the sum is the vCPUs' waiting time, not the CPU's.
 *
 * <p>A CPU's records come in time order, but the CPUs are read one after the other: a vCPU
 * preempted on one CPU and back on another may show its return first. Its preemption is then
 * not counted as waiting from its switch-out on (the rest of that one wait goes uncharged, never
 * charged twice). Used from one thread (the watch's poller); {@link #vcpuThread} from any.
 */
final class PreemptorLedger implements ContextSwitchMonitor.CpuSwitchListener {
    private static final long NONE = Long.MIN_VALUE;

    private final int[] cpuOf;           // the monitor's index -> CPU number
    private final long[] since;          // per CPU number: when its running task came in
    private final int[] waitingOn;       // per CPU number: vCPUs waiting there
    private final int[] vcpuTid;
    private final int[] waitCpu;         // per vCPU: the CPU it waits on, or -1
    private final long[] waitSince;
    private final long[] lastIn;
    private final long[] preemptions;
    private final long[] waited;
    private final Map<Integer, Integer> vcpuOfTid = new HashMap<>();
    private final Map<Integer, Charge> charges = new LinkedHashMap<>();
    private final IntFunction<Preemptors.Who> who;

    /** What one task kept the vCPUs from, and how many preemptions it took over from one. */
    private static final class Charge {
        final Preemptors.Who who;
        long nanos;
        long took;

        Charge(Preemptors.Who who) {
            this.who = who;
        }
    }

    /**
     * @param vcpus how many vCPUs
     * @param cpus  the CPU numbers the monitor reads, in its order
     * @param who   names a task that is neither idle nor a vCPU thread, by tid (called once per task,
     *              when it is first charged: it has just run, so it is most likely still there)
     */
    PreemptorLedger(int vcpus, int[] cpus, IntFunction<Preemptors.Who> who) {
        this.cpuOf = cpus.clone();
        int top = Arrays.stream(cpus).max().orElse(0) + 1;
        this.since = new long[top];
        Arrays.fill(since, NONE);
        this.waitingOn = new int[top];
        this.vcpuTid = new int[vcpus];
        this.waitCpu = new int[vcpus];
        Arrays.fill(waitCpu, -1);
        this.waitSince = new long[vcpus];
        this.lastIn = new long[vcpus];
        Arrays.fill(lastIn, NONE);
        this.preemptions = new long[vcpus];
        this.waited = new long[vcpus];
        this.who = who;
    }

    /** Vcpu {@code vcpu} runs on host thread {@code tid} from now on. */
    synchronized void vcpuThread(int vcpu, int tid) {
        vcpuTid[vcpu] = tid;
        vcpuOfTid.put(tid, vcpu);
    }

    @Override
    public synchronized void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long when) {
        int cpu = cpuOf[cpuIndex];
        if (waitingOn[cpu] > 0 && since[cpu] != NONE) charge(cpu, tid, when);
        Integer out = tid == 0 ? null : vcpuOfTid.get(tid);
        if (out != null) {
            int v = out;
            leave(v);
            if (preempted) {
                preemptions[v]++;
                chargeOf(nextTid, nextTid == 0 ? null : vcpuOfTid.get(nextTid)).took++;
                if (lastIn[v] == NONE || lastIn[v] < when) {
                    waitCpu[v] = cpu;
                    waitSince[v] = when;
                    waitingOn[cpu]++;
                }
            }
        }
        Integer in = nextTid == 0 ? null : vcpuOfTid.get(nextTid);
        if (in != null) {
            leave(in);
            if (lastIn[in] == NONE || lastIn[in] < when) lastIn[in] = when;
        }
        since[cpu] = when;
    }

    /** Ends vCPU {@code v}'s wait, if it was waiting. */
    private void leave(int v) {
        if (waitCpu[v] < 0) return;
        waitingOn[waitCpu[v]]--;
        waitCpu[v] = -1;
    }

    /** Charges {@code tid}, which ran on {@code cpu} until {@code when}, with each waiting vCPU's share of that. */
    private void charge(int cpu, int tid, long when) {
        Charge c = null;
        for (int v = 0; v < waitCpu.length; v++) {
            if (waitCpu[v] != cpu) continue;
            long from = Math.max(since[cpu], waitSince[v]);
            if (when <= from) continue;
            if (c == null) c = chargeOf(tid, tid == 0 ? null : vcpuOfTid.get(tid));
            c.nanos += when - from;
            waited[v] += when - from;
        }
    }

    private Charge chargeOf(int tid, Integer vcpu) {
        Charge c = charges.get(tid);
        if (c == null) {
            Preemptors.Who w = tid == 0 ? Preemptors.Who.IDLE
                    : vcpu != null ? Preemptors.Who.VCPUS
                    : who.apply(tid);
            c = new Charge(w);
            charges.put(tid, c);
        }
        return c;
    }

    /**
     * The tally so far, the tasks of one name and kind taken together (a workload's many short
     * processes, a pool's threads), largest charge first.
     */
    synchronized Preemptors tally(int[] cpus, long lostRecords) {
        Map<Preemptors.Who, long[]> byWho = new LinkedHashMap<>();
        for (Charge c : charges.values()) {
            long[] t = byWho.computeIfAbsent(c.who, k -> new long[3]);
            t[0] += c.nanos;
            t[1] += c.took;
            t[2]++;
        }
        List<Preemptors.Row> rows = new ArrayList<>();
        byWho.forEach((w, t) -> rows.add(new Preemptors.Row(w, (int) t[2], t[0], t[1])));
        rows.sort(Comparator.comparingLong(Preemptors.Row::nanos).reversed()
                .thenComparing(Comparator.comparingLong(Preemptors.Row::took).reversed()));
        return new Preemptors(cpus, Arrays.stream(preemptions).sum(), Arrays.stream(waited).sum(), rows, lostRecords);
    }
}
