package org.jkvm.kvm;

import java.util.Arrays;

/**
 * The switch-out records of several CPUs' rings put back into one time order. Each ring is in
 * time order, but the rings are read one after the other, so a reader taking them ring by ring
 * would see a thread that left one CPU come back on another before it left. Records are held here
 * per CPU and handed on oldest first, only up to a cut-off every ring has certainly reached (a
 * record is written at the switch it stamps, so none older than the moment the rings were read,
 * less a margin, can still arrive). Lost-record notices and full rings go in the same order.
 */
final class CpuSwitchMerge {
    /** Marks a queued lost-record notice (no task has this tid); its next-task slot holds the count. */
    private static final int LOST = Integer.MIN_VALUE;
    /** Marks a ring found full (no task has this tid either). */
    private static final int RING_FULL = Integer.MIN_VALUE + 1;

    private final Queue[] queues;

    /** One CPU's records not yet handed on, oldest first (a growable ring of parallel arrays). */
    private static final class Queue {
        long[] time = new long[64];
        int[] tid = new int[64];
        int[] next = new int[64];
        boolean[] preempted = new boolean[64];
        int head;
        int size;

        void add(int t, int n, boolean p, long when) {
            if (size == time.length) grow();
            int at = (head + size) % time.length;
            time[at] = when;
            tid[at] = t;
            next[at] = n;
            preempted[at] = p;
            size++;
        }

        private void grow() {
            int n = time.length * 2;
            long[] t2 = new long[n];
            int[] tid2 = new int[n];
            int[] next2 = new int[n];
            boolean[] p2 = new boolean[n];
            for (int k = 0; k < size; k++) {
                int from = (head + k) % time.length;
                t2[k] = time[from];
                tid2[k] = tid[from];
                next2[k] = next[from];
                p2[k] = preempted[from];
            }
            time = t2;
            tid = tid2;
            next = next2;
            preempted = p2;
            head = 0;
        }
    }

    CpuSwitchMerge(int cpus) {
        queues = new Queue[cpus];
        Arrays.setAll(queues, k -> new Queue());
    }

    void switchedOut(int cpuIndex, int tid, int nextTid, boolean preempted, long when) {
        queues[cpuIndex].add(tid, nextTid, preempted, when);
    }

    void lost(int cpuIndex, long count, long when) {
        queues[cpuIndex].add(LOST, (int) Math.min(count, Integer.MAX_VALUE), false, when);
    }

    void ringFull(int cpuIndex, long when) {
        queues[cpuIndex].add(RING_FULL, 0, false, when);
    }

    /**
     * Hands on every held record stamped at or before {@code cutoff} (all of them with
     * {@link Long#MAX_VALUE}), oldest first across the CPUs; returns how many switches.
     */
    int deliver(long cutoff, ContextSwitchMonitor.CpuSwitchListener listener) {
        int delivered = 0;
        while (true) {
            int pick = -1;
            long oldest = cutoff;
            for (int c = 0; c < queues.length; c++) {
                Queue q = queues[c];
                if (q.size > 0 && q.time[q.head] <= oldest && (pick < 0 || q.time[q.head] < oldest)) {
                    pick = c;
                    oldest = q.time[q.head];
                }
            }
            if (pick < 0) return delivered;
            Queue q = queues[pick];
            int h = q.head;
            q.head = (h + 1) % q.time.length;
            q.size--;
            if (q.tid[h] == LOST) {
                listener.lost(pick, q.next[h], q.time[h]);
            } else if (q.tid[h] == RING_FULL) {
                listener.ringFull(pick, q.time[h]);
            } else {
                listener.switchedOut(pick, q.tid[h], q.next[h], q.preempted[h], q.time[h]);
                delivered++;
            }
        }
    }
}
