package org.jkvm.cli.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.jkvm.experiment.CellsCsv;
import org.jkvm.experiment.CsvExport;
import org.jkvm.experiment.Experiment;
import org.jkvm.experiment.ExperimentRunner;
import org.jkvm.experiment.ExperimentSpec;
import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.HostKernelArgs;
import org.jkvm.experiment.Json;
import org.jkvm.experiment.LogTail;
import org.jkvm.experiment.Plan;
import org.jkvm.experiment.Report;
import org.jkvm.experiment.ResultsLog;
import org.jkvm.experiment.Run;
import org.jkvm.experiment.RunResult;
import org.jkvm.kvm.Arch;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.Kvm;
import org.jkvm.vmm.io.OutputFile;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm experiment}: scripted vCPU-overcommit experiments (check, plan, run, report,
 * repair); the engine is the experiment module ({@link Experiment}).
 */
@Command(name = "experiment",
        mixinStandardHelpOptions = true,
        description = "Scripted vCPU-overcommit experiments from a JSON spec (see examples/overcommit.json).",
        subcommands = {ExperimentCommand.Check.class, ExperimentCommand.PlanCmd.class, ExperimentCommand.RunCmd.class,
            ExperimentCommand.ReportCmd.class, ExperimentCommand.Repair.class})
public final class ExperimentCommand implements Callable<Integer> {
    /** What starts a result line that {@code run --emit-results} prints. */
    public static final String EMITTED = "JKVM-RESULT ";

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 0;
    }

    @Command(name = "check", mixinStandardHelpOptions = true,
            description = "Validate a spec (every problem with its line and column) and summarise it.")
    static final class Check implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Parameters(index = "0", paramLabel = "SPEC")
        Path file;
        @Option(names = "--files", description = "Also require the kernels and initrd named to exist.")
        boolean files;
        @Option(names = "--list-files", description = "Only print the kernels and initrd the runs read, one absolute path"
                + " per line (implies --files; arm64-host/experiment copies them into the emulated host).")
        boolean listFiles;

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
                out.printf(Locale.ROOT, "  %s%s%s: pvlock %s, steal time %s, %d vCPUs x %d VM(s) on %s (overcommit %.2fx)%s%s%s%s%s%n",
                        v.name(), v.name().equals(s.base()) ? " [base]" : "", v.name().equals(s.reference()) ? " [reference]" : "",
                        v.pvlock().cliName(), v.stealTime() ? "on" : "off", s.vcpus(v), s.vms(), s.pin(v), s.overcommit(v),
                        v.pmu() ? ", guest PMU" : "", v.cpuText(), v.hostKernelArgs() == null ? "" : ", host " + v.hostKernelArgs(),
                        v.cmdline() == null ? "" : ", guest " + v.cmdline(), v.profile() ? ", profiled" : "");
            }
            return 0;
        }
    }

    @Command(name = "plan", mixinStandardHelpOptions = true,
            description = "List the runs in order, marking those the results file already has.")
    static final class PlanCmd implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Mixin
        SpecFile spec;
        @Mixin
        ResultsReading reading;
        @ArgGroup
        Format format = new Format();

        /** Other forms than the list, one at a time. */
        static final class Format {
            @Option(names = "--host-kernel-args", description = "Only print each set of host kernel arguments that pending"
                    + " runs need, one line per host boot (an empty line: none; nothing when all runs are done).")
            boolean hostKernelArgs;
            @Option(names = "--json", description = "Print one JSON object for a driver: the results file, the default"
                    + " report folder, the $${NAME}s the spec's paths use (set here or not), the run counts and the"
                    + " host kernel argument sets pending runs need.")
            boolean json;
            @Option(names = "--shell", description = "The same as --json, as bash assignments to eval (plan_results=...;"
                    + " lists are arrays, variables an associative array).")
            boolean shell;
        }

        @Override
        public Integer call() throws Exception {
            Plan plan = Plan.of(spec.file, spec.results, reading.read(spec, cs.commandLine().getErr()), System.getenv());
            PrintWriter out = cs.commandLine().getOut();
            if (format.hostKernelArgs) {
                plan.hostKernelArgs().forEach(out::println);
            } else if (format.json) {
                out.println(Json.pretty(plan.toMap()));
            } else if (format.shell) {
                out.print(ShellForm.of("plan_", plan.toMap()));
            } else {
                for (Run r : plan.matrix().runs()) out.printf("%4d  %-5s %s%n", r.order(), plan.done().contains(r.id()) ? "done" : "", r.id());
                out.printf("%d of %d runs pending%n", plan.pending().size(), plan.matrix().size());
            }
            return 0;
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true,
            description = "Print the report of the results so far; optionally write the SVG chart and the CSVs.")
    static final class ReportCmd implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Mixin
        SpecFile spec;
        @Mixin
        ResultsReading reading;
        @Option(names = "--svg", paramLabel = "FILE", description = "Write the chart here.")
        Path svg;
        @Option(names = "--csv", paramLabel = "FILE", description = "Write every result as CSV here.")
        Path csv;
        @Option(names = "--cells-csv", paramLabel = "FILE", description = "Write the report's cells (statistics,"
                + " median against the base with its interval, p-value, verdict) as CSV here.")
        Path cellsCsv;

        @Override
        public Integer call() throws Exception {
            Map<Path, String> outputs = new LinkedHashMap<>();
            if (svg != null) outputs.put(svg, "--svg");
            if (csv != null) outputs.put(csv, "--csv");
            if (cellsCsv != null) outputs.put(cellsCsv, "--cells-csv");
            OutputFile.refuseOverInputs(outputs, spec.inputs(), "choose another file");
            ExperimentSpec s = ExperimentSpec.load(spec.file);
            List<RunResult> all = reading.read(spec, cs.commandLine().getErr());
            Report r = Report.of(s, all);
            cs.commandLine().getOut().print(r.text());
            if (svg != null) r.writeSvg(svg);
            if (csv != null) CsvExport.write(all, csv);
            if (cellsCsv != null) CellsCsv.write(r, cellsCsv);
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Run every pending run of the matrix on this arm64 host (boots the VMs in this process),"
                    + " appending each result as it finishes; interrupted, it resumes where it stopped. Then writes"
                    + " report.txt, chart.svg, results.csv and cells.csv to --out and prints the report. Runs whose variant or"
                    + " workload has \"profile\": \"on\" are profiled: their files go to --out's " + Experiment.PROFILES
                    + "/<workload>/<variant>/<run>/."})
    static final class RunCmd implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Mixin
        SpecFile spec;
        @Option(names = "--out", paramLabel = "DIR", description = "Where the report, chart and CSV go (default: SPEC's name + -report).")
        Path out;
        @Option(names = "--emit-results", description = "Also print each result as it is logged, on stdout as '"
                + EMITTED + "<JSON line>' (for a driver outside this host: arm64-host/experiment).")
        boolean emitResults;
        private ExperimentSpec loadedSpec;

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
            try (Experiment ex = Experiment.open(loaded(), spec.file, spec.results); Kvm kvm = openKvmFor(ex.spec())) {
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
                Progress progress = new Progress(err, total, total - notDone.size(), pending.size());
                ExperimentRunner runner = new ExperimentRunner(kvm, ex.spec(), dir.resolve(Experiment.PROFILES));
                for (Run r : pending) {
                    progress.starting(r);
                    RunResult result = runner.run(r);
                    ex.log().append(result);
                    if (emitResults) {
                        stdout.println(EMITTED + ResultsLog.toJson(result));
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

        /** Refuses pin sets this process may not use (only the host that runs the spec can tell), then opens KVM. */
        private static Kvm openKvmFor(ExperimentSpec s) {
            s.checkPins(HostCpus.currentAffinity());
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

    @Command(name = "repair", mixinStandardHelpOptions = true,
            description = "Mend the last line of a results file that a crash or a killed driver left without its newline:"
                    + " a complete result is kept (its newline added), a line cut off mid-write is dropped. Says which.")
    static final class Repair implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Option(names = "--results", paramLabel = "FILE", required = true, description = "The results file (JSON lines).")
        Path results;

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

    /** One status line per run: a bar, counts and an estimate of the time left. */
    static final class Progress {
        private static final int WIDTH = 30;
        private final PrintWriter err;
        private final int total;
        private final long startNanos = System.nanoTime();
        private final int doneAtStart;
        private final int toRunHere;
        private int done;
        private int failed;

        Progress(PrintWriter err, int total, int done, int toRunHere) {
            this.err = err;
            this.total = total;
            this.doneAtStart = done;
            this.done = done;
            this.toRunHere = toRunHere;
        }

        void starting(Run r) {
            err.printf("%s %d/%d %s %s%s%n", bar(), done, total, r.variant().name(), r.workload().label(),
                    r.warmup() ? " (warm-up)" : " #" + r.repetition());
            err.flush();
        }

        void finished(RunResult r) {
            done++;
            if (!r.ok()) {
                failed++;
                err.println("  failed: " + r.error());
            }
            long ranHere = done - doneAtStart;
            long perRun = (System.nanoTime() - startNanos) / Math.max(1, ranHere);
            long etaSeconds = perRun * (toRunHere - ranHere) / 1_000_000_000L;
            Number ready = r.host().get(ExperimentRunner.READY_MS);
            err.printf("  %s %.1f s%s%s; %d failed; about %d min %d s left%n", r.ok() ? "done in" : "after", r.wallSeconds(),
                    ready == null ? "" : String.format(" (ready after %.1f s)", ready.longValue() / 1000.0),
                    r.ok() ? ", " + r.value() + " " + r.unit() : "", failed, etaSeconds / 60, etaSeconds % 60);
            err.flush();
        }

        private String bar() {
            int filled = total == 0 ? WIDTH : done * WIDTH / total;
            return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
        }
    }
}
