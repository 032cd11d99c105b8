package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;
import java.util.function.Predicate;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.Report.Cell;
import org.jkvm.experiment.Report.WorkloadReport;
import org.jkvm.pvlock.PvLockMode;

/**
 * The report as text: a header, then the main table (a row per workload: the base's mean ± stdev,
 * then per variant mean ± stdev, % change of the mean and of the median, and won-back), a
 * geometric-mean row, the spread table (n, min, median, max per workload and variant), and each
 * variant's median against the base's with a bootstrap interval, Welch's p-value and whether it is resolved,
 * where the guests printed their own counters, what those say per workload and variant ({@link GuestFigures}),
 * and where a userspace PV-lock tracker ran, how late its flags were ({@link TrackerDelay}).
 */
public final class ReportText {
    private ReportText() {}

    /** How a report or a check names the spec's {@code vmm_pin}, before the CPU list. */
    public static final String VMM_PIN_LINE = "the rest of jkvm (JVM, devices, PV-lock thread) on host CPUs ";

    /**
     * What a report or a check adds to a variant's line where the variant sets its own
     * {@code vmm_pin}: where the rest of jkvm runs in its runs; "" where it takes the spec's.
     */
    public static String variantVmmPin(ExperimentSpec spec, Variant v) {
        if (v.vmmPin() == null) return "";
        String cpus = spec.vmmPin(v);
        return cpus == null ? ", the rest of jkvm unpinned" : ", the rest of jkvm on host CPUs " + cpus;
    }

    public static String render(Report report) {
        ExperimentSpec spec = report.spec();
        StringBuilder sb = new StringBuilder();
        sb.append("Experiment ").append(spec.name()).append(": ").append(report.measured()).append(" of ")
                .append(report.expected()).append(" measured runs");
        if (report.failed() > 0) sb.append(", ").append(report.failed()).append(" failed (left out)");
        sb.append('\n');
        for (Variant v : spec.variants()) {
            sb.append("  ").append(v.name());
            if (v.name().equals(spec.base())) sb.append(" [base]");
            if (v.name().equals(spec.reference())) sb.append(" [reference]");
            sb.append(": pvlock ").append(v.pvlock().cliName())
                    .append(v.pvlock() == PvLockMode.TRACK_ONLY ? " (jkvm tracks and writes the flags; the guest is not offered them)" : "")
                    .append(v.pvlockBatch() > 0 ? ", its tracker reading the switches every " + v.pvlockBatch() + " ms" : "")
                    .append(", steal time ").append(v.stealTime() ? "on" : "off")
                    .append(", ").append(spec.vms() > 1 ? spec.vms() + " VMs x " : "").append(spec.vcpus(v)).append(" vCPUs on host CPUs ")
                    .append(spec.pin(v)).append(String.format(Locale.ROOT, " (overcommit %.2fx)", spec.overcommit(v)))
                    .append(variantVmmPin(spec, v));
            if (v.pmu()) sb.append(", guest PMU");
            sb.append(v.cpuText());
            if (v.kernel() != null) sb.append(", kernel ").append(v.kernel().getFileName());
            if (v.hostKernelArgs() != null) sb.append(", host ").append(v.hostKernelArgs());
            if (v.cmdline() != null) sb.append(", guest ").append(v.cmdline());
            if (v.profile()) sb.append(", profiled (its throughput pays the profiler's cost)");
            sb.append('\n');
        }
        if (spec.vmmPinInherited()) sb.append("  ").append(VMM_PIN_LINE).append(spec.vmmPin()).append('\n');
        sb.append("mean ± sample stdev over the runs; % = change against the base, + is better (of the mean / of the median)");
        if (spec.reference() != null) {
            sb.append(";\nwon back = (variant - base) / (").append(spec.reference())
                    .append(" - base), of the means: 0% = the overcommitted base, 100% = no overcommit;")
                    .append(" n/a where ").append(spec.reference())
                    .append(" is not better than the base by more than their stdevs added (no measurable collapse)");
        }
        sb.append("\n\n");

        Table t = new Table();
        List<String> h1 = new ArrayList<>(List.of("Workload", "unit", "better"));
        String base = spec.base();
        h1.add(base + " (base)");
        boolean ref = spec.reference() != null;
        for (Variant v : spec.variants()) {
            if (v.name().equals(base)) continue;
            h1.add(v.name());
            h1.add("% mean");
            h1.add("% median");
            if (ref) h1.add("won back");
        }
        t.row(h1);
        for (WorkloadReport w : report.workloads()) {
            List<String> row = new ArrayList<>(List.of(w.workload().label(), w.known() ? w.unit() : "?",
                    w.known() ? w.better().toString() : "?"));
            row.add(meanSd(w.cell(base).stats()));
            for (Cell c : w.cells()) {
                if (c.variant().equals(base)) continue;
                row.add(meanSd(c.stats()));
                row.add(pct(c.changeMean()));
                row.add(pct(c.changeMedian()));
                if (ref) row.add(won(c.wonBackMean()));
            }
            t.row(row);
        }
        List<String> geo = new ArrayList<>(List.of("geomean", "", "", ""));
        for (Variant v : spec.variants()) {
            if (v.name().equals(base)) continue;
            geo.add("");
            geo.add(pct(report.geomeanChange().get(v.name())));
            geo.add("");
            if (ref) geo.add("");
        }
        t.row(geo);
        t.render(sb, 3);

        sb.append("\nSpread: n (failed), min, median, max, (max - min) / median\n\n");
        Table s = new Table();
        s.row(List.of("Workload", "variant", "n", "min", "median", "max", "spread"));
        cellRows(s, report, c -> true, (w, c) -> {
            Stats st = c.stats();
            return List.of(st.n() + (c.failed() > 0 ? " (" + c.failed() + ")" : ""),
                    num(st.min()), num(st.median()), num(st.max()), spread(st.spreadPercent()));
        });
        s.render(sb, 2);

        sb.append("\nMedian against the base's, base = 100, + is better, with a 95% percentile-bootstrap interval (")
                .append(MedianInterval.RESAMPLES).append(" resamples of each cell, fixed seed); not resolved where the interval holds 100;\n")
                .append("p = two-sided Welch's t-test on the logs of the runs' values\n\n");
        Table ci = new Table();
        ci.row(List.of("Workload", "variant", "median", "95% interval", "p", "verdict"));
        cellRows(ci, report, c -> !c.variant().equals(base), (w, c) -> {
            MedianInterval m = c.medianInterval();
            return List.of(num(w.relMedian(c, base)), interval(m), pValue(c.welchP()), m.verdict());
        });
        ci.render(sb, 2);
        guestTable(sb, report);
        trackerTable(sb, report);
        waitedTable(sb, report);
        flaggedTable(sb, report);
        accountTable(sb, report);
        driftTable(sb, report);
        if (!report.notes().isEmpty()) {
            sb.append('\n');
            for (String n : report.notes()) sb.append("note: ").append(n).append('\n');
        }
        return sb.toString();
    }

    /** The guests' own counters per cell, when any measured run has them. */
    private static void guestTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.guest() != null)) return;
        sb.append("\nThe guests' own counters over their workload (").append(GuestCounters.MARKER)
                .append(" start to end), mean of the measured runs: steal = share of the guest's CPU time stolen;\n")
                .append("run delay = time runnable tasks waited on the guest's run queues, all CPUs, per second and per op;\n")
                .append("resched = rescheduling IPIs per second; slowpath = queued spinlocks taken on the slow path per second\n\n");
        Table g = new Table();
        g.row(List.of("Workload", "variant", "steal %", "run delay ms/s", "run delay us/op", "resched/s", "slowpath/s"));
        cellRows(g, report, c -> true, (w, c) -> {
            GuestFigures f = c.guest();
            return f == null ? List.of("n/a", "n/a", "n/a", "n/a", "n/a")
                    : List.of(num(f.stealPercent()), num(f.runDelayMsPerSecond()), num(f.runDelayUsPerOp()),
                            num(f.reschedPerSecond()), num(f.spinSlowpathsPerSecond()));
        });
        g.render(sb, 2);
    }

    /**
     * The userspace PV-lock tracker's switch-to-flag delays per cell, when any measured run recorded
     * them; its wake-ups too where the runs counted them (results logged before they were have none),
     * the switch records the kernel dropped where any run lost some, and the rings found full where
     * any run found one.
     */
    private static void trackerTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.tracker() != null)) return;
        boolean wakeups = anyCell(report, c -> c.tracker() != null && !Double.isNaN(c.tracker().wakeups()));
        boolean dropped = anyCell(report, c -> c.tracker() != null && c.tracker().dropped() > 0);
        boolean full = anyCell(report, c -> c.tracker() != null && c.tracker().ringsFull() > 0);
        sb.append("\nThe userspace PV-lock tracker, in the measured runs that ran it: switches = scheduler switches of vCPU threads\n")
                .append("it read in a run (median over the runs); delay = from a switch to jkvm's write of its preempted flag: each\n")
                .append("run's mean (median over the runs, with a 95% bootstrap interval of that median), its 99th percentile's bound\n")
                .append(wakeups ? "(median) and the longest of all; wake-ups = times its thread woke to read them in a run (median)\n"
                        : "(median) and the longest of all\n")
                .append(dropped ? "dropped = switch records the kernel dropped, all runs together, as the tracker had not read a vCPU\n"
                        + "thread's ring in time (that vCPU read as running until its next record)\n" : "")
                .append(full ? "rings full = times the tracker found a vCPU thread's ring full, all runs together: records may have\n"
                        + "been dropped there, counted in dropped only where the kernel wrote to that ring again before the run ended\n" : "")
                .append("\n");
        Table d = new Table();
        List<String> header = new ArrayList<>(List.of("Workload", "variant", "runs", "switches", "delay mean us", "95% interval",
                "p99 <= us", "max us"));
        if (wakeups) header.add("wake-ups");
        if (dropped) header.add("dropped");
        if (full) header.add("rings full");
        d.row(header);
        cellRows(d, report, c -> c.tracker() != null, (w, c) -> {
            TrackerDelay.Summary t = c.tracker();
            List<String> row = new ArrayList<>(List.of(String.valueOf(t.runs()), num(t.switches()), num(t.meanUs()),
                    interval(t.meanInterval()), num(t.p99BoundUs()), num(t.maxUs())));
            if (wakeups) row.add(Double.isNaN(t.wakeups()) ? "-" : num(t.wakeups()));
            if (dropped) row.add(count(t.dropped()));
            if (full) row.add(count(t.ringsFull()));
            return row;
        });
        d.render(sb, 2);
    }

    /**
     * Who the vCPUs waited behind per cell, when any measured run recorded it ("preemptors": "on"), with
     * the records the kernel dropped and the rings found full where any run had either.
     */
    private static void waitedTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.waited() != null)) return;
        boolean gaps = anyCell(report, c -> c.waited() != null && (c.waited().lost() > 0 || c.waited().ringsFull() > 0));
        sb.append("\nWho the vCPUs waited behind, in the measured runs that told it: preemptions of vCPU threads in a run,\n")
                .append("the time they waited preempted (ms, summed over vCPUs; with a 95% bootstrap interval of its median) and the\n")
                .append("share of it each kind of task ran: the VM's vCPUs, jkvm's own threads, the rest of the host (each a median\n")
                .append("over the runs); over: the workload's window (from the guest's ready line to its result) or the whole run\n")
                .append(gaps ? "lost = switch records the kernel dropped, rings full = times a CPU's ring was found full (records may\n"
                        + "have been dropped there that no count reached), all runs together: the waits across either went uncharged,\n"
                        + "so the cell's waits are short\n" : "")
                .append("\n");
        Table d = new Table();
        List<String> header = new ArrayList<>(List.of("Workload", "variant", "runs", "preemptions", "waited ms", "95% interval",
                "vCPUs %", "jkvm %", "other %", "over"));
        if (gaps) header.addAll(List.of("lost", "rings full"));
        d.row(header);
        cellRows(d, report, c -> c.waited() != null, (w, c) -> {
            WaitedBehind.Summary s = c.waited();
            List<String> row = new ArrayList<>(List.of(String.valueOf(s.runs()), num(s.preemptions()), num(s.waitedMs()),
                    interval(s.waitedInterval()), num(s.vcpusPct()), num(s.vmmPct()), num(s.otherPct()), window(s)));
            if (gaps) row.addAll(List.of(count(s.lost()), count(s.ringsFull())));
            return row;
        });
        d.render(sb, 2);
    }

    /** Whether any cell of the report is as {@code test} asks. */
    private static boolean anyCell(Report report, Predicate<Cell> test) {
        return report.workloads().stream().flatMap(w -> w.cells().stream()).anyMatch(test);
    }

    /** A count that runs may not have recorded ({@link RecordedCount}): "-" where none did. */
    private static String count(long n) {
        return n < 0 ? "-" : String.valueOf(n);
    }

    /** How much of the workload the guest saw its vCPUs as preempted per cell, when any measured run recorded it. */
    private static void flaggedTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.flagged() != null)) return;
        sb.append("\nHow much of the workload the guest saw its vCPUs as preempted: the vCPUs' mean share of the workload's window\n")
                .append("with preempted set (userspace: of the time, from jkvm's writes; kernel: of the sampler's reads of the host\n")
                .append("kernel's flag), the median over the runs with a 95% bootstrap interval of it\n\n");
        Table d = new Table();
        d.row(List.of("Workload", "variant", "runs", "preempted %", "95% interval"));
        cellRows(d, report, c -> c.flagged() != null, (w, c) -> {
            FlaggedShare.Summary s = c.flagged();
            return List.of(String.valueOf(s.runs()), num(s.pct()), interval(s.interval()));
        });
        d.render(sb, 2);
    }

    /** Where the workload's window went per cell, when any measured run recorded its times. */
    private static void accountTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.account() != null)) return;
        sb.append("\nWhere the workload's window went: of the time of the CPUs the vCPUs are pinned to (CPUs x window), the\n")
                .append("share idle and the share running vCPU threads; of the vCPUs' time (vCPUs x window), the share their threads\n")
                .append("ran, waited runnable for a CPU, and KVM held them halted (the guest idle or asleep: KVM counts a halt until\n")
                .append("the vCPU runs again, so a woken vCPU's wait for a CPU is in both wait and halted, which then add up to more than\n")
                .append("100 with run); the vCPU threads' CPU ms per operation. Each a median over the runs; idle, halted and per\n")
                .append("operation with a 95% bootstrap interval of the median\n\n");
        Table d = new Table();
        d.row(List.of("Workload", "variant", "runs", "CPUs idle %", "95% interval", "on vCPUs %", "vCPUs run %", "wait %",
                "halted %", "95% interval", "CPU ms/op", "95% interval"));
        cellRows(d, report, c -> c.account() != null, (w, c) -> {
            WindowAccount.Summary a = c.account();
            return List.of(String.valueOf(a.runs()), percentOf(a.cpusIdle()), percentOf(a.idleInterval()),
                    percentOf(a.cpusOnVcpus()), percentOf(a.vcpusRunning()), percentOf(a.vcpusWaiting()),
                    percentOf(a.vcpusHalted()), percentOf(a.haltedInterval()),
                    num(a.cpuMsPerOp()), interval(a.perOpInterval()));
        });
        d.render(sb, 2);
    }

    /** How fast the host ran over each cell's runs, when any cell has enough runs with a ready time. */
    private static void driftTable(StringBuilder sb, Report report) {
        if (!anyCell(report, c -> c.drift() != null)) return;
        sb.append("\nThe host's speed over the runs: each run's time from its start to its guests' ready line (the same set-up and\n")
                .append("boot in every run of a cell, so the host is what moves it), its median over the first and the last half of\n")
                .append("the cell's runs in the order they ran and their ratio (above 1: the host slowed), and Spearman's rank\n")
                .append("correlation of that time with the result (near -1 for a higher-is-better result: the results followed the\n")
                .append("host's speed; a variant following it more steeply than the base moves with the host in the comparison)\n\n");
        Table d = new Table();
        d.row(List.of("Workload", "variant", "runs", "ready s, first half", "last half", "ratio", "rho"));
        cellRows(d, report, c -> c.drift() != null, (w, c) -> {
            RigDrift r = c.drift();
            return List.of(String.valueOf(r.runs()), num(r.firstHalfMs() / 1000), num(r.lastHalfMs() / 1000),
                    String.format(Locale.ROOT, "%.2f", r.slowdown()),
                    Double.isNaN(r.rho()) ? "-" : String.format(Locale.ROOT, "%.2f", r.rho()));
        });
        d.render(sb, 2);
    }

    /** A share (0 to 1) as a percentage. */
    private static String percentOf(double share) {
        return num(100 * share);
    }

    /** An interval of a share as one of percentages. */
    private static String percentOf(MedianInterval m) {
        return interval(new MedianInterval(100 * m.low(), 100 * m.high()));
    }

    /** What a cell's waits span: "workload", "run", or how many of its runs spanned the workload. */
    private static String window(WaitedBehind.Summary s) {
        if (s.overWorkload() == s.runs()) return "workload";
        return s.overWorkload() == 0 ? "run" : s.overWorkload() + " workload";
    }

    /** A row per cell {@code include} takes: the workload's label (on its first row only), the variant, then {@code columns}. */
    private static void cellRows(Table t, Report report, Predicate<Cell> include, BiFunction<WorkloadReport, Cell, List<String>> columns) {
        for (WorkloadReport w : report.workloads()) {
            boolean first = true;
            for (Cell c : w.cells()) {
                if (!include.test(c)) continue;
                List<String> row = new ArrayList<>(List.of(first ? w.workload().label() : "", c.variant()));
                row.addAll(columns.apply(w, c));
                t.row(row);
                first = false;
            }
        }
    }

    /** Decimals that show about four significant digits of a number of this size. */
    static int decimals(double x) {
        double a = Math.abs(x);
        if (!Double.isFinite(a) || a >= 1000) return 0;
        if (a >= 100) return 1;
        if (a >= 10) return 2;
        if (a >= 1 || a == 0) return 3;
        return Math.min(9, 3 - (int) Math.floor(Math.log10(a)));
    }

    /** A number to about four significant digits; n/a for NaN. */
    static String num(double x) {
        if (Double.isNaN(x)) return "n/a";
        return String.format(Locale.ROOT, "%." + decimals(x) + "f", x);
    }

    /** "mean ± stdev" with the stdev to the mean's decimals; "mean ± n/a" for one run; "n/a" for none. */
    static String meanSd(Stats s) {
        if (s.n() == 0) return "n/a";
        int d = decimals(s.mean());
        String sd = Double.isNaN(s.stdev()) ? "n/a" : String.format(Locale.ROOT, "%." + d + "f", s.stdev());
        return String.format(Locale.ROOT, "%." + d + "f", s.mean()) + " ± " + sd;
    }

    static String pct(Double x) {
        if (x == null || !Double.isFinite(x)) return "n/a";
        return String.format(Locale.ROOT, "%+.1f%%", x);
    }

    /** "[low, high]", or n/a without an interval. */
    static String interval(MedianInterval m) {
        return Double.isFinite(m.low()) ? "[" + num(m.low()) + ", " + num(m.high()) + "]" : "n/a";
    }

    /** A p-value to three significant digits; "< 0.0001" below that; n/a for NaN. */
    static String pValue(double p) {
        if (!Double.isFinite(p)) return "n/a";
        return p < 1e-4 ? "< 0.0001" : String.format(Locale.ROOT, "%.3g", p);
    }

    static String won(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.0f%%", x) : "n/a";
    }

    static String spread(double x) {
        return Double.isFinite(x) ? String.format(Locale.ROOT, "%.1f%%", x) : "n/a";
    }

    /** Columns padded to their widest cell: the first {@code leftCols} left-aligned, the rest right-aligned. */
    private static final class Table {
        private final List<List<String>> rows = new ArrayList<>();

        void row(List<String> cells) {
            rows.add(cells);
        }

        void render(StringBuilder sb, int leftCols) {
            int cols = rows.stream().mapToInt(List::size).max().orElse(0);
            int[] w = new int[cols];
            for (List<String> r : rows) for (int i = 0; i < r.size(); i++) w[i] = Math.max(w[i], r.get(i).length());
            for (List<String> r : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < cols; i++) {
                    String c = i < r.size() ? r.get(i) : "";
                    if (i > 0) line.append("  ");
                    String pad = " ".repeat(w[i] - c.length());
                    line.append(i < leftCols ? c + pad : pad + c);
                }
                sb.append(line.toString().stripTrailing()).append('\n');
            }
        }
    }
}
