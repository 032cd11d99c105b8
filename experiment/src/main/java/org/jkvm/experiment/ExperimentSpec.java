package org.jkvm.experiment;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.BitSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;

import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.config.CpuOptions;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.PvOptions;
import org.jkvm.vmm.config.SettingException;
import org.jkvm.vmm.config.Sizes;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.io.FileProblem;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

/**
 * A scripted vCPU-overcommit experiment, read from a JSON file ({@link #load}); see
 * {@code examples/overcommit.json}. Every variant runs every workload {@link #repetitions} times
 * (after {@link #warmup} discarded runs), interleaved by {@link RunMatrix}.
 *
 * @param source      the spec file as the user named it (messages use it)
 * @param name        the experiment's name
 * @param guest       the guest kernel, initrd and root file system (resolved against the spec's folder)
 * @param vcpus       vCPUs per VM (a variant may override)
 * @param memory      guest RAM in bytes
 * @param pin         host CPUs all vCPU threads of all VMs share, normalised ("0-1"); a variant may override
 * @param vmmPin      host CPUs the rest of jkvm runs on (as {@code jkvm run --vmm-pin}), normalised, or null
 *                    for wherever the process may run; a variant may override
 * @param vms         VMs running at once per run (all pinned to the same CPUs)
 * @param workloads   what the guest runs, in spec order
 * @param variants    the configurations compared, in spec order
 * @param base        the name of the variant the others are compared with
 * @param reference   the name of the no-overcommit variant, or null
 * @param repetitions measured runs per variant and workload
 * @param warmup      discarded runs per variant and workload, before the measured ones
 * @param timeout     per-run limit in seconds, or 0 for the default (workload seconds + 120)
 * @param preemptors  each run tells who its vCPUs waited behind ({@code jkvm run --preemptors}); off
 *                    unless the spec says {@code "preemptors": "on"}
 * @param variables   the {@code ${NAME}}s the spec's paths use, sorted (set or not in the environment)
 */
public record ExperimentSpec(Path source, String name, Guest guest, int vcpus, long memory, String pin, String vmmPin, int vms,
                             List<Workload> workloads, List<Variant> variants, String base, String reference,
                             int repetitions, int warmup, int timeout, boolean preemptors, Set<String> variables) {

    /** The workload names a guest knows (its init's {@code jkvm.workload=}). */
    public static final List<String> WORKLOADS = List.of(
            "fork-exec", "hackbench", "mmap-shared", "mmap-private-mm", "file-shared", "file-private", "cpu", "syscall",
            "shell-dyn", "execl", "spawn", "pipe-ctxsw");

    /** The name of every command workload ({@link Workload#command}): what its result is recorded as. */
    public static final String COMMAND = "command";

    /**
     * The kernel arguments that boot a command workload's root file system: read-only (the image
     * is shared by the runs and the VMs of a run, and stays as built), with its own init.
     */
    public static final String ROOTFS_ARGS = "root=/dev/vda ro rootfstype=ext4 init=/sbin/jkvm-init";

    /** What a spec file is: a regular file of at most 1 MiB (the examples have 2 KiB). */
    public static final InputKind FILE = new InputKind("a spec", 1 << 20);

    /** Seconds added to a workload's duration for the default per-run timeout (boot, shutdown). */
    public static final int TIMEOUT_SLACK_SECONDS = 120;

    /** The most runs a spec may ask for, warm-up included: at seconds each, a million are months of machine time. */
    public static final long MAX_RUNS = 1_000_000;

    /** Samples per second of each vCPU's CPU time in a profiled run (as {@code jkvm run --profile}'s default). */
    public static final int PROFILE_HZ = 99;

    /** Where a profiled run looks for its guest kernel's symbols: beside the Image, as kernel/build leaves them. */
    public static final String SYSTEM_MAP = "System.map";

    /**
     * A variant's {@code "vmm_pin"} that keeps the rest of jkvm where the process may run, whatever
     * the spec's: for a reference whose vCPUs use every CPU.
     */
    public static final String VMM_PIN_NONE = "none";

    /** The kernel arguments jkvm puts before the spec's: the console, reboot on panic, a quiet boot. */
    public static final String JKVM_CMDLINE = "console=ttyS0 panic=-1 quiet";

    public ExperimentSpec {
        workloads = List.copyOf(workloads);
        variants = List.copyOf(variants);
        variables = Collections.unmodifiableSortedSet(new TreeSet<>(variables));
    }

    /**
     * The guest.
     *
     * @param kernel  arm64 Image (absolute: resolved against the spec's folder)
     * @param initrd  initramfs with the workloads, or null when every workload is a command
     * @param rootfs  the ext4 image command workloads boot on (guest/debian-rootfs/build's), or null
     * @param cmdline extra kernel arguments for every run, or "" (the workload's arguments are appended)
     */
    public record Guest(Path kernel, Path initrd, Path rootfs, String cmdline) {}

    /**
     * One workload: one of the initramfs's, or a command run on the {@link Guest#rootfs}.
     *
     * @param name    the guest's workload name, one of {@link #WORKLOADS}, or {@link #COMMAND}
     * @param label   its name in run ids and reports (default: name; unique in the spec)
     * @param workers processes/threads the guest starts ({@value #WORKERS} in a command)
     * @param seconds how long the guest runs it ({@value #SECONDS} in a command)
     * @param profile its runs are profiled ({@link #profiled}); off unless the spec says on
     * @param command a shell command for the root file system's {@code /sbin/jkvm-init}, a
     *                stress-ng run with {@code --metrics-brief} (its bogo ops/s are the result,
     *                {@link StressNgMetrics}); or null for an initramfs workload
     */
    public record Workload(String name, String label, int workers, int seconds, boolean profile, String command) {
        /** Where a command takes the workload's workers. */
        public static final String WORKERS = "{workers}";
        /** Where a command takes the workload's seconds. */
        public static final String SECONDS = "{seconds}";

        /** An initramfs workload. */
        public Workload(String name, String label, int workers, int seconds, boolean profile) {
            this(name, label, workers, seconds, profile, null);
        }

        /** Whether it runs a command on the root file system rather than an initramfs workload. */
        public boolean isCommand() {
            return command != null;
        }

        /** The command as the guest runs it: {@value #WORKERS} and {@value #SECONDS} filled in. */
        public String commandLine() {
            return command.replace(WORKERS, Integer.toString(workers)).replace(SECONDS, Integer.toString(seconds));
        }

        /** The kernel arguments that make the guest run this workload. */
        public String guestArgs() {
            if (isCommand()) {
                return ROOTFS_ARGS + " jkvm.cmd="
                        + Base64.getEncoder().encodeToString(commandLine().getBytes(StandardCharsets.UTF_8));
            }
            return "jkvm.workload=" + name + " jkvm.workers=" + workers + " jkvm.seconds=" + seconds;
        }
    }

    /**
     * One configuration.
     *
     * @param name           unique; part of run ids
     * @param pvlock         the {@code --pvlock} mode
     * @param pvlockBatch    the userspace tracker's batch period in milliseconds ({@code --pvlock-batch}), 0: none
     * @param stealTime      PV steal time on or off ({@code --pv steal-time=})
     * @param pmu            the guest has a PMUv3 ({@code --pmu}); off unless the spec says on
     * @param cpu            the vCPUs' optional features ({@code --cpu}): "ptrauth" and "sve", each on unless the spec says off
     * @param kernel         a different guest kernel, or null for the spec's
     * @param hostKernelArgs extra arguments for the emulated host's kernel (e.g.
     *                       {@code kvm-arm.wfe_trap_policy=notrap}), or null; only used when jkvm runs in the emulated host
     * @param vcpus          vCPUs override, or 0 for the spec's
     * @param pin            CPU list override (normalised), or null for the spec's
     * @param vmmPin         where the rest of jkvm runs in this variant's runs: a CPU list (normalised),
     *                       {@link #VMM_PIN_NONE}, or null for the spec's
     * @param cmdline        guest kernel arguments of this variant only (e.g. {@code nopvlock}: the same host in both arms,
     *                       the guest with and without its PV lock), put after the spec's; or null
     * @param profile        its runs are profiled ({@link #profiled}); off unless the spec says on
     */
    public record Variant(String name, PvLockMode pvlock, int pvlockBatch, boolean stealTime, boolean pmu, CpuOptions cpu, Path kernel,
                          String hostKernelArgs, int vcpus, String pin, String vmmPin, String cmdline, boolean profile) {
        /** What the vCPUs go without, as the reports name it: "" when they have every feature the host offers. */
        public String cpuText() {
            return (cpu.ptrAuth() ? "" : ", no pointer auth") + (cpu.sve() ? "" : ", no SVE");
        }
    }

    /** Reads and validates a spec; relative paths are resolved against the spec's folder. */
    public static ExperimentSpec load(Path file) throws IOException {
        return load(file, false);
    }

    /**
     * Reads and validates a spec.
     *
     * @param requireFiles also check that every kernel and initrd named exists (what a runner wants)
     * @throws SpecException listing every problem with its line and column
     */
    public static ExperimentSpec load(Path file, boolean requireFiles) throws IOException {
        return load(file, requireFiles, System.getenv());
    }

    /**
     * Reads and validates a spec, its {@code ${NAME}}s from {@code env} ({@link #parse(String, Path, boolean, Map)}).
     *
     * @throws FileProblem when the file is not a regular file of UTF-8 text of at most {@link #FILE}'s size
     */
    public static ExperimentSpec load(Path file, boolean requireFiles, Map<String, String> env) throws IOException {
        return parse(InputFile.text(file, FILE), file, requireFiles, env);
    }

    /** Validates spec text as if read from {@code source} (used for messages and relative paths). */
    public static ExperimentSpec parse(String text, Path source, boolean requireFiles) {
        return parse(text, source, requireFiles, System.getenv());
    }

    /**
     * Validates spec text. Paths may hold {@code ${NAME}} (e.g. {@code ${JKVM_GUEST_IMAGE}}, which
     * guest/build prints), taken from {@code env}; an unset one is an error when {@code requireFiles},
     * else it stays in the path as written.
     */
    public static ExperimentSpec parse(String text, Path source, boolean requireFiles, Map<String, String> env) {
        return new SpecReader(source, requireFiles, env).read(text);
    }

    /** The variant named so. */
    public Variant variant(String variantName) {
        for (Variant v : variants) if (v.name().equals(variantName)) return v;
        throw new IllegalArgumentException("no variant named " + variantName);
    }

    /** The workload labelled so. */
    public Workload workload(String label) {
        for (Workload w : workloads) if (w.label().equals(label)) return w;
        throw new IllegalArgumentException("no workload labelled " + label);
    }

    /** The base variant. */
    public Variant baseVariant() {
        return variant(base);
    }

    /** The no-overcommit reference variant, if the spec names one. */
    public Optional<Variant> referenceVariant() {
        return reference == null ? Optional.empty() : Optional.of(variant(reference));
    }

    /** vCPUs per VM for a variant. */
    public int vcpus(Variant v) {
        return v.vcpus() > 0 ? v.vcpus() : vcpus;
    }

    /** The host CPU list for a variant ("0-1"), as {@code jkvm run --pin} takes it. */
    public String pin(Variant v) {
        return v.pin() != null ? v.pin() : pin;
    }

    /** The host CPUs for a variant. */
    public BitSet pinSet(Variant v) {
        return CpuSet.parse(pin(v));
    }

    /** vCPUs of all VMs at once per pinned host CPU: vcpus x vms / #cpus (1.0 = no overcommit). */
    public double overcommit(Variant v) {
        return (double) vcpus(v) * vms / pinSet(v).cardinality();
    }

    /** The guest kernel for a variant. */
    public Path kernel(Variant v) {
        return v.kernel() != null ? v.kernel() : guest.kernel();
    }

    /**
     * Whether a run samples its guest with the profiler: when its variant or its workload says
     * {@code "profile": "on"}. Profiling costs the vCPU threads time, so throughput runs leave it off.
     */
    public boolean profiled(Run run) {
        return run.variant().profile() || run.workload().profile();
    }

    /** The symbols for a variant's profiles: the {@link #SYSTEM_MAP} beside its kernel. */
    public Path systemMap(Variant v) {
        return kernel(v).resolveSibling(SYSTEM_MAP);
    }

    /** The files the runs read: the guest kernel, the initrd, the root file system, and the variants' own kernels, each once. */
    public List<Path> inputFiles() {
        Set<Path> files = new LinkedHashSet<>(List.of(guest.kernel()));
        if (guest.initrd() != null) files.add(guest.initrd());
        if (guest.rootfs() != null) files.add(guest.rootfs());
        for (Variant v : variants) files.add(kernel(v));
        return List.copyOf(files);
    }

    /** The full guest command line for a run: the spec's extra arguments, the variant's, then the workload's. */
    public String cmdline(Variant v, Workload w) {
        StringJoiner args = new StringJoiner(" ");
        if (!guest.cmdline().isEmpty()) args.add(guest.cmdline());
        if (v.cmdline() != null) args.add(v.cmdline());
        return args.add(w.guestArgs()).toString();
    }

    /** The command line the guest kernel gets: jkvm's arguments, then {@link #cmdline}. */
    public String kernelCmdline(Variant v, Workload w) {
        return JKVM_CMDLINE + " " + cmdline(v, w);
    }

    /**
     * The VM each of a run's {@link #vms} is: what the runner boots. A command workload gets no
     * initrd and the root file system as its read-only /dev/vda.
     */
    public VmConfig vmConfig(Variant v, Workload w) {
        PvOptions pv = new PvOptions(v.stealTime());
        if (w.isCommand()) {
            return new VmConfig(kernel(v), null, kernelCmdline(v, w), vcpus(v), memory, pinSet(v), pv, v.pmu(), v.cpu(),
                    timeout(w), List.of(new Disk(guest.rootfs(), true, "")), false, false, null, null);
        }
        return new VmConfig(kernel(v), guest.initrd(), kernelCmdline(v, w), vcpus(v), memory, pinSet(v), pv, v.pmu(), v.cpu(),
                timeout(w), List.of(), false, false, null, null);
    }

    /**
     * Checks the values of {@link #vmConfig} without its files, with the VM's own validation.
     *
     * @throws SettingException naming the setting a run would refuse
     */
    public void checkVm(Variant v, Workload w) {
        VmConfig.checkValues(kernelCmdline(v, w), vcpus(v), memory, pinSet(v), timeout(w));
    }

    /** The host CPUs the rest of jkvm runs on in a variant's runs ("1"), or null where it is not pinned. */
    public String vmmPin(Variant v) {
        if (v.vmmPin() == null) return vmmPin;
        return v.vmmPin().equals(VMM_PIN_NONE) ? null : v.vmmPin();
    }

    /** The host CPUs the rest of jkvm runs on in a variant's runs ({@link #vmmPin(Variant)}), or null. */
    public BitSet vmmPinSet(Variant v) {
        String cpus = vmmPin(v);
        return cpus == null ? null : CpuSet.parse(cpus);
    }

    /** Whether any variant pins the rest of jkvm: then every run places it, the unpinned ones back where the process may run. */
    public boolean placesVmm() {
        return variants.stream().anyMatch(v -> vmmPin(v) != null);
    }

    /** The spec field that gives the vmm_pin of variant {@code i}, as errors name it. */
    String vmmPinField(int i) {
        return variants.get(i).vmmPin() != null ? "variants[" + i + "].vmm_pin" : "vmm_pin";
    }

    /** Whether any variant takes the spec's own {@link #vmmPin}: where none does, it is not shown. */
    public boolean vmmPinInherited() {
        return vmmPin != null && variants.stream().anyMatch(v -> v.vmmPin() == null);
    }

    /**
     * Where a variant's runs put their threads, as a result records it: {@link RunResult#PLACEMENT_PIN} the
     * vCPUs' CPUs, and {@link RunResult#PLACEMENT_VMM_PIN} the rest of jkvm's where it is pinned.
     */
    public Map<String, String> placement(Variant v) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(RunResult.PLACEMENT_PIN, pin(v));
        if (vmmPin(v) != null) m.put(RunResult.PLACEMENT_VMM_PIN, vmmPin(v));
        return Collections.unmodifiableMap(m);
    }

    /**
     * Refuses a variant's CPUs, or its vmm_pin, that this process may not use (see
     * {@link CpuSet#checkWithin}); only the host that runs the spec can tell.
     */
    public void checkPins(BitSet allowed) {
        for (int i = 0; i < variants.size(); i++) {
            Variant v = variants.get(i);
            try {
                BitSet vmm = vmmPinSet(v);
                if (vmm != null) CpuSet.checkWithin(vmmPinField(i), vmm, allowed);
            } catch (SettingException e) {
                throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
            }
            try {
                CpuSet.checkWithin("pin", pinSet(v), allowed);
            } catch (SettingException e) {
                throw new IllegalArgumentException(source + ": variant " + v.name() + ": " + e.describe("pin"), e);
            }
        }
    }

    /** The guest RAM as {@code jkvm run --memory} takes it ("512M"). */
    public String memoryText() {
        return Sizes.format(memory);
    }

    /** How long one run of a workload may take before the runner stops it. */
    public Duration timeout(Workload w) {
        return Duration.ofSeconds(timeout > 0 ? timeout : (long) w.seconds() + TIMEOUT_SLACK_SECONDS);
    }

    /** Runs in the matrix, warm-up included. */
    public int runCount() {
        return Math.toIntExact(runCount(variants.size(), workloads.size(), repetitions, warmup));
    }

    /** Runs in a matrix of this shape, or {@link Long#MAX_VALUE} when that is more than a long holds. */
    static long runCount(int variants, int workloads, int repetitions, int warmup) {
        try {
            return Math.multiplyExact(Math.multiplyExact((long) variants, workloads), (long) repetitions + warmup);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
