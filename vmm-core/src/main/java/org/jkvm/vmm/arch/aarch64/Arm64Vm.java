package org.jkvm.vmm.arch.aarch64;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import org.jkvm.kvm.Arm64;
import org.jkvm.kvm.Capability;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.StartupMarks;
import org.jkvm.vmm.StopMarks;
import org.jkvm.vmm.VcpuThreads;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.arch.aarch64.fdt.ArmDeviceTree;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.KernelConsole;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.config.Vsock;
import org.jkvm.vmm.devices.ConsoleReceiver;
import org.jkvm.vmm.devices.PanicWatcher;
import org.jkvm.vmm.devices.Uart16550;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;
import org.jkvm.vmm.memory.GuestMemory;
import org.jkvm.vmm.memory.MemoryRegion;
import org.jkvm.vmm.vcpu.VcpuLoop;
import org.jkvm.vmm.vcpu.VcpuRunListener;
import org.jkvm.vmm.vcpu.VcpuStats;
import org.jkvm.vmm.virtio.PortCapture;
import org.jkvm.vmm.virtio.VirtioBlk;
import org.jkvm.vmm.virtio.VirtioConsole;
import org.jkvm.vmm.virtio.VirtioNet;
import org.jkvm.vmm.virtio.VirtioRng;
import org.jkvm.vmm.virtio.VirtioVsock;

/**
 * jkvm's arm64 machine, built from a {@link VmConfig} in the order KVM requires: VM, RAM,
 * vCPUs (KVM_ARM_VCPU_INIT with PSCI 0.2, pointer authentication and SVE where offered ({@link GuestCpu}), a
 * PMUv3 if asked for and offered, secondaries powered off), the
 * GICv3 and ITS, the UART, the virtio devices (disks, entropy, console, vsock, then network), PV steal time, then the kernel,
 * initrd and device tree in RAM and
 * vCPU 0's boot registers. {@link #run} starts the vCPUs and returns how the guest ended.
 */
public final class Arm64Vm implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Arm64Vm.class.getName());
    private static final String URANDOM = "/dev/urandom";
    private static final PlatformDevice UART = new PlatformDevice("uart",
            new MmioWindow(Arm64Layout.UART, Arm64Layout.UART_WINDOW, Uart16550.SIZE),
            Arm64Layout.UART_SPI, DeviceTreeSpec.Binding.NS16550A);
    /** The most bytes of the results port kept: results are lines of text, not bulk data. */
    private static final int RESULTS_LIMIT = 16 << 20;

    private final VmConfig config;
    private final VmFd vm;
    private final GuestMemory memory;
    private final List<VcpuFd> vcpus = new ArrayList<>();
    private final MmioBus mmio = new MmioBus();
    private final HypercallBus hypercalls = new HypercallBus();
    private final PlatformDevices devices;
    private final SmcccHandlers smcccHandlers;
    private final PanicWatcher panicWatcher;
    private final PortCapture results = new PortCapture(VirtioConsole.RESULTS_PORT, RESULTS_LIMIT);
    private GicV3 gic;
    private Uart16550 uart;
    private VirtioConsole hvc;
    private VirtioSlots virtio;
    private volatile VcpuThreads threads;
    private MemoryRegion pvTime;
    private GuestCpu guestCpu;
    private BootLayout boot;
    private Duration setupTime;
    private VcpuRunListener runListener;
    private boolean timeExits;
    private CompletableFuture<Optional<String>> guestKernelRelease;

    private Arm64Vm(Kvm kvm, VmConfig config, OutputStream consoleOut) {
        this.config = config;
        this.panicWatcher = new PanicWatcher(consoleOut);
        this.vm = kvm.createVm();
        this.memory = new GuestMemory(vm);
        this.devices = new PlatformDevices(mmio, spi -> new SpiLine(vm, spi));
        this.smcccHandlers = new SmcccHandlers(hypercalls,
                (first, count) -> vm.setSmcccFilter(first, count, Arm64.SmcccAction.FORWARD_TO_USER));
    }

    /**
     * Builds the VM for {@code config} on this arm64 host; nothing runs yet. Problems with the
     * inputs (kernel, initrd, sizes) are {@link IllegalArgumentException}s naming the fix.
     */
    public static Arm64Vm create(Kvm kvm, VmConfig config, OutputStream consoleOut) throws IOException {
        config.checkAgainstHost(kvm.check(Capability.MAX_VCPUS));
        ArmImage image = BootLayout.readKernel(config.kernel(), config.memory());
        // Sizes and headers only: the kernel and initrd go from their files straight into guest RAM in build.
        long initrdSize = config.initrd() == null ? 0 : InputFile.checkedSize(config.initrd(), new InputKind("an initrd", config.memory()));
        StartupMarks.mark("kernel and initrd checked");
        long t0 = System.nanoTime();
        Arm64Vm v = new Arm64Vm(kvm, config, consoleOut);
        try {
            v.build(image, initrdSize);
            // Off the set-up path, asked for at the end; the C library's search keeps it short, since it shares the
            // host's CPUs with the guest's first boot phase (bench/boot/README.md, 2026-12-03).
            v.guestKernelRelease = CompletableFuture.supplyAsync(image::release, Thread::startVirtualThread);
            v.setupTime = Duration.ofNanos(System.nanoTime() - t0);
            return v;
        } catch (RuntimeException | IOException e) {
            v.close();
            throw e;
        }
    }

    private void build(ArmImage image, long initrdSize) throws IOException {
        // An access KVM cannot decode becomes an exit the run loop answers with a data abort;
        // without it KVM_RUN fails with ENOSYS and one guest instruction would end the VM.
        if (vm.check(Capability.ARM_NISV_TO_USER) > 0 && vm.check(Capability.ARM_INJECT_EXT_DABT) > 0) {
            vm.enableCap(Capability.ARM_NISV_TO_USER);
        }
        memory.add("ram", MemoryRegion.Kind.RAM, Arm64Layout.RAM_BASE, config.memory(), true);
        boot = BootLayout.place(image, initrdSize, config.memory());
        PayloadLoad load = PayloadLoad.start(image, memory.slice(boot.kernel(), image.kernel().size()), config.initrd(),
                config.initrd() == null ? null : memory.slice(boot.initrd(), initrdSize));
        try {
            buildWhileLoading(initrdSize);
        } catch (Throwable t) {
            load.awaitAfter(t);   // before the caller's close() unmaps what the copy writes
            throw t;
        }
        load.await();
        StartupMarks.mark("kernel and initrd in guest RAM");
    }

    /** The rest of {@link #build}, while {@link PayloadLoad} copies the kernel and initrd into RAM. */
    private void buildWhileLoading(long initrdSize) throws IOException {
        GuestPmu pmu = GuestPmu.choose(config.pmu(), vm.check(Capability.ARM_PMU_V3) > 0);
        guestCpu = GuestCpu.choose(config.cpu(),
                vm.check(Capability.ARM_PTRAUTH_ADDRESS) > 0 && vm.check(Capability.ARM_PTRAUTH_GENERIC) > 0,
                vm.check(Capability.ARM_SVE) > 0);
        Arm64.VcpuInit init = guestCpu.features(pmu.features(vm.armPreferredTarget().with(KvmArm64.KVM_ARM_VCPU_PSCI_0_2())));
        for (int i = 0; i < config.cpus(); i++) {
            VcpuFd v = vm.createVcpu(i);
            vcpus.add(v);
            v.armVcpuInit(i == 0 ? init : init.with(KvmArm64.KVM_ARM_VCPU_POWER_OFF()));
            guestCpu.finish(v::armVcpuFinalize);
        }
        StartupMarks.mark("VM, RAM and vCPUs created");
        gic = GicV3.create(vm, config.cpus(), true);
        pmu.setUp(vcpus);
        uart = devices.add(UART, irq -> new Uart16550(panicWatcher, irq));
        virtio = new VirtioSlots(vm, devices, memory::slice);
        List<Disk> disks = config.disks();
        for (int i = 0; i < disks.size(); i++) virtio.add(VirtioBlk.open("virtio-blk" + i, disks.get(i)));
        if (config.rng()) virtio.add(new VirtioRng("virtio-rng"));
        if (config.console()) {
            hvc = new VirtioConsole("virtio-console", panicWatcher, results);
            virtio.add(hvc);
        }
        Vsock vs = config.vsock();
        if (vs != null) virtio.add(new VirtioVsock("virtio-vsock", vs.socket(), vs.guestCid()));
        if (config.net() != null) virtio.add(VirtioNet.open("virtio-net", config.net()));
        if (config.pv().stealTime()) enableStealTime();
        StartupMarks.mark("GIC, UART and steal time set up");

        List<Long> mpidrs = new ArrayList<>();
        for (VcpuFd v : vcpus) mpidrs.add(v.getOneReg(KvmArm64.JKVM_REG_ARM64_MPIDR_EL1()));
        byte[] dtb = ArmDeviceTree.build(deviceTree(mpidrs, initrdSize, pmu.on()));
        if (dtb.length > Arm64Layout.FDT_MAX) throw new IllegalStateException("device tree of " + dtb.length + " bytes exceeds 2 MiB");
        memory.write(boot.fdt(), dtb);
        StartupMarks.mark("device tree built");

        VcpuFd boot0 = vcpus.getFirst();
        boot0.setOneReg(KvmArm64.JKVM_REG_ARM64_PSTATE(), KvmArm64.JKVM_ARM64_PSTATE_EL1H_DAIF());
        boot0.setOneReg(KvmArm64.JKVM_REG_ARM64_PC(), boot.kernel());
        long x0 = KvmArm64.JKVM_REG_ARM64_X0();
        long stride = KvmArm64.JKVM_REG_ARM64_CORE_X_STRIDE();
        boot0.setOneReg(x0, boot.fdt());
        for (int i = 1; i <= 3; i++) boot0.setOneReg(x0 + stride * i, 0);
    }

    private void enableStealTime() {
        VcpuFd probe = vcpus.getFirst();
        int group = KvmArm64.KVM_ARM_VCPU_PVTIME_CTRL();
        long attr = KvmArm64.KVM_ARM_VCPU_PVTIME_IPA();
        if (!probe.hasDeviceAttr(group, attr)) {
            LOG.log(Level.INFO, "this host offers no PV steal time; the guest runs without it");
            return;
        }
        pvTime = memory.add("pvtime", MemoryRegion.Kind.RESERVED, Arm64Layout.PVTIME,
                Arm64Layout.pvRegionSize(config.cpus()), false);
        for (VcpuFd v : vcpus) v.setDeviceAttr(group, attr, Arm64Layout.PVTIME + Arm64Layout.PV_STRUCT * v.id());
    }

    private DeviceTreeSpec deviceTree(List<Long> mpidrs, long initrdSize, boolean pmu) {
        byte[] seed = rngSeed();
        return new DeviceTreeSpec(
                mpidrs,
                new DeviceTreeSpec.Region(Arm64Layout.RAM_BASE, config.memory()),
                new DeviceTreeSpec.Gic(
                        new DeviceTreeSpec.Region(Arm64Layout.GIC_DIST, GicV3.distributorSize()),
                        new DeviceTreeSpec.Region(Arm64Layout.GIC_REDIST, GicV3.redistributorSize(config.cpus())),
                        gic.hasIts() ? OptionalLong.of(Arm64Layout.GIC_ITS) : OptionalLong.empty()),
                devices.treeNodes(),
                config.cmdline(),
                config.initrd() == null ? Optional.empty() : Optional.of(new DeviceTreeSpec.Region(boot.initrd(), initrdSize)),
                seed,
                pmu);
    }

    /**
     * 64 random bytes for /chosen/rng-seed, read from the kernel's pool: SecureRandom would read the
     * same pool after setting up the JDK's security providers, ~1 s in the emulated arm64 host.
     */
    private static byte[] rngSeed() {
        try (FileInputStream in = new FileInputStream(URANDOM)) {
            return in.readNBytes(64);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + URANDOM + " for the device tree's rng-seed", e);
        }
    }

    /** Where the kernel, initrd and device tree went. */
    public BootLayout bootLayout() {
        return boot;
    }

    /** The steal-time region, or null when steal time is off or not offered. */
    public MemoryRegion stealTimeRegion() {
        return pvTime;
    }

    /** The optional CPU features the vCPUs have. */
    public GuestCpu guestCpu() {
        return guestCpu;
    }

    /** The release the guest kernel's banner names (e.g. 6.12.117+deb12-arm64), if it has one. */
    public Optional<String> guestKernelRelease() {
        return guestKernelRelease.join();
    }

    /** How long building the VM took (VM, memory, vCPUs, GIC, payload). */
    public Duration setupTime() {
        return setupTime;
    }

    /** Where devices declare the SMCCC calls jkvm answers (pvlock-device's two). */
    public SmcccHandlers smcccHandlers() {
        return smcccHandlers;
    }

    /** The VM fd, for devices that need it before the vCPUs start. */
    public VmFd vm() {
        return vm;
    }

    /** The vCPUs, in id order. */
    public List<VcpuFd> vcpus() {
        return List.copyOf(vcpus);
    }

    /** Guest memory. */
    public GuestMemory memory() {
        return memory;
    }

    /** The UART, e.g. to feed it console input. */
    public Uart16550 uart() {
        return uart;
    }

    /**
     * Where console input goes: the console the guest's kernel writes to, hvc0 (the
     * virtio-console's port 0) when the last console= of its command line names an hvc, otherwise
     * the UART (the device tree's stdout-path, the kernel's console without a console=).
     */
    public ConsoleReceiver consoleInput() {
        return hvc != null && KernelConsole.last(config.cmdline()).startsWith("hvc") ? hvc : uart;
    }

    /** What the guest wrote to the virtio-console's {@link VirtioConsole#RESULTS_PORT} port (up to 16 MiB). */
    public byte[] resultsPort() {
        return results.toByteArray();
    }

    /**
     * Adds a listener told as each vCPU enters and leaves KVM_RUN, after those added before it, on
     * the same thread; call before {@link #run}.
     */
    public void addRunListener(VcpuRunListener listener) {
        this.runListener = runListener == null ? listener : VcpuRunListener.both(runListener, listener);
    }

    /**
     * Has every vCPU time its stays inside and outside KVM_RUN ({@link VcpuLoop#timeExits}), for a
     * front end that reports them; call before {@link #run}.
     *
     * @throws IllegalStateException after {@link #run} has started the vCPUs' loops, untimed
     */
    public void timeExits() {
        if (threads != null) throw new IllegalStateException("timeExits() after run(): the vCPUs' loops are already built");
        timeExits = true;
    }

    /** The configuration it was built from. */
    public VmConfig config() {
        return config;
    }

    /** Starts the vCPUs (pinned as configured) and waits until the guest ends or the timeout. */
    public VmOutcome run() throws InterruptedException {
        VcpuThreads t = new VcpuThreads(vcpus);
        SmcccRegisters regs = new SmcccRegisters();
        PsciEvents events = new PsciEvents(panicWatcher);
        for (VcpuFd v : vcpus) {
            VcpuLoop loop = new VcpuLoop(v, mmio, hypercalls, regs, events, t, config.pin(), runListener);
            t.addLoop(timeExits ? loop.timeExits() : loop);
        }
        threads = t; // published whole: a sampler on another thread reads its counters as it runs
        t.start();
        StartupMarks.mark("vCPU threads started");
        VmOutcome outcome = t.await(config.timeout());
        uart.flush();
        return outcome;
    }

    /** Stops a running VM from another thread (e.g. on SIGINT). */
    public void stop(String reason) {
        VcpuThreads t = threads;
        if (t != null) t.stop(reason);
    }

    /**
     * Each vCPU's counters, in id order: complete once {@link #run} has returned; while it runs,
     * only {@link VcpuStats#exitsNow} may be read; none before it starts.
     */
    public List<VcpuStats> vcpuStats() {
        VcpuThreads t = threads;
        return t == null ? List.of() : t.stats();
    }

    /** Guest accesses to addresses no device owns. */
    public long strayMmio() {
        return mmio.strayAccesses();
    }

    /** Guest calls of SMCCC function ids KVM forwarded and no device owns. */
    public long unknownHypercalls() {
        return hypercalls.unknownCalls();
    }

    /**
     * Releases the VM. A vCPU thread that has not returned within the join limit still uses its
     * kvm_run mapping and guest memory: unmapping them under it would crash the JVM, so then
     * they stay mapped (and the fds open) until the process ends.
     */
    @Override
    public void close() {
        // The release search reads the kernel's file on a thread of its own: a VM closed before the
        // search ends (a set-up refused after the VM was made) waits for it, or the file stays open.
        CompletableFuture<Optional<String>> release = guestKernelRelease;
        if (release != null) release.handle((r, e) -> r).join();
        if (virtio != null) virtio.close(); // the workers use guest memory: they stop before it goes
        VcpuThreads t = threads;
        if (t != null && !t.allThreadsEnded()) {
            LOG.log(Level.WARNING, "vCPU threads still running: guest memory and vCPUs stay mapped until jkvm exits");
            return;
        }
        for (VcpuFd v : vcpus) v.close();
        StopMarks.mark(vcpus.size() + " vCPUs closed");
        if (gic != null) gic.close();
        vm.close();
        StopMarks.mark("VM closed");
        memory.close();
        StopMarks.mark("guest memory released");
    }
}
