package org.jkvm.pvlock;

/**
 * How much each vCPU's {@code preempted} had read 1 up to one moment, so that two marks give the
 * share of a window of the run (a workload's) with the flag set ({@link PvLockDevice#flagMark}).
 * As in {@link PvLockStats#preemptedShare}, a vCPU counts from its first run, not the set-up.
 */
public sealed interface FlagMark {
    /**
     * Kernel mode: the sampler's reads of each vCPU's flag since the vCPU first ran.
     *
     * @param reads    per vCPU, the reads
     * @param readsSet per vCPU, those that found the flag set
     */
    record Sampled(long[] reads, long[] readsSet) implements FlagMark {
        public Sampled {
            reads = reads.clone();
            readsSet = readsSet.clone();
        }
    }

    /**
     * Userspace mode: the time jkvm kept each vCPU's flag set, from its own writes.
     *
     * @param at      when ({@link System#nanoTime}) the mark was taken
     * @param flagged per vCPU, nanoseconds flagged up to then, a stretch still open included
     * @param since   per vCPU, when its timing started (its thread's start), -1 if not yet
     */
    record Timed(long at, long[] flagged, long[] since) implements FlagMark {
        public Timed {
            flagged = flagged.clone();
            since = since.clone();
        }
    }

    /**
     * The vCPUs' mean share of the window from {@code from} to {@code to} with the flag set, 0 to
     * 1, over the vCPUs measured in it (a vCPU that never ran in it has no share); NaN where none
     * was, or where the two marks are not of one mode.
     */
    public static double meanShare(FlagMark from, FlagMark to) {
        double sum = 0;
        int n = 0;
        if (from instanceof Sampled a && to instanceof Sampled b) {
            for (int v = 0; v < b.reads.length; v++) {
                long reads = b.reads[v] - a.reads[v];
                if (reads <= 0) continue;
                sum += (double) (b.readsSet[v] - a.readsSet[v]) / reads;
                n++;
            }
        } else if (from instanceof Timed a && to instanceof Timed b) {
            for (int v = 0; v < b.flagged.length; v++) {
                if (b.since[v] < 0) continue;
                long span = b.at - Math.max(a.at, b.since[v]);
                if (span <= 0) continue;
                sum += Math.min(1.0, Math.max(0, b.flagged[v] - a.flagged[v]) / (double) span);
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }
}
