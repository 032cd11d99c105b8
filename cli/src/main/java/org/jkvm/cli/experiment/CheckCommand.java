package org.jkvm.cli.experiment;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.ExperimentSpec;
import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ReportText;

import picocli.CommandLine.Model.CommandSpec;

/** {@code jkvm experiment check}: validates a spec and summarises it. */
final class CheckCommand implements Callable<Integer> {
    private CommandSpec cs;
    private Path file;
    private boolean files;
    private boolean listFiles;

    private CheckCommand() {}

    /** The model of {@code check}, its options bound to a new CheckCommand. */
    static CommandSpec spec() {
        CheckCommand c = new CheckCommand();
        c.cs = HelpOptions.command(c, "Validate a spec (every problem with its line and column) and summarise it.");
        c.cs.addPositional(OptionBinding.parameter(0, "SPEC", Path.class, () -> c.file, v -> c.file = v).build());
        c.cs.addOption(OptionBinding.flag("--files", () -> c.files, v -> c.files = v)
                .description("Also require the kernels and initrd named to exist.").build());
        c.cs.addOption(OptionBinding.flag("--list-files", () -> c.listFiles, v -> c.listFiles = v)
                .description("Only print the kernels and initrd the runs read, one absolute path per line (implies"
                        + " --files; arm64-host/experiment copies them into the emulated host).").build());
        return c.cs;
    }

    @Override
    public Integer call() throws Exception {
        ExperimentSpec s = ExperimentSpec.load(file, files || listFiles);
        PrintWriter out = cs.commandLine().getOut();
        if (listFiles) {
            for (Path f : s.inputFiles()) out.println(f.toAbsolutePath().normalize());
            return 0;
        }
        out.printf("%s: %d workloads x %d variants x (%d + %d warm-up) = %d runs%n", s.name(), s.workloads().size(),
                s.variants().size(), s.repetitions(), s.warmup(), s.runCount());
        for (Variant v : s.variants()) {
            out.printf(Locale.ROOT, "  %s%s%s: pvlock %s%s, steal time %s, %d vCPUs x %d VM(s) on %s (overcommit %.2fx)%s%s%s%s%s%s%n",
                    v.name(), v.name().equals(s.base()) ? " [base]" : "", v.name().equals(s.reference()) ? " [reference]" : "",
                    v.pvlock().cliName(), v.pvlockBatch() > 0 ? " (tracker reading every " + v.pvlockBatch() + " ms)" : "",
                    v.stealTime() ? "on" : "off", s.vcpus(v), s.vms(), s.pin(v), s.overcommit(v),
                    ReportText.variantVmmPin(s, v), v.pmu() ? ", guest PMU" : "", v.cpuText(), v.hostKernelArgs() == null ? "" : ", host " + v.hostKernelArgs(),
                    v.cmdline() == null ? "" : ", guest " + v.cmdline(), v.profile() ? ", profiled" : "");
        }
        if (s.vmmPinInherited()) out.println("  " + ReportText.VMM_PIN_LINE + s.vmmPin());
        return 0;
    }
}
