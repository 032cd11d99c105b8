package org.jkvm.cli;

import org.jkvm.cli.experiment.ExperimentCommand;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExecutionException;
import picocli.CommandLine.IExecutionStrategy;

/** The {@code jkvm} command. */
@Command(name = "jkvm",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "A KVM virtual machine monitor for arm64 PV-lock and vCPU-overcommit research.",
        subcommands = {RunCommand.class, CapsCommand.class, ExperimentCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:success",
            "1:failure while running",
            "2:bad usage, or the host cannot do it (no /dev/kvm, no permission, wrong architecture)"})
public final class Main {
    private Main() {}

    /** Builds the command line with jkvm's error handling. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler(new ErrorHandler());
        cl.setParameterExceptionHandler(new BadValueHandler(cl.getParameterExceptionHandler()));
        return cl;
    }

    /** Entry point: runs the command and exits with its code; a failed write to stdout is a failure. */
    public static void main(String[] args) {
        CommandLine cl = commandLine();
        cl.setOut(StdoutWriter.create());
        IExecutionStrategy strategy = cl.getExecutionStrategy();
        // help and version are printed outside any command, where picocli prints a stack trace for a failed write
        cl.setExecutionStrategy(parsed -> {
            try {
                return strategy.execute(parsed);
            } catch (StdoutWriter.Failed e) {
                throw new ExecutionException(cl, e.getMessage(), e);
            }
        });
        int code;
        try {
            code = cl.execute(args);
            // the writer flushes on println only: a command that ends with print() would lose its output
            cl.getOut().flush();
        } catch (StdoutWriter.Failed e) {
            code = new ErrorHandler().handleExecutionException(e, cl, null);
        }
        cl.getErr().flush();
        System.exit(code);
    }
}
