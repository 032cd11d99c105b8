package org.jkvm.cli;

import org.jkvm.cli.experiment.ExperimentCommand;

import picocli.CommandLine;
import picocli.CommandLine.Command;

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

    /** Entry point: runs the command and exits with its code. */
    public static void main(String[] args) {
        CommandLine cl = commandLine();
        int code = cl.execute(args);
        // picocli's writers flush on println only: a command that ends with print() would lose its output
        cl.getOut().flush();
        cl.getErr().flush();
        System.exit(code);
    }
}
