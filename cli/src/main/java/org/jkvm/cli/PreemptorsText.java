package org.jkvm.cli;

import java.io.PrintWriter;
import java.util.List;

import org.jkvm.pvlock.Preemptors;
import org.jkvm.vmm.config.CpuSet;

/** {@code jkvm run --preemptors}' closing lines: who ran while a vCPU thread waited preempted. */
final class PreemptorsText {
    /** Rows printed; the rest are summed on one line. */
    static final int TOP = 10;

    private PreemptorsText() {}

    /** Prints tally {@code p} of the span {@code span} names ("" for the whole run, " over the workload" for its window). */
    static void print(PrintWriter err, Preemptors p, String span) {
        err.printf("jkvm: preemptors%s: %d preemptions of vCPU threads on host CPUs %s, %.3f s waited behind:%s%n",
                span, p.preemptions(), CpuSet.format(p.cpus()), p.waitedNanos() / 1e9,
                shortBy(p));
        if (p.rows().isEmpty()) {
            err.flush();
            return;
        }
        err.printf("jkvm:   %-6s %-30s %6s %10s %7s %10s%n", "kind", "who", "tasks", "waited s", "share", "came next");
        List<Preemptors.Row> rows = p.rows();
        for (Preemptors.Row r : rows.subList(0, Math.min(TOP, rows.size()))) {
            line(err, r.who().kind().name().toLowerCase(), r.who().name(), r.tasks(), r.nanos(), r.took(), p.waitedNanos());
        }
        if (rows.size() > TOP) {
            List<Preemptors.Row> rest = rows.subList(TOP, rows.size());
            line(err, "", (rows.size() - TOP) + " more", rest.stream().mapToInt(Preemptors.Row::tasks).sum(),
                    rest.stream().mapToLong(Preemptors.Row::nanos).sum(), rest.stream().mapToLong(Preemptors.Row::took).sum(),
                    p.waitedNanos());
        }
        err.flush();
    }

    /** What the kernel dropped, or "" when it dropped nothing and no ring was found full. */
    private static String shortBy(Preemptors p) {
        if (p.lostRecords() == 0 && p.ringsFull() == 0) return "";
        String why = p.ringsFull() > 0 ? ", rings found full " + p.ringsFull() + " times: " : ": rings full, ";
        return " (" + p.lostRecords() + " switch records lost" + why + "the tally is short)";
    }

    private static void line(PrintWriter err, String kind, String who, int tasks, long nanos, long took, long total) {
        err.printf("jkvm:   %-6s %-30s %6d %10.3f %6.1f%% %10d%n", kind, who, tasks, nanos / 1e9,
                total == 0 ? 0.0 : 100.0 * nanos / total, took);
    }
}
