package org.jkvm.cli.experiment;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.Experiment;

import picocli.CommandLine.Model.CommandSpec;

/** The spec argument and {@code --results} option that plan, run and report share. */
final class SpecFile {
    Path file;
    Path results;

    private SpecFile() {}

    /** Adds SPEC and {@code --results} to {@code spec}, bound to the SpecFile returned. */
    static SpecFile addTo(CommandSpec spec) {
        SpecFile f = new SpecFile();
        spec.addPositional(OptionBinding.parameter(0, "SPEC", Path.class, () -> f.file, v -> f.file = v).build());
        spec.addOption(OptionBinding.option("--results", "FILE", Path.class, () -> f.results, v -> f.results = v)
                .description("Results (JSON lines); default: SPEC's name + .results.jsonl.").build());
        return f;
    }

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
