package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.jkvm.vmm.io.OutputFile;

/**
 * What a runner holds: the spec, its matrix and the open results log. Typical use:
 *
 * <pre>{@code
 * try (Experiment ex = Experiment.open(specFile, null, true)) {
 *     for (Run run : ex.pending()) {
 *         RunResult r = ...boot spec.vms() VMs per run: kernel ex.spec().kernel(run.variant()),
 *                          cmdline ex.spec().cmdline(run.variant(), run.workload()), --pin ex.spec().pin(run.variant()), ...;
 *                          GuestResult.parse(each console line); RunResult.of(run, perVm, wall, started, hostStats)
 *                          or RunResult.failed(run, why, ...)
 *         ex.log().append(r);
 *     }
 *     ex.writeOutputs(outDir); // report.txt, chart.svg, results.csv, cells.csv
 * }
 * }</pre>
 */
public final class Experiment implements AutoCloseable {
    private static final String REPORT = "report.txt";
    private static final String CHART = "chart.svg";
    private static final String CSV = "results.csv";
    private static final String CELLS = "cells.csv";
    /** The folder under the report's where profiled runs leave their files ({@link ExperimentRunner}). */
    public static final String PROFILES = "profiles";

    private final ExperimentSpec spec;
    private final RunMatrix matrix;
    private final ResultsLog log;

    private Experiment(ExperimentSpec spec, RunMatrix matrix, ResultsLog log) {
        this.spec = spec;
        this.matrix = matrix;
        this.log = log;
    }

    /**
     * Loads the spec and opens (or resumes) its results log.
     *
     * @param results      the JSON-lines file, or null for {@link #defaultResults}
     * @param requireFiles check the kernels and initrd exist (a runner wants this)
     */
    public static Experiment open(Path specFile, Path results, boolean requireFiles) throws IOException {
        return open(ExperimentSpec.load(specFile, requireFiles), specFile, results);
    }

    /** The same for a spec already read from {@code specFile}. */
    public static Experiment open(ExperimentSpec spec, Path specFile, Path results) throws IOException {
        return new Experiment(spec, RunMatrix.of(spec), ResultsLog.open(resultsFile(specFile, results)));
    }

    /** {@code results}, or the default next to the spec when it is null. */
    public static Path resultsFile(Path specFile, Path results) {
        return results != null ? results : defaultResults(specFile);
    }

    /** {@code overcommit.json} -> {@code overcommit.results.jsonl} next to it. */
    public static Path defaultResults(Path specFile) {
        return specFile.resolveSibling(stem(specFile) + ".results.jsonl");
    }

    /** {@code overcommit.json} -> the folder {@code overcommit-report} next to it, for the report, chart and CSV. */
    public static Path defaultReportDir(Path specFile) {
        return specFile.resolveSibling(stem(specFile) + "-report");
    }

    /** The spec's file name without its extension. */
    private static String stem(Path specFile) {
        String n = specFile.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }

    public ExperimentSpec spec() {
        return spec;
    }

    public RunMatrix matrix() {
        return matrix;
    }

    public ResultsLog log() {
        return log;
    }

    /** Runs without a successful result yet, in matrix order (failed ones are retried). */
    public List<Run> pending() {
        return matrix.pending(log.doneIds());
    }

    /** The report of the results so far. */
    public Report report() {
        return Report.of(spec, log.results());
    }

    /**
     * Writes {@code report.txt}, {@code chart.svg}, {@code results.csv} and {@code cells.csv} ({@link CellsCsv})
     * into a folder (made if missing), each whole or not at all.
     */
    public void writeOutputs(Path dir) throws IOException {
        Files.createDirectories(dir);
        Report r = report();
        OutputFile.write(dir.resolve(REPORT), r.text());
        r.writeSvg(dir.resolve(CHART));
        CsvExport.write(log.results(), dir.resolve(CSV));
        CellsCsv.write(r, dir.resolve(CELLS));
    }

    /** The files {@link #writeOutputs} writes into {@code dir}. */
    public static List<Path> outputFiles(Path dir) {
        return List.of(dir.resolve(REPORT), dir.resolve(CHART), dir.resolve(CSV), dir.resolve(CELLS));
    }

    @Override
    public void close() throws IOException {
        log.close();
    }
}
