package org.jkvm.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where an experiment stands, in the form a driver reads ({@code jkvm experiment plan --json}):
 * its files, the environment its paths need, and what is left to run.
 *
 * @param spec           the spec file, absolute
 * @param results        the results log in use, absolute
 * @param reportDir      the default folder for the report, chart and CSV, absolute
 * @param variables      each {@code ${NAME}} the spec's paths use, and whether the environment sets it (non-empty)
 * @param matrix         every run, in order
 * @param done           ids of the runs with a successful result
 * @param failed         the pending runs whose last result failed, by id in run order, each with
 *                       why it failed (a resume runs them again)
 * @param pending        the runs still to do, in order: the failed ones and those never run
 * @param hostKernelArgs the distinct host kernel argument sets the pending runs need, in variant
 *                       order; "" for a host booted with none of them
 */
public record Plan(Path spec, Path results, Path reportDir, Map<String, Boolean> variables, RunMatrix matrix,
                   Set<String> done, Map<String, String> failed, List<Run> pending, List<String> hostKernelArgs) {

    public Plan {
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        done = Set.copyOf(done);
        failed = Collections.unmodifiableMap(new LinkedHashMap<>(failed));
        pending = List.copyOf(pending);
        hostKernelArgs = List.copyOf(hostKernelArgs);
    }

    /**
     * Reads the spec (its files need not exist yet) and takes the results so far.
     *
     * @param results the results log, or null for {@link Experiment#defaultResults}
     * @param logged  what the results log holds ({@link ResultsLog#read})
     * @param env     the environment the spec's {@code ${NAME}}s come from
     */
    public static Plan of(Path specFile, Path results, List<RunResult> logged, Map<String, String> env) throws IOException {
        ExperimentSpec s = ExperimentSpec.load(specFile, false, env);
        Path log = Experiment.resultsFile(specFile, results).toAbsolutePath().normalize();
        RunMatrix matrix = RunMatrix.of(s);
        Set<String> done = ResultsLog.doneIds(logged);
        List<Run> pending = matrix.pending(done);
        Map<String, RunResult> latest = ResultsLog.latest(logged);
        Map<String, String> failed = new LinkedHashMap<>();
        for (Run r : pending) {
            RunResult last = latest.get(r.id());
            if (last != null) failed.put(r.id(), last.error() != null ? last.error() : "its value is not a finite number");
        }
        Map<String, Boolean> variables = new LinkedHashMap<>();
        for (String name : s.variables()) variables.put(name, !env.getOrDefault(name, "").isEmpty());
        List<String> groups = new ArrayList<>();
        for (Set<String> g : HostKernelArgs.groups(s)) {
            if (pending.stream().anyMatch(r -> HostKernelArgs.of(r.variant()).equals(g))) groups.add(HostKernelArgs.text(g));
        }
        Path abs = specFile.toAbsolutePath().normalize();
        return new Plan(abs, log, Experiment.defaultReportDir(abs), variables, matrix, done, failed, pending, groups);
    }

    /** The plan as {@code plan --json} prints it. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("spec", spec.toString());
        m.put("results", results.toString());
        m.put("report_dir", reportDir.toString());
        m.put("variables", variables);
        m.put("total_runs", matrix.size());
        m.put("pending_runs", pending.size());
        m.put("failed_runs", failed.size());
        m.put("host_kernel_args", hostKernelArgs);
        return m;
    }
}
