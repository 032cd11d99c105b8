package org.jkvm.cli;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

import org.jkvm.experiment.Json;
import org.jkvm.kvm.Arch;
import org.jkvm.kvm.HostCpus;
import org.jkvm.kvm.Kvm;
import org.jkvm.pvlock.PreemptorWatch;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.StartupMarks;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.config.CpuOptions;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.Net;
import org.jkvm.vmm.config.PvOptions;
import org.jkvm.vmm.config.SettingException;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.config.Vsock;
import org.jkvm.vmm.devices.ConsoleInput;
import org.jkvm.vmm.io.OutputFile;
import org.jkvm.vmm.jfr.FlightRecording;
import org.jkvm.vmm.launch.Launch;
import org.jkvm.vmm.launch.RunReport;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.profile.SymbolTable;
import org.jkvm.vmm.vcpu.VcpuThreadTimes;
import org.jkvm.vmm.virtio.VirtioConsole;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import sun.misc.Signal;

/**
 * {@code jkvm run}: boots an arm64 Linux guest and streams its console. Its picocli model is built
 * in {@link #spec} rather than from annotations ({@link OptionBinding} says why).
 */
final class RunCommand implements Callable<Integer> {
    static final int PANIC = 3;
    static final int RESET = 4;
    static final int TIMEOUT = 5;

    private CommandSpec spec;
    private Path configFile;
    private Path kernel;
    private Path initrd;
    private String cmdline;
    private int cpus;
    private long memory;
    private BitSet pin;
    private BitSet vmmPin;
    private PvOptions pv = PvOptions.DEFAULT;
    private boolean pmu;
    private CpuOptions cpu = CpuOptions.DEFAULT;
    private PvLockMode pvlock;
    private int pvlockSample;
    private int pvlockBatch;
    private boolean preemptors;
    private List<Disk> disks = new ArrayList<>();
    private boolean rng;
    private Net net;
    private boolean virtioConsole;
    private Path resultsPort;
    private Vsock vsock;
    private Integer timeout;
    private Path statsJson;
    private final ProfileOptions profile = new ProfileOptions();
    private final RecordOption record = new RecordOption();

    private RunCommand() {}

    /** The model of {@code jkvm run}, its options bound to a new RunCommand, in the order help lists them. */
    static CommandSpec spec() {
        RunCommand c = new RunCommand();
        c.spec = CommandSpec.wrapWithoutInspection(c).defaultValueProvider(new RunConfigFile());
        c.spec.usageMessage().sortOptions(false)
                .description("Boots an arm64 Linux guest on this arm64 host's KVM; the guest's serial console is"
                        + " printed on stdout and reads stdin, jkvm's own report goes to stderr.")
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(HelpOptions.exitCodes(
                        "0:the guest powered off",
                        "1:jkvm failed (a KVM call, an exit it cannot handle)",
                        "2:bad input, or a host that cannot run it (not arm64, no KVM)",
                        "3:the guest panicked",
                        "4:the guest reset itself",
                        "5:the guest ran past --timeout",
                        "130:stopped by SIGINT (143: SIGTERM)"));
        c.addOptions();
        c.profile.addTo(c.spec);
        c.record.addTo(c.spec);
        HelpOptions.addTo(c.spec);
        return c.spec;
    }

    private void addOptions() {
        add(OptionBinding.option(RunConfigFile.OPTION, "FILE", Path.class, () -> configFile, v -> configFile = v)
                .description("Settings as key = value lines (kernel, initrd, cmdline, cpus, memory, pin, vmm-pin, pv, pmu, cpu,"
                        + " timeout, disk, disk.2, disk.3, ... (images in that order), rng, net); options given on the command line win."));
        add(OptionBinding.option("--kernel", "FILE", Path.class, () -> kernel, v -> kernel = v)
                .description("The guest kernel: an arm64 Image, plain or gzip-compressed."));
        add(OptionBinding.option("--initrd", "FILE", Path.class, () -> initrd, v -> initrd = v)
                .description("An initramfs."));
        add(OptionBinding.option("--cmdline", "TEXT", String.class, () -> cmdline, v -> cmdline = v)
                .defaultValue("console=ttyS0").description("The kernel command line (default: console=ttyS0)."));
        add(OptionBinding.option("--cpus", "N", int.class, () -> cpus, v -> cpus = v)
                .defaultValue("1").converters(new Converters.WholeNumber()).description("vCPUs (default: 1)."));
        add(OptionBinding.option("--memory", "SIZE", long.class, () -> memory, v -> memory = v)
                .defaultValue("512M").converters(new Converters.Size())
                .description("Guest RAM, e.g. 512M or 2G (default: 512M)."));
        add(OptionBinding.option("--pin", "CPUSET", BitSet.class, () -> pin, v -> pin = v)
                .converters(new Converters.Cpus()).description("Host CPUs the vCPU threads may run on, e.g. 0 or 0-3."));
        add(OptionBinding.option("--vmm-pin", "CPUSET", BitSet.class, () -> vmmPin, v -> vmmPin = v)
                .converters(new Converters.Cpus())
                .description("Host CPUs the rest of jkvm may run on (the JVM's own threads, the devices', the PV-lock"
                        + " thread; QEMU's emulator threads under libvirt's emulatorpin), so that none of them"
                        + " preempts a vCPU on its --pin. Needs --pin."));
        add(OptionBinding.option("--pv", "NAME=on|off", PvOptions.class, () -> pv, v -> pv = v)
                .converters(new Converters.Pv()).description("Paravirtual features (steal-time), e.g. steal-time=off."));
        add(OptionBinding.flag("--pmu", () -> pmu, v -> pmu = v)
                .description("Give the guest a PMUv3 where the host offers one (default: none; KVM"
                        + " backs its counters with host perf events, which oopsed a 6.12 host)."));
        add(OptionBinding.option("--cpu", "NAME=on|off", CpuOptions.class, () -> cpu, v -> cpu = v)
                .converters(new Converters.Cpu()).description("Optional CPU features of the vCPUs (ptrauth: pointer"
                        + " authentication, sve), each on where the host offers it as with QEMU's -cpu host; e.g. ptrauth=off,sve=off."));
        add(OptionBinding.option("--pvlock", "MODE", PvLockMode.class, () -> pvlock, v -> pvlock = v)
                .defaultValue("auto").converters(new Converters.PvLock())
                .description("PV-lock preempted flags: auto, kernel (host kernel with the series), userspace (jkvm"
                        + " writes them), off (default: ${DEFAULT-VALUE}), track-only (jkvm tracks and writes them as"
                        + " userspace does but offers the guest nothing: the tracker's cost alone)."));
        add(OptionBinding.option("--pvlock-sample", "HZ", int.class, () -> pvlockSample, v -> pvlockSample = v)
                .arity("0..1").defaultValue("" + PvLockDevice.DEFAULT_SAMPLE_HZ)
                .fallbackValue("" + PvLockDevice.MAX_SAMPLE_HZ).converters(new Converters.WholeNumber())
                .description("Kernel PV-lock mode: read the host kernel's preempted flags HZ times a second from jkvm,"
                        + " for the report (default ${DEFAULT-VALUE}; ${FALLBACK-VALUE} when given without HZ; 0: never)."));
        add(OptionBinding.option("--pvlock-batch", "MS", int.class, () -> pvlockBatch, v -> pvlockBatch = v)
                .defaultValue("0").converters(new Converters.WholeNumber())
                .description("Userspace and track-only PV-lock modes: the tracker wakes every MS milliseconds and reads"
                        + " the scheduler switches written meanwhile, instead of waking at each (default ${DEFAULT-VALUE}:"
                        + " at each; up to " + PvLockDevice.MAX_BATCH_MILLIS + "; with auto, where it tracks). Fewer wake-ups,"
                        + " flags up to MS later."));
        add(OptionBinding.flag("--preemptors", () -> preemptors, v -> preemptors = v)
                .description("Tell who kept the vCPU threads off their host CPUs: every scheduler switch on the"
                        + " CPUs of --pin (unpinned: all of jkvm's) is read, and each task that ran while a vCPU"
                        + " waited preempted is charged with that wait (another vCPU, jkvm's own threads, other"
                        + " processes); printed at the end. Needs root or CAP_PERFMON (or perf_event_paranoid <= 0)."));
        // The split serves the --config file's disk.N lines; hideParamSyntax keeps it out of the help.
        add(OptionBinding.list("--disk", "PATH[,ro][,serial=S]", Disk.class, () -> disks, v -> disks = v)
                .converters(new Converters.DiskImage()).splitRegex(RunConfigFile.DISK_SEPARATOR).hideParamSyntax(true)
                .description("A raw disk image (a whole number of 512-byte sectors) the guest gets as a virtio-blk"
                        + " device: /dev/vda, /dev/vdb, ... in the order given; ro: read-only; serial: its id. Repeatable."));
        add(OptionBinding.flag("--rng", () -> rng, v -> rng = v)
                .description("Give the guest a virtio-rng device, fed from the host's /dev/urandom."));
        add(OptionBinding.option("--net", "tap=NAME[,mac=M]", Net.class, () -> net, v -> net = v)
                .converters(new Converters.NetCard())
                .description("Give the guest a virtio-net card on the host's tap NAME (attached if it exists, created"
                        + " otherwise: that needs CAP_NET_ADMIN, and the tap lives as long as jkvm); mac: its address"
                        + " (default: 52:54:00 and three bytes from NAME)."));
        add(OptionBinding.flag("--virtio-console", () -> virtioConsole, v -> virtioConsole = v)
                .description("Give the guest a virtio-console: hvc0 (console=hvc0) prints where"
                        + " the serial console does, and reads stdin when it is the last console=;"
                        + " and the port " + VirtioConsole.RESULTS_PORT + " (see --results-port)."));
        add(OptionBinding.option("--results-port", "FILE", Path.class, () -> resultsPort, v -> resultsPort = v)
                .description("Give the guest a virtio-console (as --virtio-console)"
                        + " and write what it writes to the port " + VirtioConsole.RESULTS_PORT + " (/dev/vportNp1, N its virtio index)"
                        + " to FILE when the run ends."));
        add(OptionBinding.option("--vsock", "PATH[,cid=N]", Vsock.class, () -> vsock, v -> vsock = v)
                .converters(new Converters.VsockSocket())
                .description("Give the guest a virtio-vsock device (context id N, default 3): a host program connects to the"
                        + " Unix socket PATH and writes 'CONNECT <port>\\n' to reach the guest's port; the guest's connections"
                        + " to CID 2 port P reach the Unix socket PATH_P."));
        add(OptionBinding.option("--timeout", "SECONDS", Integer.class, () -> timeout, v -> timeout = v)
                .converters(new Converters.WholeNumber()).description("Stop the guest after this long (exit code 5)."));
        add(OptionBinding.option("--stats-json", "FILE", Path.class, () -> statsJson, v -> statsJson = v)
                .description("Write the run's statistics as JSON."));
    }

    private void add(OptionSpec.Builder option) {
        spec.addOption(option.build());
    }

    @Override
    public Integer call() throws Exception {
        StartupMarks.mark("options parsed");
        if (Arch.host() != Arch.AARCH64) {
            throw new UserError("jkvm run boots arm64 guests on an arm64 host with KVM; this host is "
                    + System.getProperty("os.arch") + ": use ./demo, which runs jkvm inside the emulated arm64 host");
        }
        VmConfig config = config();
        checkOutputs();
        Optional<SymbolTable> symbols = profile.check();
        PrintWriter err = spec.commandLine().getErr();
        WorkloadWindow window = new WorkloadWindow(new FileOutputStream(FileDescriptor.out));
        List<VmExtension.Attach> attach = new ArrayList<>(List.of(PvLockDevice.attaching(pvlock, pvlockSample, pvlockBatch),
                VcpuThreadTimes.attaching()));
        attach.addAll(profile.attach());
        if (preemptors) attach.add(PreemptorWatch.attaching());
        BitSet hostCpus = HostCpus.currentAffinity();
        try (ClaimedOutput stats = checkBeforeBoot(config, hostCpus);
             ClaimedFolder profiled = profile.claimOut();
             ClaimedOutput results = claimResults();
             ClaimedOutput recorded = record.claim()) {
            // Before any thread of the VM starts: the vCPU threads leave it for --pin, the PV-lock
            // thread's CPUs are taken from it, and the threads these make later inherit it (one a
            // vCPU thread makes starts on --pin instead).
            if (vmmPin != null) HostCpus.pinProcess(vmmPin);
            try (FlightRecording recording = record.start();
                 Kvm kvm = Kvm.open();
                 Launch launch = Launch.prepare(kvm, config, window.console(), attach)) {
                Arm64Vm vm = launch.vm();
                if (stats != null) vm.timeExits(); // only --stats-json reports the times
                PvLockDevice pvLock = launch.extension(PvLockDevice.class);
                Optional<PreemptorWatch> watch = preemptors ? Optional.of(launch.extension(PreemptorWatch.class)) : Optional.empty();
                window.watch(launch, watch, pvLock);
                SetUpLines.print(err, config, vm, pvLock, resultsPort);
                Signal.handle(new Signal("INT"), s -> launch.stop("SIGINT"));
                Signal.handle(new Signal("TERM"), s -> launch.stop("SIGTERM"));
                RunReport run;
                try (RawStdin keys = RawStdin.enter()) {
                    ConsoleInput.forward(new FileInputStream(FileDescriptor.in), vm.consoleInput());
                    run = launch.run();
                }
                Optional<WorkloadWindow.Figures> workload = window.figures(launch, watch, config.pin() != null ? config.pin() : hostCpus);
                RunSummary.print(err, run, pvLock);
                workload.ifPresent(w -> RunSummary.printWorkload(err, w, config.cpus()));
                if (preemptors) {
                    PreemptorsText.print(err, watch.get().preemptors(), "");
                    workload.flatMap(WorkloadWindow.Figures::preemptors).ifPresent(p -> PreemptorsText.print(err, p, " over the workload"));
                }
                profile.report(launch, symbols, run.kvm(), workload, err, profiled);
                RecordOption.write(recording, recorded);
                if (stats != null) stats.write(Json.pretty(RunStatsJson.of(run, pvLock, workload)) + "\n");
                if (results != null) {
                    byte[] port = vm.resultsPort(); // the guest's bytes as they are, not decoded as text
                    results.produce(file -> Files.write(file, port));
                }
                return exitCode(run.outcome());
            }
        }
    }

    /**
     * What can fail before KVM is opened, so a long run does not fail at its start or end on it: the
     * pin sets against the CPUs this process may run on ({@code hostCpus}), --vmm-pin without --pin or
     * sharing a CPU with it,
     * and the --stats-json file, claimed now. Returns that claim, or null without --stats-json.
     */
    ClaimedOutput checkBeforeBoot(VmConfig config, BitSet hostCpus) {
        if (config.pin() != null) CpuSet.checkWithin("pin", config.pin(), hostCpus);
        if (vmmPin != null) {
            if (config.pin() == null) {
                throw new SettingException("vmm-pin", CpuSet.format(vmmPin),
                        "without --pin the vCPU threads would run there too: give --pin with the CPUs they may use");
            }
            CpuSet.checkWithin("vmm-pin", vmmPin, hostCpus);
            CpuSet.checkApart("vmm-pin", vmmPin, "--pin", config.pin());
        }
        return statsJson == null ? null : ClaimedOutput.claim("--stats-json", statsJson);
    }

    /** The --results-port file, claimed before KVM is opened; null without the option. */
    ClaimedOutput claimResults() {
        return resultsPort == null ? null : ClaimedOutput.claim("--results-port", resultsPort);
    }

    /** --record, to claim and start before the VM is built. */
    RecordOption record() {
        return record;
    }

    /** The VM the options describe; picocli has filled them from the command line, then the --config file. */
    VmConfig config() {
        return new VmConfig(kernel, initrd, cmdline, cpus, memory, pin, pv, pmu, cpu,
                timeout == null ? null : Duration.ofSeconds(timeout), disks, rng, virtioConsole || resultsPort != null,
                vsock, net);
    }

    /** Refuses a --stats-json, --profile-out, --results-port or --record that would replace one of the run's inputs, before the guest runs. */
    void checkOutputs() throws IOException {
        Map<Path, String> outputs = new LinkedHashMap<>();
        if (statsJson != null) outputs.put(statsJson, "--stats-json");
        if (resultsPort != null) outputs.put(resultsPort, "--results-port");
        profile.addOutputs(outputs);
        record.addOutputs(outputs);
        if (outputs.isEmpty()) return;
        Map<Path, String> inputs = new LinkedHashMap<>();
        inputs.put(kernel, "the kernel");
        if (initrd != null) inputs.put(initrd, "the initrd");
        if (configFile != null) inputs.put(configFile, "the " + RunConfigFile.OPTION + " file");
        for (Disk d : disks) inputs.put(d.path(), "a --disk image");
        profile.addInputs(inputs);
        OutputFile.refuseOverInputs(outputs, inputs, "choose another file");
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
}
