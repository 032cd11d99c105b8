package org.jkvm.cli.experiment;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.Json;
import org.jkvm.experiment.Plan;
import org.jkvm.experiment.Run;

import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code jkvm experiment plan}: the runs in order, or one of the forms a driver reads. */
final class PlanCommand implements Callable<Integer> {
    private CommandSpec cs;
    private SpecFile spec;
    private ResultsReading reading;
    private boolean hostKernelArgs;
    private boolean json;
    private boolean shell;

    private PlanCommand() {}

    /** The model of {@code plan}, its options bound to a new PlanCommand. */
    static CommandSpec spec() {
        PlanCommand c = new PlanCommand();
        c.cs = HelpOptions.command(c, "List the runs in order, marking those the results file has done and those whose"
                + " last result failed (with why).");
        c.spec = SpecFile.addTo(c.cs);
        c.reading = ResultsReading.addTo(c.cs);
        // other forms than the list, one at a time
        c.cs.addArgGroup(ArgGroupSpec.builder().exclusive(true).multiplicity("0..1")
                .addArg(OptionBinding.flag("--host-kernel-args", () -> c.hostKernelArgs, v -> c.hostKernelArgs = v)
                        .description("Only print each set of host kernel arguments that pending runs need, one line per"
                                + " host boot (an empty line: none; nothing when all runs are done).").build())
                .addArg(OptionBinding.flag("--json", () -> c.json, v -> c.json = v)
                        .description("Print one JSON object for a driver: the results file, the default report folder,"
                                + " the $${NAME}s the spec's paths use (set here or not), the run counts (the pending,"
                                + " and of them the failed) and the host kernel argument sets pending runs need.").build())
                .addArg(OptionBinding.flag("--shell", () -> c.shell, v -> c.shell = v)
                        .description("The same as --json, as bash assignments to eval (plan_results=...; lists are"
                                + " arrays, variables an associative array).").build())
                .build());
        return c.cs;
    }

    @Override
    public Integer call() throws Exception {
        Plan plan = Plan.of(spec.file, spec.results, reading.read(spec, cs.commandLine().getErr()), System.getenv());
        PrintWriter out = cs.commandLine().getOut();
        if (hostKernelArgs) {
            plan.hostKernelArgs().forEach(out::println);
        } else if (json) {
            out.println(Json.pretty(plan.toMap()));
        } else if (shell) {
            out.print(ShellForm.of("plan_", plan.toMap()));
        } else {
            for (Run r : plan.matrix().runs()) {
                String error = plan.failed().get(r.id());
                String mark = plan.done().contains(r.id()) ? "done" : error != null ? "failed" : "";
                out.printf("%4d  %-6s %s%s%n", r.order(), mark, r.id(), error != null ? "  (" + error + ")" : "");
            }
            out.printf("%d of %d runs pending (%d failed, %d not run yet)%n", plan.pending().size(), plan.matrix().size(),
                    plan.failed().size(), plan.pending().size() - plan.failed().size());
        }
        return 0;
    }
}
