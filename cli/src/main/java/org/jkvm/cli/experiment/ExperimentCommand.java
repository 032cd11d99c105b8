package org.jkvm.cli.experiment;

import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.experiment.Experiment;

import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm experiment}: scripted vCPU-overcommit experiments (check, plan, run, report,
 * repair); the engine is the experiment module ({@link Experiment}). Its model and its
 * subcommands' are built in {@link #spec} rather than from annotations
 * ({@link org.jkvm.cli.OptionBinding} says why).
 */
public final class ExperimentCommand implements Callable<Integer> {
    /** What starts a result line that {@code run --emit-results} prints. */
    public static final String EMITTED = "JKVM-RESULT ";

    private CommandSpec spec;

    private ExperimentCommand() {}

    /** The model of {@code jkvm experiment} with its subcommands, in the order help lists them. */
    public static CommandSpec spec() {
        ExperimentCommand c = new ExperimentCommand();
        c.spec = HelpOptions.command(c, "Scripted vCPU-overcommit experiments from a JSON spec (see examples/overcommit.json).");
        c.spec.addSubcommand("check", CheckCommand.spec());
        c.spec.addSubcommand("plan", PlanCommand.spec());
        c.spec.addSubcommand("run", ExperimentRunCommand.spec());
        c.spec.addSubcommand("report", ReportCommand.spec());
        c.spec.addSubcommand("repair", RepairCommand.spec());
        return c.spec;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }
}
