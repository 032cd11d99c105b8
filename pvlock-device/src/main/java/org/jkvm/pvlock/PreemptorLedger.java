package org.jkvm.pvlock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
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
 * <p>The records come in time order across the CPUs ({@link ContextSwitchMonitor#pollCpus}). Where
 * a CPU's ring overflowed or was found full, what ran there is unknown until its next switch: the
 * waits on that CPU end uncharged there, and whoever runs is charged only from that switch on (the
 * tally is short, never long). A task is named when first charged, while it most likely still
 * exists; whether it is one of this VM's vCPU threads is decided at the tally, as a vCPU thread may
 * run before it is registered. Used from one thread (the watch's poller); {@link #vcpuThread} from any.
 */
final class PreemptorLedger implements ContextSwitchMonitor.CpuSwitchListener {
    private static final long NONE = Long.MIN_VALUE;

    private final int[] cpuOf;           // the monitor's index -> CPU number
    private final long[] since;          // per CPU number: when its running task came in
    private final int[] waitingOn;       // per CPU number: vCPUs waiting there
    private final int[] waitCpu;         // per vCPU: the CPU it waits on, or -1
    private final long[] waitSince;
    private final long[] preemptions;
    private final long[] waited;
    /** Records the kernel dropped, as their notices came in time order. */
    private long lostRecords;
    /** Rings found full, in the same order. */
    private long ringsFull;
    private final Map<Integer, Integer> vcpuOfTid = new HashMap<>();
    private final Map<Integer, Charge> charges = new LinkedHashMap<>();
    private final IntFunction<Preemptors.Who> who;
    private final Preemptors.Who taskZero;

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
     * @param vcpus    how many vCPUs
     * @param cpus     the CPU numbers the monitor reads, in its order
     * @param who      names a task that is neither idle nor a vCPU thread, by tid (called once per task,
     *                 when it is first charged: it has just run, so it is most likely still there)
     * @param taskZero what the records' task 0 is: the idle task, or in a nested PID namespace also
     *                 every task outside it ({@link Preemptors.Who#IDLE_OR_OUTSIDE})
     */
    PreemptorLedger(int vcpus, int[] cpus, IntFunction<Preemptors.Who> who, Preemptors.Who taskZero) {
        this.cpuOf = cpus.clone();
        int top = Arrays.stream(cpus).max().orElse(0) + 1;
        this.since = new long[top];
        Arrays.fill(since, NONE);
        this.waitingOn = new int[top];
        this.waitCpu = new int[vcpus];
        Arrays.fill(waitCpu, -1);
        this.waitSince = new long[vcpus];
        this.preemptions = new long[vcpus];
        this.waited = new long[vcpus];
        this.who = who;
        this.taskZero = taskZero;
    }

    /** Vcpu {@code vcpu} runs on host thread {@code tid} from now on. */
    synchronized void vcpuThread(int vcpu, int tid) {
        vcpuOfTid.put(tid, vcpu);
    }

    @Override
    public synchronized void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long when) {
        int cpu = cpuOf[cpuIndex];
        if (waitingOn[cpu] > 0 && since[cpu] != NONE) charge(cpu, tid, when);
        Integer out = vcpuOfTid.get(tid);
        if (out != null) {
            int v = out;
            leave(v);
            if (preempted) {
                preemptions[v]++;
                chargeOf(nextTid).took++;
                waitCpu[v] = cpu;
                waitSince[v] = when;
                waitingOn[cpu]++;
            }
        }
        Integer in = vcpuOfTid.get(nextTid);
        if (in != null) leave(in);
        since[cpu] = when;
    }

    /** The ring of the monitor's CPU {@code cpuIndex} overflowed: its waits and its running task are unknown. */
    @Override
    public synchronized void lost(int cpuIndex, long count, long when) {
        lostRecords += count;
        unknown(cpuIndex);
    }

    /** The ring of CPU {@code cpuIndex} was found full: records before may be missing, so as for {@link #lost}. */
    @Override
    public synchronized void ringFull(int cpuIndex, long when) {
        ringsFull++;
        unknown(cpuIndex);
    }

    /** What runs on the monitor's CPU {@code cpuIndex}, and who waits there, is unknown until its next switch. */
    private void unknown(int cpuIndex) {
        int cpu = cpuOf[cpuIndex];
        for (int v = 0; v < waitCpu.length; v++) {
            if (waitCpu[v] == cpu) leave(v);
        }
        since[cpu] = NONE;
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
            if (c == null) c = chargeOf(tid);
            c.nanos += when - from;
            waited[v] += when - from;
        }
    }

    private Charge chargeOf(int tid) {
        Charge c = charges.get(tid);
        if (c == null) {
            Preemptors.Who w = tid == 0 ? taskZero
                    : vcpuOfTid.containsKey(tid) ? Preemptors.Who.VCPUS
                    : who.apply(tid);
            c = new Charge(w);
            charges.put(tid, c);
        }
        return c;
    }

    /**
     * The ledger's counts at one moment: what each task had been charged, and the preemptions
     * and waits so far. Two marks give a window's tally ({@link #between}), e.g. a workload's.
     */
    record Mark(Map<Integer, long[]> byTid, long preemptions, long waited, long lost, long ringsFull) {
        /** Before anything was counted. */
        static final Mark ZERO = new Mark(Map.of(), 0, 0, 0, 0);
    }

    /** The counts so far. */
    synchronized Mark mark() {
        Map<Integer, long[]> byTid = new HashMap<>();
        charges.forEach((tid, c) -> byTid.put(tid, new long[] {c.nanos, c.took}));
        return new Mark(byTid, Arrays.stream(preemptions).sum(), Arrays.stream(waited).sum(), lostRecords, ringsFull);
    }

    /** The tally so far, with the monitor's own count of the records the kernel dropped ({@code lostRecords}). */
    synchronized Preemptors tally(long lostRecords) {
        return between(Mark.ZERO, mark(), lostRecords);
    }

    /**
     * What was counted from {@code from} to {@code to}, the tasks of one name and kind taken
     * together (a workload's many short processes, a pool's threads), largest charge first; a
     * task counts among a row's tasks where it was charged in between. Its lost records and full
     * rings are those told between the two marks.
     */
    synchronized Preemptors between(Mark from, Mark to) {
        return between(from, to, to.lost() - from.lost());
    }

    private Preemptors between(Mark from, Mark to, long lostRecords) {
        Map<Preemptors.Who, long[]> byWho = new LinkedHashMap<>();
        for (Map.Entry<Integer, Charge> e : charges.entrySet()) {
            long[] end = to.byTid().get(e.getKey());
            if (end == null) continue;
            long[] start = from.byTid().getOrDefault(e.getKey(), new long[2]);
            long nanos = end[0] - start[0];
            long took = end[1] - start[1];
            if (nanos == 0 && took == 0) continue;
            long[] t = byWho.computeIfAbsent(vcpuOfTid.containsKey(e.getKey()) ? Preemptors.Who.VCPUS : e.getValue().who,
                    k -> new long[3]);
            t[0] += nanos;
            t[1] += took;
            t[2]++;
        }
        List<Preemptors.Row> rows = new ArrayList<>();
        byWho.forEach((w, t) -> rows.add(new Preemptors.Row(w, (int) t[2], t[0], t[1])));
        rows.sort(Comparator.comparingLong(Preemptors.Row::nanos).reversed()
                .thenComparing(Comparator.comparingLong(Preemptors.Row::took).reversed()));
        BitSet cpus = new BitSet();
        for (int c : cpuOf) cpus.set(c);
        return new Preemptors(cpus, to.preemptions() - from.preemptions(), to.waited() - from.waited(), rows, lostRecords,
                to.ringsFull() - from.ringsFull());
    }
}
