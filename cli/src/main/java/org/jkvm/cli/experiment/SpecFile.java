package org.jkvm.cli.experiment;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jkvm.experiment.Experiment;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The spec argument and {@code --results} option that plan, run and report share. */
final class SpecFile {
    @Parameters(index = "0", paramLabel = "SPEC")
    Path file;

    @Option(names = "--results", paramLabel = "FILE", description = "Results (JSON lines); default: SPEC's name + .results.jsonl.")
    Path results;

    /** The results file in use. */
    Path resultsFile() {
        return Experiment.resultsFile(file, results);
    }

    /** The spec and the results file, each with its role, for {@link org.jkvm.vmm.io.OutputFile#refuseOverInputs}. */
    Map<Path, String> inputs() {
        Map<Path, String> m = new LinkedHashMap<>();
        m.put(file, "the spec");
        m.put(resultsFile(), "the results log");
        return m;
    }
}
