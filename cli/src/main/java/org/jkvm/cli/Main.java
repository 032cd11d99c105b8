package org.jkvm.cli;

import java.util.List;
import java.util.function.Supplier;

import org.jkvm.cli.experiment.ExperimentCommand;
import org.jkvm.kvm.WarmUp;
import org.jkvm.vmm.StartupMarks;

import picocli.CommandLine;
import picocli.CommandLine.ExecutionException;
import picocli.CommandLine.IExecutionStrategy;
import picocli.CommandLine.Model.CommandSpec;

/** The {@code jkvm} command; its picocli model is built in {@link #spec} ({@link OptionBinding} says why). */
public final class Main {
    /** A subcommand and what builds its model: a CommandSpec, or picocli's annotated help command. */
    private record Subcommand(String name, Supplier<Object> model) {}

    /** The subcommand that boots a guest: its command lines warm the KVM side up at once ({@link WarmUp}). */
    private static final Subcommand RUN = new Subcommand("run", RunCommand::spec);

    /**
     * The subcommands in the order help lists them. Each model costs only when built: a command line
     * that names one builds that one only, and picocli's help command, the one model read from
     * annotations (seconds in the emulated arm64 host), is built only for help or no subcommand.
     */
    private static final List<Subcommand> SUBCOMMANDS = List.of(
            RUN,
            new Subcommand("caps", CapsCommand::spec),
            new Subcommand("experiment", ExperimentCommand::spec),
            new Subcommand("help", () -> CommandLine.HelpCommand.class));

    /** When main began: logged once --log-level has said whether start-up marks are wanted. */
    private static final long MAIN_ENTERED = System.currentTimeMillis();

    private Main() {}

    /** The model of {@code jkvm} itself, without subcommands. */
    private static CommandSpec spec() {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(new Main()).name("jkvm").versionProvider(new Version());
        spec.usageMessage()
                .description("A KVM virtual machine monitor for arm64 PV-lock and vCPU-overcommit research.")
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(HelpOptions.exitCodes(
                        "0:success",
                        "1:failure while running",
                        "2:bad usage, or the host cannot do it (no /dev/kvm, no permission, wrong architecture)"));
        spec.addOption(OptionBinding.action("--log-level", "LEVEL", System.Logger.Level.class, Main::logLevel)
                .converters(new LogLevel.Name())
                .description("What jkvm logs on stderr: OFF, ERROR, WARNING, INFO (default), DEBUG (start-up"
                        + " timing, stack traces), TRACE.").build());
        HelpOptions.addTo(spec);
        return spec;
    }

    private static void logLevel(System.Logger.Level level) {
        LogLevel.apply(level);
        StartupMarks.mark("JVM started, main entered", MAIN_ENTERED);
    }

    /** Builds the command line with jkvm's error handling and every subcommand. */
    public static CommandLine commandLine() {
        return commandLine(List.of());
    }

    /**
     * Builds the command line for {@code args}: with only the subcommand they name (the first
     * argument that is a subcommand's name), or with all of them when they name none or ask for
     * {@code help}.
     */
    static CommandLine commandLine(List<String> args) {
        CommandLine cl = new CommandLine(spec());
        Subcommand named = named(args);
        for (Subcommand s : SUBCOMMANDS) {
            if (named == null || named.name().equals("help") || named == s) cl.addSubcommand(s.name(), s.model().get());
        }
        cl.setExecutionExceptionHandler(new ErrorHandler());
        cl.setParameterExceptionHandler(new BadValueHandler(cl.getParameterExceptionHandler()));
        return cl;
    }

    private static Subcommand named(List<String> args) {
        for (String a : args) {
            for (Subcommand s : SUBCOMMANDS) {
                if (s.name().equals(a)) return s;
            }
        }
        return null;
    }

    /** Entry point: runs the command and exits with its code. */
    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs one jkvm command line and answers its exit code; a failed write to stdout is a failure. */
    static int execute(String[] args) {
        LogLevel.oneLineByDefault();
        // run's KVM-side start-up work, overlapped with building the command line and parsing it
        if (named(List.of(args)) == RUN) WarmUp.start();
        CommandLine cl = commandLine(List.of(args));
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
        return code;
    }
}
