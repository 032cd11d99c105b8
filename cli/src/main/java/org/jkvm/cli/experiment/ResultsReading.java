package org.jkvm.cli.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.ResultsLog;
import org.jkvm.experiment.RunResult;
import org.jkvm.vmm.io.FileProblem;

import picocli.CommandLine.Model.CommandSpec;

/** How plan and report read the results: a --results file named must exist, and --skip-bad-lines reads past damage. */
final class ResultsReading {
    /** Skipped lines named in the message, at most. */
    private static final int NAMED = 10;

    private boolean skipBadLines;

    private ResultsReading() {}

    /** Adds {@code --skip-bad-lines} to {@code spec}, bound to the ResultsReading returned. */
    static ResultsReading addTo(CommandSpec spec) {
        ResultsReading r = new ResultsReading();
        spec.addOption(OptionBinding.flag("--skip-bad-lines", () -> r.skipBadLines, v -> r.skipBadLines = v)
                .description("Skip the lines of the results file that are no result (a damaged file) rather than stop"
                        + " at the first; says on stderr how many, and which.").build());
        return r;
    }

    /** The results of {@code spec}'s log; the skipped lines, if any, are named on {@code err}. */
    List<RunResult> read(SpecFile spec, PrintWriter err) throws IOException {
        Path file = spec.resultsFile();
        // only the default may be missing (no run yet): a --results that names no file is a typo
        if (spec.results != null && !Files.exists(file)) throw new FileProblem(file.toString(), "no such file");
        ResultsLog.Contents c = ResultsLog.read(file, skipBadLines);
        List<Long> skipped = c.skippedLines();
        if (!skipped.isEmpty()) {
            err.printf("jkvm: %s: skipped %d bad line%s (%s%s)%n", file, skipped.size(), skipped.size() == 1 ? "" : "s",
                    skipped.stream().limit(NAMED).map(String::valueOf).collect(Collectors.joining(", ")),
                    skipped.size() > NAMED ? ", ..." : "");
            err.flush();
        }
        return c.results();
    }
}
