package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.vmm.io.OutputFile;

/**
 * The numbers of an experiment: per workload and variant the statistics of the measured runs and
 * how the variant compares with the base (and, with a reference, how much collapse it wins back).
 * Warm-up runs and failed runs are left out; the last result of each id counts.
 *
 * @param spec          the experiment
 * @param workloads     one entry per workload, in spec order
 * @param geomeanChange per variant: {@link Compare#geomeanChange} of its mean relative performance over the workloads
 * @param measured      measured results used
 * @param failed        measured runs that failed
 * @param expected      measured runs in the matrix
 * @param notes         things the reader should know (results for variants the spec does not have, mixed units...)
 */
public record Report(ExperimentSpec spec, List<WorkloadReport> workloads, Map<String, Double> geomeanChange,
                     int measured, int failed, int expected, List<String> notes) {

    /**
     * One workload.
     *
     * @param workload the workload
     * @param unit     as the guests reported it ("" if no result)
     * @param better   as the guests reported it (HIGHER if no result)
     * @param known    whether any result gave unit and direction
     * @param cells    one per variant, in spec order
     */
    public record WorkloadReport(Workload workload, String unit, Direction better, boolean known, List<Cell> cells) {
        public Cell cell(String variant) {
            for (Cell c : cells) if (c.variant().equals(variant)) return c;
            throw new IllegalArgumentException("no variant " + variant);
        }

        /** {@code c}'s median against the median of the variant {@code base} (base = 100, {@link Compare#relative}). */
        public double relMedian(Cell c, String base) {
            return Compare.relative(cell(base).stats().median(), c.stats().median(), better);
        }
    }

    /**
     * One variant on one workload. Percentages are NaN (printed n/a) where undefined.
     *
     * @param variant        the variant's name
     * @param stats          of its measured values
     * @param failed         its failed measured runs
     * @param changeMean     {@link Compare#percentChange} of the means, + = better
     * @param changeMedian   the same on medians
     * @param wonBackMean    {@link Compare#wonBack} of the means (NaN without a reference or a
     *                       {@link Compare#measurableCollapse measurable collapse})
     * @param wonBackMedian  the same on medians
     * @param relMean        {@link Compare#relative} of the mean (base = 100, higher is better)
     * @param relLow         relative performance of its worst run
     * @param relHigh        relative performance of its best run
     * @param medianInterval its median against the base's with a 95% bootstrap interval
     *                       ({@link MedianInterval#NONE} for the base itself)
     * @param welchP         {@link LogWelch#p} of its runs against the base's (NaN for the base itself)
     * @param guest          the mean of its measured runs' {@link GuestFigures}, or null when none has them
     * @param tracker        the {@link TrackerDelay.Summary} of its measured runs' delays, or null when none recorded them
     * @param waited         the {@link WaitedBehind.Summary} of its measured runs, or null when none recorded it
     * @param flagged        the {@link FlaggedShare.Summary} of its measured runs, or null when none recorded it
     * @param account        the {@link WindowAccount.Summary} of its measured runs, or null when none recorded it
     * @param drift          how fast the host ran over its measured runs ({@link RigDrift}), or null where too few recorded it
     */
    public record Cell(String variant, Stats stats, int failed, double changeMean, double changeMedian,
                       double wonBackMean, double wonBackMedian, double relMean, double relLow, double relHigh,
                       MedianInterval medianInterval, double welchP, GuestFigures guest, TrackerDelay.Summary tracker,
                       WaitedBehind.Summary waited, FlaggedShare.Summary flagged, WindowAccount.Summary account,
                       RigDrift drift) {}

    /**
     * Notes each variant whose results ran with threads placed otherwise than the spec now says
     * (its pin or vmm_pin changed between runs): they are reported with the rest, and the reader
     * should know. Results that record no placement (older logs) are passed over.
     */
    private static void placementNotes(ExperimentSpec spec, Map<String, Map<String, List<RunResult>>> byCell, List<String> notes) {
        for (Variant v : spec.variants()) {
            Map<String, String> now = spec.placement(v);
            Map<Map<String, String>, Integer> other = new LinkedHashMap<>();
            for (Map<String, List<RunResult>> cells : byCell.values()) {
                for (RunResult r : cells.getOrDefault(v.name(), List.of())) {
                    if (!r.placement().isEmpty() && !r.placement().equals(now)) other.merge(r.placement(), 1, Integer::sum);
                }
            }
            other.forEach((placed, n) -> notes.add(v.name() + ": " + n + " result(s) ran with " + placementText(placed)
                    + ", the spec now says " + placementText(now)));
        }
    }

    private static String placementText(Map<String, String> placement) {
        String vmm = placement.get(RunResult.PLACEMENT_VMM_PIN);
        return "vCPUs on host CPUs " + placement.get(RunResult.PLACEMENT_PIN) + " and the rest of jkvm "
                + (vmm == null ? "unpinned" : "on " + vmm);
    }

    /** Computes the report from results (any order; warm-ups, failures and repeats handled). */
    public static Report of(ExperimentSpec spec, List<RunResult> results) {
        List<String> notes = new ArrayList<>();
        Map<String, RunResult> latest = ResultsLog.latest(results);
        int measured = 0;
        int failedTotal = 0;
        int unknown = 0;
        Map<String, Map<String, List<RunResult>>> byCell = new LinkedHashMap<>();
        for (RunResult r : latest.values()) {
            if (r.warmup()) continue;
            if (!hasVariant(spec, r.variant()) || !hasWorkload(spec, r.workload())
                    || r.repetition() < 1 || r.repetition() > spec.repetitions()) {
                unknown++;
                continue;
            }
            byCell.computeIfAbsent(r.workload(), k -> new LinkedHashMap<>()).computeIfAbsent(r.variant(), k -> new ArrayList<>()).add(r);
            if (r.ok()) measured++;
            else failedTotal++;
        }
        if (unknown > 0) notes.add(unknown + " result(s) belong to no run of this spec (another variant, workload or repetition) and are left out");
        placementNotes(spec, byCell, notes);
        PvLockThreadPlace.notes(byCell, notes);

        String base = spec.base();
        String ref = spec.reference();
        List<WorkloadReport> rows = new ArrayList<>();
        Map<String, List<Double>> rels = new LinkedHashMap<>();
        for (Variant v : spec.variants()) rels.put(v.name(), new ArrayList<>());
        for (Workload w : spec.workloads()) {
            Map<String, List<RunResult>> cells = byCell.getOrDefault(w.label(), Map.of());
            String unit = null;
            Direction better = null;
            boolean mixed = false;
            for (List<RunResult> list : cells.values()) {
                for (RunResult r : list) {
                    if (!r.ok()) continue;
                    if (unit == null) {
                        unit = r.unit();
                        better = r.better();
                    } else if (!unit.equals(r.unit()) || better != r.better()) {
                        mixed = true;
                    }
                }
            }
            if (mixed) notes.add(w.label() + ": the guests reported different units or directions; using " + unit + ", " + better);
            boolean known = better != null;
            if (!known) better = Direction.HIGHER;
            Map<String, Stats> stats = new LinkedHashMap<>();
            Map<String, double[]> samples = new LinkedHashMap<>();
            Map<String, Integer> failed = new LinkedHashMap<>();
            Map<String, GuestFigures> guest = new LinkedHashMap<>();
            Map<String, TrackerDelay.Summary> tracker = new LinkedHashMap<>();
            Map<String, WaitedBehind.Summary> waited = new LinkedHashMap<>();
            Map<String, FlaggedShare.Summary> flagged = new LinkedHashMap<>();
            Map<String, WindowAccount.Summary> account = new LinkedHashMap<>();
            Map<String, RigDrift> drift = new LinkedHashMap<>();
            for (Variant v : spec.variants()) {
                List<RunResult> list = cells.getOrDefault(v.name(), List.of());
                List<Double> values = new ArrayList<>();
                List<GuestFigures> figures = new ArrayList<>();
                List<TrackerDelay> delays = new ArrayList<>();
                List<WaitedBehind> behind = new ArrayList<>();
                List<FlaggedShare> shares = new ArrayList<>();
                List<WindowAccount> accounts = new ArrayList<>();
                int f = 0;
                for (RunResult r : list) {
                    if (r.ok()) values.add(r.value());
                    else f++;
                    GuestFigures.of(r, w.seconds()).ifPresent(figures::add);
                    TrackerDelay.of(r).ifPresent(delays::add);
                    WaitedBehind.of(r).ifPresent(behind::add);
                    FlaggedShare.of(r).ifPresent(shares::add);
                    WindowAccount.of(r, spec.vcpus(v) * spec.vms(), w.seconds()).ifPresent(accounts::add);
                }
                guest.put(v.name(), GuestFigures.mean(figures));
                tracker.put(v.name(), TrackerDelay.Summary.of(delays));
                waited.put(v.name(), WaitedBehind.Summary.of(behind));
                flagged.put(v.name(), FlaggedShare.Summary.of(shares));
                account.put(v.name(), WindowAccount.Summary.of(accounts));
                drift.put(v.name(), RigDrift.of(list));
                stats.put(v.name(), Stats.of(values));
                samples.put(v.name(), values.stream().mapToDouble(Double::doubleValue).toArray());
                failed.put(v.name(), f);
            }
            Stats b = stats.get(base);
            Stats rf = ref == null ? null : stats.get(ref);
            List<Cell> out = new ArrayList<>();
            boolean collapse = rf != null && Compare.measurableCollapse(b, rf, better);
            for (Variant v : spec.variants()) {
                Stats s = stats.get(v.name());
                double wbMean = collapse ? Compare.wonBack(b.mean(), s.mean(), rf.mean()) : Double.NaN;
                double wbMedian = collapse ? Compare.wonBack(b.median(), s.median(), rf.median()) : Double.NaN;
                double relMean = Compare.relative(b.mean(), s.mean(), better);
                double relA = Compare.relative(b.mean(), s.min(), better);
                double relB = Compare.relative(b.mean(), s.max(), better);
                out.add(new Cell(v.name(), s, failed.get(v.name()),
                        Compare.percentChange(b.mean(), s.mean(), better),
                        Compare.percentChange(b.median(), s.median(), better),
                        wbMean, wbMedian, relMean, Math.min(relA, relB), Math.max(relA, relB),
                        v.name().equals(base) ? MedianInterval.NONE : MedianInterval.of(samples.get(base), samples.get(v.name()), better),
                        v.name().equals(base) ? Double.NaN : LogWelch.p(samples.get(base), samples.get(v.name())),
                        guest.get(v.name()), tracker.get(v.name()), waited.get(v.name()), flagged.get(v.name()),
                        account.get(v.name()), drift.get(v.name())));
                rels.get(v.name()).add(relMean);
            }
            rows.add(new WorkloadReport(w, unit == null ? "" : unit, better, known, out));
        }
        Map<String, Double> geo = new LinkedHashMap<>();
        rels.forEach((k, v) -> geo.put(k, Compare.geomeanChange(v)));
        int expected = spec.variants().size() * spec.workloads().size() * spec.repetitions();
        return new Report(spec, rows, geo, measured, failedTotal, expected, notes);
    }

    private static boolean hasVariant(ExperimentSpec spec, String name) {
        return spec.variants().stream().anyMatch(v -> v.name().equals(name));
    }

    private static boolean hasWorkload(ExperimentSpec spec, String label) {
        return spec.workloads().stream().anyMatch(w -> w.label().equals(label));
    }

    /** The text tables ({@link ReportText}). */
    public String text() {
        return ReportText.render(this);
    }

    /** The chart as an SVG document ({@link SvgChart}). */
    public String svg() {
        return SvgChart.render(this);
    }

    /** Writes the chart to a file, whole or not at all. */
    public void writeSvg(Path file) throws IOException {
        OutputFile.write(file, svg());
    }
}
