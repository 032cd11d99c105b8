package org.jkvm.experiment;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.kvm.Kvm;
import org.jkvm.pvlock.PreemptorWatch;
import org.jkvm.pvlock.Preemptors;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockStats;
import org.jkvm.pvlock.PvLockTotals;
import org.jkvm.pvlock.StalenessHistogram;
import org.jkvm.pvlock.TrackerCpus;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.io.OutputFile;
import org.jkvm.vmm.launch.Launch;
import org.jkvm.vmm.launch.RunReport;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.profile.CategoryRollup;
import org.jkvm.vmm.profile.GuestProfile;
import org.jkvm.vmm.profile.GuestProfiler;
import org.jkvm.vmm.profile.ProfileFiles;
import org.jkvm.vmm.profile.ProfileReport;
import org.jkvm.vmm.profile.SymbolTable;
import org.jkvm.vmm.vcpu.ThreadSchedStat;
import org.jkvm.vmm.vcpu.VcpuStats;
import org.jkvm.vmm.vcpu.VcpuThreadTimes;

/**
 * Runs one cell of the matrix for real: launches the spec's VMs for that variant and workload in
 * this process (all of them at once, each on its own vCPU threads, pinned as the variant says),
 * reads each guest's result from its console (its RESULT line, or a command's stress-ng
 * metrics, {@link #guestResult}), and collects the host-side statistics,
 * KVM's own ({@link RunKvmStats}, over the workload's window where the guests mark it) and the
 * guests' own counters over their workload ({@link RunGuestStats}). A run
 * the spec profiles ({@link ExperimentSpec#profiled}) also carries {@link GuestProfiler} at
 * {@link ExperimentSpec#PROFILE_HZ} and leaves {@link ProfileFiles} in
 * {@code <profiles>/<run id>/} ({@code vm<i>/} below it when a run has several VMs), over the
 * workload's window where the guests mark it and the whole run's in
 * {@value ProfileFiles#WHOLE_RUN}/, named against the {@link ExperimentSpec#SYSTEM_MAP} beside
 * the kernel where there is one; its result says {@code "profile_hz"} among the host figures.
 */
public final class ExperimentRunner {
    private static final System.Logger LOG = System.getLogger(ExperimentRunner.class.getName());

    /**
     * The host figure of a run's milliseconds from its start, before its VMs are set up, to the last
     * of its guests' ready lines.
     */
    public static final String READY_MS = "ms_to_ready";

    private final Kvm kvm;
    private final ExperimentSpec spec;
    private final Path profiles;
    private final VmmPlacement placement;

    /**
     * Runs {@code spec}'s cells on {@code kvm}; profiled runs write into {@code profiles}. Each run
     * first moves the rest of jkvm where its variant says ({@link VmmPlacement}).
     */
    public ExperimentRunner(Kvm kvm, ExperimentSpec spec, Path profiles, VmmPlacement placement) {
        this.kvm = kvm;
        this.spec = spec;
        this.profiles = profiles;
        this.placement = placement;
    }

    /** One VM's part of a run: its launch, console, and report once it has ended. */
    private static final class VmRun {
        final ByteArrayOutputStream output = new ByteArrayOutputStream();
        final WindowEdges<EdgeCounts> console = new WindowEdges<>(output);
        Launch launch;
        RunReport report;

        /** Everything the guest wrote to its console. */
        String text() {
            return output.toString(StandardCharsets.UTF_8);
        }
    }

    /**
     * Runs one cell; a failure (guest, KVM, timeout, a placement the host refuses) comes back as a
     * failed result, not an exception.
     */
    public RunResult run(Run run) {
        Map<String, String> kernels = new LinkedHashMap<>();
        Map<String, String> placed = new LinkedHashMap<>();
        return run(run, kernels, placed).withKernels(kernels).withPlacement(placed);
    }

    /**
     * Runs {@code run}; {@code kernels} gets the host's and the guest's kernel release once known,
     * {@code placed} where its threads go once the process is placed.
     */
    private RunResult run(Run run, Map<String, String> kernels, Map<String, String> placed) {
        kernels.put("host", System.getProperty("os.version"));
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        Variant v = run.variant();
        List<VmRun> vms = new ArrayList<>();
        Map<String, Number> host = new LinkedHashMap<>();
        try {
            // before Launch.prepare: the PV-lock thread's CPUs are read from this affinity, and every thread the run starts inherits it
            placed.putAll(placement.place(v));
            VmConfig config = spec.vmConfig(v, run.workload());
            boolean profiled = spec.profiled(run);
            List<VmExtension.Attach> attach = new ArrayList<>(List.of(PvLockDevice.attaching(v.pvlock(), PvLockDevice.DEFAULT_SAMPLE_HZ, v.pvlockBatch()), VcpuThreadTimes.attaching()));
            if (spec.preemptors()) attach.add(PreemptorWatch.attaching());
            if (profiled) {
                attach.add(GuestProfiler.attaching(ExperimentSpec.PROFILE_HZ));
                host.put("profile_hz", ExperimentSpec.PROFILE_HZ);
            }
            for (int i = 0; i < spec.vms(); i++) {
                VmRun r = new VmRun();
                vms.add(r);
                r.launch = Launch.prepare(kvm, config, r.console, attach);
                r.launch.vm().timeExits(); // the report's time inside and outside KVM_RUN
                Optional<PreemptorWatch> watch = spec.preemptors() ? Optional.of(r.launch.extension(PreemptorWatch.class))
                        : Optional.empty();
                PvLockDevice pvLock = r.launch.extension(PvLockDevice.class);
                VcpuThreadTimes vcpuTimes = r.launch.extension(VcpuThreadTimes.class);
                r.console.watch(() -> EdgeCounts.now(r.launch.kvmStatistics().snapshot(), watch.map(PreemptorWatch::mark),
                        pvLock.flagMark(), vcpuTimes.mark()));
            }
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < vms.size(); i++) {
                VmRun r = vms.get(i);
                threads.add(Thread.ofPlatform().name("vm-" + i).start(() -> r.report = runVm(r.launch)));
            }
            for (Thread t : threads) t.join();
            for (int i = 0; i < vms.size(); i++) {
                if (vms.get(i).report == null) {
                    return RunResult.failed(run, "vm " + i + ": interrupted", (System.nanoTime() - t0) / 1e9, started, host);
                }
            }
            vms.getFirst().report.guestKernel().ifPresent(g -> kernels.put("guest", g));
            double wall = (System.nanoTime() - t0) / 1e9;
            readyAfter(t0, vms).ifPresent(ms -> host.put(READY_MS, ms));
            collect(host, vms);
            Optional<List<WindowEdges.Edges<EdgeCounts>>> edges = workloadEdges(vms);
            if (spec.preemptors()) preemptors(host, vms, edges);
            edges.ifPresent(e -> flaggedShare(host, e));
            edges.ifPresent(e -> WindowTimes.put(host, e, spec.pinSet(v)));
            if (profiled) writeProfiles(run, vms, edges);
            RunKvmStats kvmStats = kvmStats(vms, edges);
            RunGuestStats guestStats = RunGuestStats.fromConsoles(vms.stream().map(VmRun::text).toList());
            List<GuestResult> results = new ArrayList<>();
            for (int i = 0; i < vms.size(); i++) {
                VmOutcome outcome = vms.get(i).report.outcome();
                String out = vms.get(i).text();
                Optional<GuestResult> r = guestResult(run.workload(), out);
                if (!(outcome instanceof VmOutcome.PowerOff) || r.isEmpty()) {
                    return RunResult.failed(run, "vm " + i + ": " + outcome + (r.isEmpty() ? ", " + missing(run.workload())
                            + "; console ends: " + tail(out) : ""), wall, started, host).withKvm(kvmStats).withGuest(guestStats);
                }
                results.add(r.get());
            }
            return RunResult.of(run, results, wall, started, host).withKvm(kvmStats).withGuest(guestStats);
        } catch (IOException | RuntimeException e) {
            return RunResult.failed(run, e.toString(), (System.nanoTime() - t0) / 1e9, started, host);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RunResult.failed(run, "interrupted", (System.nanoTime() - t0) / 1e9, started, host);
        } finally {
            for (VmRun r : vms) {
                if (r.launch != null) r.launch.close();
            }
        }
    }

    /**
     * Each VM's profile files: over its workload's window where every VM marked one (what the
     * run's throughput measures; the boot and the power-off left out), with the whole run's in
     * {@value ProfileFiles#WHOLE_RUN}/ beside them; else the whole run's alone. A profile that cannot be
     * written is logged and leaves the run's result as it is.
     */
    private void writeProfiles(Run run, List<VmRun> vms, Optional<List<WindowEdges.Edges<EdgeCounts>>> edges) {
        Path map = spec.systemMap(run.variant());
        Optional<SymbolTable> symbols = Optional.empty();
        try {
            if (Files.isRegularFile(map)) symbols = Optional.of(SymbolTable.read(map));
        } catch (IOException | IllegalArgumentException e) {
            LOG.log(Level.WARNING, run.id() + ": profile symbols " + map + " unreadable, PCs stay addresses: " + e.getMessage());
        }
        for (int i = 0; i < vms.size(); i++) {
            Path dir = profiles.resolve(run.id());
            if (vms.size() > 1) dir = dir.resolve("vm" + i);
            GuestProfile whole = vms.get(i).launch.extension(GuestProfiler.class).profile();
            try {
                if (edges.isPresent()) {
                    WindowEdges.Edges<EdgeCounts> e = edges.get().get(i);
                    writeProfile(dir, whole.between(e.start().at(), e.end().at()), symbols, run.id() + ", workload window");
                    writeProfile(dir.resolve(ProfileFiles.WHOLE_RUN), whole, symbols, run.id() + ", whole run");
                } else {
                    writeProfile(dir, whole, symbols, run.id());
                }
            } catch (IOException e) {
                LOG.log(Level.WARNING, run.id() + ": writing its profile to " + dir + " failed: " + e);
            }
        }
    }

    private static void writeProfile(Path dir, GuestProfile profile, Optional<SymbolTable> symbols, String title) throws IOException {
        ProfileReport report = ProfileReport.of(profile, symbols, ProfileReport.DEFAULT_TOP);
        Files.createDirectories(dir);
        for (Map.Entry<String, String> f : ProfileFiles.of(report, CategoryRollup.of(report), title).entrySet()) {
            OutputFile.write(dir.resolve(f.getKey()), f.getValue());
        }
    }

    /** The VM's report, or null when its thread was interrupted before the guest ended. */
    private static RunReport runVm(Launch launch) {
        try {
            return launch.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            launch.stop("interrupted");
            return null;
        }
    }

    /**
     * Milliseconds from the run's start ({@code t0}, before its VMs are set up) to the last of its
     * guests' ready lines: the VMM's set-up and the guests' boot, which a sweep pays in every run;
     * empty when a guest printed none.
     */
    private static OptionalLong readyAfter(long t0, List<VmRun> vms) {
        long last = t0;
        for (VmRun r : vms) {
            OptionalLong at = r.console.readyAt();
            if (at.isEmpty()) return OptionalLong.empty();
            last = Math.max(last, at.getAsLong());
        }
        return OptionalLong.of((last - t0) / 1_000_000);
    }

    /** Host-side figures summed over the run's VMs and vCPUs. */
    private static void collect(Map<String, Number> host, List<VmRun> vms) {
        long exits = 0, inRun = 0, outside = 0, onCpu = 0, waiting = 0, calls = 0, set = 0, cleared = 0, seen = 0;
        long preemptions = 0, voluntary = 0, wakeups = 0, dropped = 0, ringsFull = 0;
        List<StalenessHistogram> flagDelays = new ArrayList<>();
        List<Optional<TrackerCpus>> pvLockThreads = new ArrayList<>();
        boolean sched = true;
        for (VmRun r : vms) {
            for (VcpuStats s : r.report.vcpus()) {
                exits += s.totalExits();
                inRun += s.nanosInKvmRun();
                outside += s.nanosOutside();
                Optional<ThreadSchedStat> t = s.scheduled();
                sched &= t.isPresent();
                if (t.isPresent()) {
                    onCpu += t.get().onCpuNanos();
                    waiting += t.get().waitingNanos();
                }
            }
            PvLockDevice pvLock = r.launch.extension(PvLockDevice.class);
            pvLockThreads.add(pvLock.threadCpus());
            PvLockStats stats = pvLock.stats();
            flagDelays.add(stats.staleness());
            wakeups += stats.trackerWakeups();
            dropped += stats.switchRecordsLost();
            ringsFull += stats.fullRings();
            PvLockTotals p = stats.totals();
            calls += p.pvLockCalls();
            set += p.preemptedSet();
            cleared += p.preemptedCleared();
            seen += p.changesSeen();
            preemptions += p.preemptions();
            voluntary += p.voluntarySwitchOuts();
        }
        host.put("exits", exits);
        host.put("ms_in_kvm_run", inRun / 1_000_000);
        host.put("ms_outside", outside / 1_000_000);
        if (sched) {
            // what the vCPU threads got from the host's scheduler; the wait is the guests' steal time
            host.put("ms_vcpus_on_cpu", onCpu / 1_000_000);
            host.put("ms_vcpus_waiting", waiting / 1_000_000);
        }
        host.put("pvlock_calls", calls);
        host.put("preempted_set", set);
        host.put("preempted_cleared", cleared);
        host.put("preempted_changes_seen", seen);
        host.put("vcpu_preemptions", preemptions);
        host.put("vcpu_voluntary_switch_outs", voluntary);
        TrackerDelay.put(host, StalenessHistogram.merged(flagDelays), wakeups, dropped, ringsFull);
        PvLockThreadPlace.put(host, pvLockThreads);
    }

    /** Each VM's workload edges, in VM order, when every VM printed both; else empty, and the figures span the run. */
    private static Optional<List<WindowEdges.Edges<EdgeCounts>>> workloadEdges(List<VmRun> vms) {
        List<WindowEdges.Edges<EdgeCounts>> edges = new ArrayList<>();
        for (VmRun r : vms) {
            Optional<WindowEdges.Edges<EdgeCounts>> e = r.console.edges();
            if (e.isEmpty()) return Optional.empty();
            edges.add(e.get());
        }
        return Optional.of(edges);
    }

    /** KVM's statistics of each VM over its workload's window when every VM printed both edges, else over the run. */
    private static RunKvmStats kvmStats(List<VmRun> vms, Optional<List<WindowEdges.Edges<EdgeCounts>>> edges) {
        if (edges.isEmpty()) {
            return new RunKvmStats(RunKvmStats.RUN, vms.stream().map(r -> RunKvmStats.Vm.of(r.report.kvm())).toList());
        }
        List<RunKvmStats.Vm> windows = new ArrayList<>();
        for (int i = 0; i < vms.size(); i++) {
            WindowEdges.Edges<EdgeCounts> e = edges.get().get(i);
            windows.add(RunKvmStats.Vm.of(vms.get(i).launch.kvmStatistics().window(e.start().kvm(), e.end().kvm())));
        }
        return new RunKvmStats(RunKvmStats.WORKLOAD, windows);
    }

    /** How much of the workload the guests saw their vCPUs as preempted, where every VM measured it. */
    private static void flaggedShare(Map<String, Number> host, List<WindowEdges.Edges<EdgeCounts>> edges) {
        List<Double> shares = new ArrayList<>();
        for (WindowEdges.Edges<EdgeCounts> e : edges) {
            if (e.start().flags().isEmpty() || e.end().flags().isEmpty()) return;
            shares.add(e.start().flaggedShare(e.end()));
        }
        FlaggedShare.put(host, shares);
    }

    /**
     * Who each VM's vCPUs waited behind, over its workload's window when every VM printed both
     * edges (as for KVM's statistics), else over the run: boot and power-off would otherwise
     * weigh as much as a short workload.
     */
    private static void preemptors(Map<String, Number> host, List<VmRun> vms, Optional<List<WindowEdges.Edges<EdgeCounts>>> edges) {
        List<Preemptors> tallies = new ArrayList<>();
        for (int i = 0; i < vms.size(); i++) {
            PreemptorWatch w = vms.get(i).launch.extension(PreemptorWatch.class);
            int vm = i;
            tallies.add(edges.map(all -> all.get(vm))
                    .map(e -> e.start().waitedBehind(e.end(), w).orElseThrow())
                    .orElseGet(w::preemptors));
        }
        WaitedBehind.put(host, tallies, edges.isPresent());
    }

    /**
     * What the guest's console says the workload did: its RESULT line, or for a command the
     * stress-ng metrics of a command that exited with 0 ({@link WindowEdges#COMMAND_EXIT}).
     */
    static Optional<GuestResult> guestResult(Workload w, String console) {
        if (!w.isCommand()) return console.lines().map(GuestResult::parse).flatMap(Optional::stream).findFirst();
        if (console.lines().noneMatch(l -> l.strip().equals(WindowEdges.COMMAND_EXIT + " 0"))) return Optional.empty();
        return StressNgMetrics.result(w.name(), console);
    }

    private static String missing(Workload w) {
        return w.isCommand() ? "no stress-ng metrics from a command that exited with 0" : "no RESULT line";
    }

    private static String tail(String console) {
        List<String> lines = console.lines().toList();
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }
}
