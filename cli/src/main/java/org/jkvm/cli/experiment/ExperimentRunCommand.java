package org.jkvm.cli.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.Experiment;
import org.jkvm.experiment.ExperimentRunner;
import org.jkvm.experiment.ExperimentSpec;
import org.jkvm.experiment.HostKernelArgs;
import org.jkvm.experiment.ResultsLog;
import org.jkvm.experiment.Run;
import org.jkvm.experiment.RunResult;
import org.jkvm.experiment.VmmPlacement;
import org.jkvm.kvm.Arch;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.Kvm;
import org.jkvm.vmm.io.OutputFile;

import picocli.CommandLine.Model.CommandSpec;

/** {@code jkvm experiment run}: every pending run of the matrix, booted in this process, then the outputs. */
final class ExperimentRunCommand implements Callable<Integer> {
    private CommandSpec cs;
    private SpecFile spec;
    private Path out;
    private boolean emitResults;
    private ExperimentSpec loadedSpec;

    private ExperimentRunCommand() {}

    /** The model of {@code run}, its options bound to a new ExperimentRunCommand. */
    static CommandSpec spec() {
        ExperimentRunCommand c = new ExperimentRunCommand();
        c.cs = HelpOptions.command(c, "Run every pending run of the matrix on this arm64 host (boots the VMs in this"
                + " process), appending each result as it finishes; interrupted, it resumes where it stopped. Then writes"
                + " report.txt, chart.svg, results.csv and cells.csv to --out and prints the report. Runs whose variant or"
                + " workload has \"profile\": \"on\" are profiled: their files go to --out's " + Experiment.PROFILES
                + "/<workload>/<variant>/<run>/.");
        c.spec = SpecFile.addTo(c.cs);
        c.cs.addOption(OptionBinding.option("--out", "DIR", Path.class, () -> c.out, v -> c.out = v)
                .description("Where the report, chart and CSV go (default: SPEC's name + -report).").build());
        c.cs.addOption(OptionBinding.flag("--emit-results", () -> c.emitResults, v -> c.emitResults = v)
                .description("Also print each result as it is logged, on stdout as '" + ExperimentCommand.EMITTED
                        + "<JSON line>' (for a driver outside this host: arm64-host/experiment).").build());
        return c.cs;
    }

    @Override
    public Integer call() throws Exception {
        if (Arch.host() != Arch.AARCH64) {
            throw new IllegalArgumentException("jkvm experiment run boots arm64 guests on an arm64 host with KVM; this host is "
                    + System.getProperty("os.arch") + ": run it inside the emulated arm64 host (arm64-host/run)");
        }
        checkOutputs();
        PrintWriter err = cs.commandLine().getErr();
        Path dir = reportDir();
        PrintWriter stdout = cs.commandLine().getOut();
        // read once: the CPUs the pins are checked against are those an unpinned variant's runs go back to
        BitSet start = HostCpus.currentAffinity();
        try (Experiment ex = Experiment.open(loaded(), spec.file, spec.results); Kvm kvm = openKvmFor(ex.spec(), start)) {
            String cmdline = hostCmdline();
            Set<String> booted = HostKernelArgs.booted(ex.spec(), cmdline);
            List<Run> notDone = ex.pending();
            List<Run> pending = new ArrayList<>();
            Map<String, Set<String>> elsewhere = new TreeMap<>();
            for (Run r : notDone) {
                if (HostKernelArgs.runsOn(ex.spec(), r.variant(), cmdline)) pending.add(r);
                else elsewhere.put(r.variant().name(), HostKernelArgs.of(r.variant()));
            }
            elsewhere.forEach((variant, args) -> err.printf("jkvm: skipping variant %s here: it needs a host booted with"
                    + " %s, and this one has %s (arm64-host/experiment boots one host per set)%n", variant,
                    args.isEmpty() ? "none of the spec's host kernel arguments" : "'" + HostKernelArgs.text(args) + "'",
                    booted.isEmpty() ? "none of them" : "'" + HostKernelArgs.text(booted) + "'"));
            int total = ex.matrix().size();
            RunProgress progress = new RunProgress(err, total, total - notDone.size(), pending.size());
            ExperimentRunner runner = new ExperimentRunner(kvm, ex.spec(), dir.resolve(Experiment.PROFILES),
                    new VmmPlacement(ex.spec(), start));
            for (Run r : pending) {
                progress.starting(r);
                RunResult result = runner.run(r);
                ex.log().append(result);
                if (emitResults) {
                    stdout.println(ExperimentCommand.EMITTED + ResultsLog.toJson(result));
                    stdout.flush();
                }
                progress.finished(result);
            }
            ex.writeOutputs(dir);
            stdout.print(ex.report().text());
            stdout.flush();
            err.println("jkvm: report, chart and CSV in " + dir);
            err.flush();
        }
        return 0;
    }

    /**
     * Refuses pin sets outside {@code allowed}, the CPUs this process may use (only the host that runs the spec can tell), then
     * opens KVM. Each run places the process for its variant ({@link VmmPlacement}).
     */
    private static Kvm openKvmFor(ExperimentSpec s, BitSet allowed) {
        s.checkPins(allowed);
        return Kvm.open();
    }

    /** The spec with its files checked, read once: the check reads every kernel Image, which takes seconds under emulation. */
    private ExperimentSpec loaded() throws IOException {
        if (loadedSpec == null) loadedSpec = ExperimentSpec.load(spec.file, true);
        return loadedSpec;
    }

    private Path reportDir() {
        return out != null ? out : Experiment.defaultReportDir(spec.file);
    }

    /** Refuses an --out folder whose report, chart or CSV would replace the spec, the results or a file the runs read. */
    void checkOutputs() throws IOException {
        Map<Path, String> outputs = new LinkedHashMap<>();
        for (Path f : Experiment.outputFiles(reportDir())) outputs.put(f, "--out");
        Map<Path, String> inputs = spec.inputs();
        for (Path f : loaded().inputFiles()) inputs.putIfAbsent(f, "an input of the spec");
        OutputFile.refuseOverInputs(outputs, inputs, "choose another folder");
    }

    private static String hostCmdline() throws IOException {
        Path p = Path.of("/proc/cmdline");
        return Files.isReadable(p) ? Files.readString(p).strip() : "";
    }
}
