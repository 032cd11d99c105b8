package org.jkvm.cli.experiment;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.LogTail;
import org.jkvm.experiment.ResultsLog;

import picocli.CommandLine.Model.CommandSpec;

/** {@code jkvm experiment repair}: mends a results file's last line that a crash left without its newline. */
final class RepairCommand implements Callable<Integer> {
    private CommandSpec cs;
    private Path results;

    private RepairCommand() {}

    /** The model of {@code repair}, its option bound to a new RepairCommand. */
    static CommandSpec spec() {
        RepairCommand c = new RepairCommand();
        c.cs = HelpOptions.command(c, "Mend the last line of a results file that a crash or a killed driver left"
                + " without its newline: a complete result is kept (its newline added), a line cut off mid-write is"
                + " dropped. Says which.");
        c.cs.addOption(OptionBinding.option("--results", "FILE", Path.class, () -> c.results, v -> c.results = v)
                .required(true).description("The results file (JSON lines).").build());
        return c.cs;
    }

    @Override
    public Integer call() throws Exception {
        LogTail tail = ResultsLog.repair(results);
        PrintWriter out = cs.commandLine().getOut();
        switch (tail.kind()) {
            case COMPLETE -> { }
            case UNTERMINATED -> out.println(results + ": kept the last result, which lacked its newline");
            case TORN -> out.printf("%s: dropped a torn last line (%d characters): %s%n", results, tail.text().length(),
                    tail.text().strip());
        }
        return 0;
    }
}
