package org.jkvm.experiment;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.jkvm.experiment.Report.Cell;
import org.jkvm.experiment.Report.WorkloadReport;
import org.jkvm.vmm.io.OutputFile;

/**
 * A report's cells as CSV (as {@link CsvExport} writes it), one row per workload and variant: its
 * runs' statistics and, against the base, the median ratio (base = 100, + is better) with its 95%
 * bootstrap interval, Welch's p-value and the verdict. Undefined numbers are empty cells.
 */
public final class CellsCsv {
    private CellsCsv() {}

    static final List<String> COLUMNS = List.of("workload", "variant", "unit", "better", "n", "failed", "mean", "stdev",
            "median", "min", "max", "median_vs_base", "ci95_low", "ci95_high", "p_welch_log", "verdict");

    /** Writes the CSV to a file, whole or not at all. */
    public static void write(Report report, Path file) throws IOException {
        OutputFile.write(file, w -> write(report, w));
    }

    public static void write(Report report, Writer out) throws IOException {
        CsvExport.line(out, COLUMNS);
        String base = report.spec().base();
        for (WorkloadReport w : report.workloads()) {
            for (Cell c : w.cells()) {
                Stats s = c.stats();
                boolean isBase = c.variant().equals(base);
                List<String> row = new ArrayList<>(List.of(w.workload().label(), c.variant(), w.unit(),
                        w.known() ? w.better().toString() : "", Integer.toString(s.n()), Integer.toString(c.failed())));
                for (double d : new double[] {s.mean(), s.stdev(), s.median(), s.min(), s.max(),
                        isBase ? Double.NaN : w.relMedian(c, base), c.medianInterval().low(), c.medianInterval().high(),
                        c.welchP()}) {
                    row.add(CsvExport.num(d));
                }
                row.add(isBase ? "base" : c.medianInterval().verdict());
                CsvExport.line(out, row);
            }
        }
    }
}
