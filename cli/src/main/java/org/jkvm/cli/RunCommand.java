package org.jkvm.cli;

import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import org.jkvm.experiment.Json;
import org.jkvm.kvm.Arch;
import org.jkvm.kvm.Kvm;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.pvlock.PvLockStats;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.config.PvOptions;
import org.jkvm.vmm.config.Sizes;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.vcpu.VcpuStats;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/** {@code jkvm run}: boots an arm64 Linux guest and streams its console. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false, defaultValueProvider = RunConfigFile.class,
        description = {"Boots an arm64 Linux guest on this arm64 host's KVM; the guest's console is"
                + " printed on stdout, jkvm's own report on stderr."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:the guest powered off",
            "1:jkvm failed (a KVM call, an exit it cannot handle)",
            "2:bad input, or a host that cannot run it (not arm64, no KVM)",
            "3:the guest panicked",
            "4:the guest reset itself",
            "5:the guest ran past --timeout",
            "130:stopped by SIGINT (143: SIGTERM)"})
final class RunCommand implements Callable<Integer> {
    static final int PANIC = 3;
    static final int RESET = 4;
    static final int TIMEOUT = 5;

    @Spec
    private CommandSpec spec;

    @Option(names = RunConfigFile.OPTION, paramLabel = "FILE",
            description = "Settings as key = value lines (kernel, initrd, cmdline, cpus, memory, pin, pv, timeout);"
                    + " options given on the command line win.")
    @SuppressWarnings("unused") // read by RunConfigFile through picocli's model
    private Path configFile;

    @Option(names = "--kernel", paramLabel = "FILE", description = "The guest kernel: an arm64 Image, plain or gzip-compressed.")
    private Path kernel;

    @Option(names = "--initrd", paramLabel = "FILE", description = "An initramfs.")
    private Path initrd;

    @Option(names = "--cmdline", paramLabel = "TEXT", defaultValue = "console=ttyS0",
            description = "The kernel command line (default: console=ttyS0).")
    private String cmdline;

    @Option(names = "--cpus", paramLabel = "N", defaultValue = "1", converter = Converters.WholeNumber.class,
            description = "vCPUs (default: 1).")
    private int cpus;

    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = "512M", converter = Converters.Size.class,
            description = "Guest RAM, e.g. 512M or 2G (default: 512M).")
    private long memory;

    @Option(names = "--pin", paramLabel = "CPUSET", converter = Converters.Cpus.class,
            description = "Host CPUs the vCPU threads may run on, e.g. 0 or 0-3.")
    private BitSet pin;

    @Option(names = "--pv", paramLabel = "NAME=on|off", converter = Converters.Pv.class,
            description = "Paravirtual features (steal-time), e.g. steal-time=off.")
    private PvOptions pv = PvOptions.DEFAULT;

    @Option(names = "--pvlock", paramLabel = "MODE", defaultValue = "auto",
            description = "PV-lock preempted flags: auto, kernel (host kernel with the series), userspace (jkvm"
                    + " writes them), off (default: ${DEFAULT-VALUE}).")
    private String pvlock;

    @Option(names = "--timeout", paramLabel = "SECONDS", converter = Converters.WholeNumber.class,
            description = "Stop the guest after this long (exit code 5).")
    private Integer timeout;

    @Option(names = "--stats-json", paramLabel = "FILE", description = "Write the run's statistics as JSON.")
    private Path statsJson;

    @Override
    public Integer call() throws Exception {
        if (Arch.host() != Arch.AARCH64) {
            throw new UserError("jkvm run boots arm64 guests on an arm64 host with KVM; this host is "
                    + System.getProperty("os.arch") + ": use ./demo, which runs jkvm inside the emulated arm64 host");
        }
        VmConfig config = config();
        PvLockMode pvlockMode = PvLockMode.parse(pvlock);
        PrintWriter err = spec.commandLine().getErr();
        OutputStream console = new FileOutputStream(FileDescriptor.out);
        try (Kvm kvm = Kvm.open(); Arm64Vm vm = Arm64Vm.create(kvm, config, console);
             PvLockDevice pvLock = PvLockDevice.attach(vm, pvlockMode)) {
            err.printf("jkvm: %d vCPU%s, %s RAM, set up in %d ms%s%n", config.cpus(), config.cpus() == 1 ? "" : "s",
                    Sizes.format(config.memory()), vm.setupTime().toMillis(),
                    vm.stealTimeRegion() == null ? "" : ", steal time at 0x" + Long.toHexString(vm.stealTimeRegion().gpa()));
            err.println("jkvm: " + pvLock.describe());
            err.flush();
            Signal.handle(new Signal("INT"), s -> vm.stop("SIGINT"));
            Signal.handle(new Signal("TERM"), s -> vm.stop("SIGTERM"));
            long t0 = System.nanoTime();
            VmOutcome outcome = vm.run();
            Duration ran = Duration.ofNanos(System.nanoTime() - t0);
            report(err, outcome, ran, vm, pvLock);
            if (statsJson != null) Files.writeString(statsJson, Json.pretty(stats(outcome, ran, vm, pvLock)) + "\n");
            return exitCode(outcome);
        }
    }

    /** The VM the options describe; picocli has filled them from the command line, then the --config file. */
    VmConfig config() {
        return new VmConfig(kernel, initrd, cmdline, cpus, memory, pin, pv, timeout == null ? null : Duration.ofSeconds(timeout));
    }

    private static Map<String, Object> pvLockStats(PvLockDevice pvLock) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", pvLock.resolution().mode().cliName());
        m.put("reason", pvLock.resolution().reason());
        m.put("region", pvLock.region() == null ? null : "0x" + Long.toHexString(pvLock.region().region().gpa()));
        m.put("switch_source", pvLock.switchSource());
        m.put("answered_by", pvLock.region() == null ? null : pvLock.answeredByJkvm() ? "jkvm" : "kernel");
        PvLockStats s = pvLock.stats();
        List<Object> per = new java.util.ArrayList<>();
        for (int v = 0; v < s.vcpus(); v++) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("vcpu", v);
            e.put("feature_calls", s.featureCalls(v));
            e.put("pvlock_calls", s.pvLockCalls(v));
            e.put("preempted_set", s.preemptedSet(v));
            e.put("preempted_cleared", s.preemptedCleared(v));
            e.put("preemptions", s.preemptions(v));
            e.put("voluntary_switch_outs", s.voluntarySwitchOuts(v));
            double share = s.preemptedShare(v);
            e.put("preempted_share", Double.isNaN(share) ? null : Math.round(share * 10_000) / 10_000.0);
            e.put("kernel_changes_seen", s.changesSeen(v));
            per.add(e);
        }
        m.put("vcpus", per);
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("switches", s.staleness().count());
        st.put("mean_ns", s.staleness().meanNanos());
        st.put("p99_ns_upper_bound", s.staleness().quantileNanos(0.99));
        st.put("max_ns", s.staleness().maxNanos());
        m.put("staleness", st);
        return m;
    }

    static int exitCode(VmOutcome o) {
        return switch (o) {
            case VmOutcome.PowerOff p -> ExitCode.OK;
            case VmOutcome.Failed f -> ExitCode.FAILURE;
            case VmOutcome.Panic p -> PANIC;
            case VmOutcome.Reset r -> RESET;
            case VmOutcome.TimedOut t -> TIMEOUT;
            case VmOutcome.Stopped s -> s.reason().equals("SIGTERM") ? 143 : 130;
        };
    }

    private static String describe(VmOutcome o) {
        return switch (o) {
            case VmOutcome.PowerOff p -> "the guest powered off";
            case VmOutcome.Failed f -> "jkvm failed: " + f.message();
            case VmOutcome.Panic p -> "the guest panicked: " + p.message();
            case VmOutcome.Reset r -> "the guest reset itself";
            case VmOutcome.TimedOut t -> "the guest ran past the " + t.seconds() + " s timeout";
            case VmOutcome.Stopped s -> "stopped by " + s.reason();
        };
    }

    private static void report(PrintWriter err, VmOutcome outcome, Duration ran, Arm64Vm vm, PvLockDevice pvLock) {
        long exits = vm.machine().stats().stream().mapToLong(VcpuStats::totalExits).sum();
        err.printf("jkvm: %s after %.2f s; %d exits%s%n", describe(outcome), ran.toNanos() / 1e9, exits,
                vm.strayMmio() == 0 ? "" : ", " + vm.strayMmio() + " accesses to unmapped addresses");
        if (pvLock.region() != null) {
            PvLockStats s = pvLock.stats();
            long calls = 0, set = 0, cleared = 0, seen = 0, preemptions = 0, voluntary = 0;
            double share = 0;
            for (int v = 0; v < s.vcpus(); v++) {
                calls += s.pvLockCalls(v);
                set += s.preemptedSet(v);
                cleared += s.preemptedCleared(v);
                seen += s.changesSeen(v);
                preemptions += s.preemptions(v);
                voluntary += s.voluntarySwitchOuts(v);
                double sh = s.preemptedShare(v);
                if (!Double.isNaN(sh)) share += sh / s.vcpus();
            }
            if (pvLock.resolution().mode() == PvLockMode.KERNEL) {
                err.printf("jkvm: PV lock: %d PV-lock calls answered by jkvm; the host kernel changed preempted %d times,"
                        + " set in %.1f%% of the samples (read from the VMM side)%n", calls, seen, share * 100);
            } else {
                err.printf("jkvm: PV lock: %d PV-lock calls answered; %d preemptions and %d voluntary switch-outs of vCPU threads;"
                        + " preempted set %d and cleared %d times by jkvm, set %.1f%% of the time%s%s%n",
                        calls, preemptions, voluntary, set, cleared, share * 100,
                        pvLock.switchSource() == null ? "" : "; switches from " + pvLock.switchSource(),
                        s.staleness().count() == 0 ? "" : String.format(
                                ", switch-to-flag delay mean %d us, p99 <= %d us, max %d us", s.staleness().meanNanos() / 1000,
                                s.staleness().quantileNanos(0.99) / 1000, s.staleness().maxNanos() / 1000));
            }
        }
        err.flush();
    }

    private static Map<String, Object> stats(VmOutcome outcome, Duration ran, Arm64Vm vm, PvLockDevice pvLock) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("outcome", outcome.getClass().getSimpleName().toLowerCase(Locale.ROOT));
        m.put("outcome_detail", describe(outcome));
        Map<String, Object> kernels = new LinkedHashMap<>();
        kernels.put("host", System.getProperty("os.version"));
        kernels.put("guest", vm.guestKernelRelease().orElse(null));
        m.put("kernels", kernels);
        m.put("setup_ms", vm.setupTime().toMillis());
        m.put("run_ms", ran.toMillis());
        m.put("stray_mmio", vm.strayMmio());
        m.put("steal_time_region", vm.stealTimeRegion() == null ? null : "0x" + Long.toHexString(vm.stealTimeRegion().gpa()));
        m.put("vcpus", vm.machine().stats().stream().map(s -> {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("vcpu", s.vcpu());
            v.put("exits", s.totalExits());
            Map<String, Object> by = new LinkedHashMap<>();
            s.exitsByReason().forEach((r, n) -> by.put(r.name().toLowerCase(Locale.ROOT), n));
            v.put("exits_by_reason", by);
            v.put("ms_in_kvm_run", s.nanosInKvmRun() / 1_000_000);
            v.put("ms_outside", s.nanosOutside() / 1_000_000);
            return (Object) v;
        }).toList());
        m.put("pvlock", pvLockStats(pvLock));
        return m;
    }
}
