package org.jkvm.experiment;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.jkvm.vmm.io.OutputFile;

/**
 * Results as CSV (RFC 4180, header line, "\n" line ends), one row per result: fixed columns, then
 * one {@code host.<key>} column per host statistic any result has (sorted; empty where a row lacks
 * it). NaN and missing numbers are empty cells; vm_values is space-separated.
 */
public final class CsvExport {
    private CsvExport() {}

    static final List<String> COLUMNS = List.of("id", "variant", "workload", "repetition", "warmup", "value", "unit",
            "better", "wall_s", "started", "vm_values", "error");

    /** Writes the CSV to a file, whole or not at all. */
    public static void write(List<RunResult> results, Path file) throws IOException {
        OutputFile.write(file, w -> write(results, w));
    }

    public static void write(List<RunResult> results, Writer out) throws IOException {
        Set<String> keys = new TreeSet<>();
        for (RunResult r : results) keys.addAll(r.host().keySet());
        List<String> header = new ArrayList<>(COLUMNS);
        for (String k : keys) header.add("host." + k);
        line(out, header);
        for (RunResult r : results) {
            List<String> row = new ArrayList<>();
            row.add(r.id());
            row.add(r.variant());
            row.add(r.workload());
            row.add(Integer.toString(r.repetition()));
            row.add(Boolean.toString(r.warmup()));
            row.add(num(r.value()));
            row.add(r.unit());
            row.add(r.better() == null ? "" : r.better().toString());
            row.add(num(r.wallSeconds()));
            row.add(r.started() == null ? "" : r.started().toString());
            row.add(r.vmValues().stream().map(CsvExport::num).collect(Collectors.joining(" ")));
            row.add(r.error() == null ? "" : r.error());
            for (String k : keys) {
                Number n = r.host().get(k);
                row.add(n == null ? "" : n instanceof Double || n instanceof Float ? num(n.doubleValue()) : n.toString());
            }
            line(out, row);
        }
    }

    static String num(double d) {
        return Double.isFinite(d) ? Json.number(d) : "";
    }

    static void line(Writer out, List<String> cells) throws IOException {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) out.write(',');
            out.write(cell(cells.get(i)));
        }
        out.write('\n');
    }

    static String cell(String s) {
        if (s == null) return "";
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) return s;
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
