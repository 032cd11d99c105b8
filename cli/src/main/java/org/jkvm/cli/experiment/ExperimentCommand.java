package org.jkvm.cli.experiment;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Kvm;

import org.jkvm.cli.experiment.ExperimentSpec.Variant;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm experiment}: scripted vCPU-overcommit experiments. The pure parts live here
 * (check, plan, run, report).
 */
@Command(name = "experiment",
        mixinStandardHelpOptions = true,
        description = "Scripted vCPU-overcommit experiments from a JSON spec (see examples/overcommit.json).",
        subcommands = {ExperimentCommand.Check.class, ExperimentCommand.Plan.class, ExperimentCommand.RunCmd.class,
            ExperimentCommand.ReportCmd.class})
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
                out.printf(Locale.ROOT, "  %s%s%s: pvlock %s, steal time %s, %d vCPUs x %d VM(s) on %s (overcommit %.2fx)%s%n",
                        v.name(), v.name().equals(s.base()) ? " [base]" : "", v.name().equals(s.reference()) ? " [reference]" : "",
                        v.pvlock().cliName(), v.stealTime() ? "on" : "off", s.vcpus(v), s.vms(), s.pin(v), s.overcommit(v),
                        v.hostKernelArgs() == null ? "" : ", host " + v.hostKernelArgs());
            }
            return 0;
        }
    }

    @Command(name = "plan", mixinStandardHelpOptions = true,
            description = "List the runs in order, marking those the results file already has.")
    static final class Plan implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Mixin
        SpecFile spec;
        @Option(names = "--host-kernel-args", description = "Only print each set of host kernel arguments that pending"
                + " runs need, one line per host boot (an empty line: none; nothing when all runs are done).")
        boolean hostKernelArgs;

        @Override
        public Integer call() throws Exception {
            ExperimentSpec s = ExperimentSpec.load(spec.file);
            RunMatrix m = RunMatrix.of(s);
            Set<String> done = ResultsLog.doneIds(ResultsLog.read(spec.resultsFile()));
            PrintWriter out = cs.commandLine().getOut();
            if (hostKernelArgs) {
                List<Run> pending = m.pending(done);
                for (Set<String> g : HostKernelArgs.groups(s)) {
                    if (pending.stream().anyMatch(r -> HostKernelArgs.of(r.variant()).equals(g))) out.println(HostKernelArgs.text(g));
                }
                return 0;
            }
            for (Run r : m.runs()) out.printf("%4d  %-5s %s%n", r.order(), done.contains(r.id()) ? "done" : "", r.id());
            List<Run> pending = m.pending(done);
            out.printf("%d of %d runs pending%n", pending.size(), m.size());
            return 0;
        }
    }

    @Command(name = "report", mixinStandardHelpOptions = true,
            description = "Print the report of the results so far; optionally write the SVG chart and the CSV.")
    static final class ReportCmd implements Callable<Integer> {
        @Spec
        CommandSpec cs;
        @Mixin
        SpecFile spec;
        @Option(names = "--svg", paramLabel = "FILE", description = "Write the chart here.")
        Path svg;
        @Option(names = "--csv", paramLabel = "FILE", description = "Write every result as CSV here.")
        Path csv;

        @Override
        public Integer call() throws Exception {
            ExperimentSpec s = ExperimentSpec.load(spec.file);
            List<RunResult> all = ResultsLog.read(spec.resultsFile());
            Report r = Report.of(s, all);
            cs.commandLine().getOut().print(r.text());
            if (svg != null) r.writeSvg(svg);
            if (csv != null) CsvExport.write(all, csv);
            return 0;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"Run every pending run of the matrix on this arm64 host (boots the VMs in this process),"
                    + " appending each result as it finishes; interrupted, it resumes where it stopped. Then writes"
                    + " report.txt, chart.svg and results.csv to --out and prints the report."})
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

        @Override
        public Integer call() throws Exception {
            if (Arch.host() != Arch.AARCH64) {
                throw new IllegalArgumentException("jkvm experiment run boots arm64 guests on an arm64 host with KVM; this host is "
                        + System.getProperty("os.arch") + ": run it inside the emulated arm64 host (arm64-host/run)");
            }
            PrintWriter err = cs.commandLine().getErr();
            Path dir = out != null ? out
                    : spec.file.resolveSibling(spec.file.getFileName().toString().replaceFirst("\\.json$", "") + "-report");
            PrintWriter stdout = cs.commandLine().getOut();
            try (Experiment ex = Experiment.open(spec.file, spec.results, true); Kvm kvm = Kvm.open()) {
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
                ExperimentRunner runner = new ExperimentRunner(kvm, ex.spec());
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

        private static String hostCmdline() throws IOException {
            Path p = Path.of("/proc/cmdline");
            return Files.isReadable(p) ? Files.readString(p).strip() : "";
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
            err.printf("  %s %.1f s%s; %d failed; about %d min %d s left%n", r.ok() ? "done in" : "after", r.wallSeconds(),
                    r.ok() ? ", " + r.value() + " " + r.unit() : "", failed, etaSeconds / 60, etaSeconds % 60);
            err.flush();
        }

        private String bar() {
            int filled = total == 0 ? WIDTH : done * WIDTH / total;
            return "[" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "]";
        }
    }
}
