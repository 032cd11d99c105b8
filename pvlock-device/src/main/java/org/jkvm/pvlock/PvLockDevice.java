package org.jkvm.pvlock;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Optional;

import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.arch.aarch64.Arm64Vm;
import org.jkvm.vmm.config.SettingException;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.memory.MemoryRegion;

/**
 * The arm64 PV-lock device: gives each vCPU a {@code preempted} flag the guest's
 * {@code vcpu_is_preempted()} reads, the way the mode says (see {@link PvLockMode}), and makes
 * the guest's discovery calls (vendor-hyp features, bit 2; the PV-lock call) work. Attach it to
 * a built {@link Arm64Vm} before the VM runs; a launch does that through {@link #attaching}.
 * Under a JFR recording its counters are recorded each second as {@code org.jkvm.PvLock} events.
 */
public final class PvLockDevice implements VmExtension {
    /** Kernel mode's flag reads a second unless told otherwise (see {@link KernelFlagSampler}). */
    public static final int DEFAULT_SAMPLE_HZ = 100;
    /** The most flag reads a second: one a millisecond. */
    public static final int MAX_SAMPLE_HZ = 1000;
    /**
     * The longest batch period of the userspace tracker, in milliseconds: a vCPU thread's ring holds
     * ~1300 switch records (in the emulated host none was dropped in 50 ms periods with 4 vCPUs on
     * 2 CPUs beside two hogs: Arm64PvLockTest); a thread switching faster fills it, and the tracker
     * says what the kernel dropped.
     */
    public static final int MAX_BATCH_MILLIS = 100;

    private static final System.Logger LOG = System.getLogger(PvLockDevice.class.getName());

    private final PvLockSupport.Resolution resolution;
    private final PvLockRegion region;
    private final PvLockStats stats;
    private final boolean answeredByJkvm;
    private final UserspacePreemptionTracker tracker;
    private final KernelFlagSampler sampler;
    private final TrackerCpus threadCpus;
    private final PvLockEvents events;

    private PvLockDevice(PvLockSupport.Resolution resolution, PvLockRegion region, PvLockStats stats,
                         boolean answeredByJkvm, UserspacePreemptionTracker tracker, KernelFlagSampler sampler,
                         TrackerCpus threadCpus) {
        this.events = new PvLockEvents(stats);
        this.resolution = resolution;
        this.region = region;
        this.stats = stats;
        this.answeredByJkvm = answeredByJkvm;
        this.tracker = tracker;
        this.sampler = sampler;
        this.threadCpus = threadCpus;
    }

    /** What this host offers, probed on the VM and its first vCPU. */
    public static PvLockSupport probe(Arm64Vm vm) {
        VcpuFd v0 = vm.vcpus().getFirst();
        return new PvLockSupport(
                v0.hasDeviceAttr(KvmArm64.KVM_ARM_VCPU_PVLOCK_CTRL(), KvmArm64.KVM_ARM_VCPU_PVLOCK_IPA()),
                vm.vm().hasDeviceAttr(KvmArm64.KVM_ARM_VM_SMCCC_CTRL(), KvmArm64.KVM_ARM_VM_SMCCC_FILTER()));
    }

    /**
     * How a launch attaches the device in the mode {@code requested} resolves to, sampling at the
     * default rate, its tracker waking at each switch record.
     */
    public static VmExtension.Attach attaching(PvLockMode requested) {
        return attaching(requested, DEFAULT_SAMPLE_HZ, 0);
    }

    /**
     * How a launch attaches the device in the mode {@code requested} resolves to; in kernel
     * mode jkvm reads the flags {@code sampleHz} times a second (0: not at all); in userspace
     * and track-only modes the tracker reads the switch records every {@code batchMillis}
     * milliseconds (0: as each is written; at most {@link #MAX_BATCH_MILLIS}; a period with
     * off or kernel mode, which run no tracker, is refused; auto uses it where it tracks).
     */
    public static VmExtension.Attach attaching(PvLockMode requested, int sampleHz, int batchMillis) {
        if (sampleHz < 0 || sampleHz > MAX_SAMPLE_HZ) {
            throw new SettingException("pvlock-sample", sampleHz, "use 0 (no sampling) to " + MAX_SAMPLE_HZ + " reads a second");
        }
        if (batchMillis < 0 || batchMillis > MAX_BATCH_MILLIS) {
            throw new SettingException("pvlock-batch", batchMillis, "use 0 (read each switch record as it is written) to "
                    + MAX_BATCH_MILLIS + " milliseconds between reads");
        }
        if (batchMillis > 0 && !requested.mayTrack()) {
            throw new SettingException("pvlock-batch", batchMillis, "it paces the userspace tracker, which pvlock "
                    + requested.cliName() + " does not run: use it with userspace, track-only or auto, or leave it out");
        }
        return vm -> attach(vm, requested, sampleHz, batchMillis);
    }

    /**
     * Sets the device up on {@code vm} in the mode {@code requested} resolves to; in kernel
     * mode jkvm reads the flags {@code sampleHz} times a second (0: not at all), in userspace and
     * track-only modes the tracker reads the switch records every {@code batchMillis} ms (0: as
     * each is written). A mode the host cannot do is an {@link IllegalArgumentException} naming
     * what is missing.
     */
    static PvLockDevice attach(Arm64Vm vm, PvLockMode requested, int sampleHz, int batchMillis) {
        PvLockSupport support = probe(vm);
        List<VcpuFd> vcpus = vm.vcpus();
        TrackerCpus trackerCpus = TrackerCpus.of(vcpus.size(), vm.config().pin());
        PvLockSupport.Resolution r = support.resolve(requested, trackerCpus.ownCpu());
        PvLockStats stats = new PvLockStats(vcpus.size());
        long bmapReg = KvmArm64.KVM_REG_ARM_VENDOR_HYP_BMAP();
        long kernelBitmap = vcpus.getFirst().getOneReg(bmapReg);
        boolean offered = r.mode() != PvLockMode.OFF && r.mode() != PvLockMode.TRACK_ONLY;
        // A host kernel with the series may advertise PV lock itself: take the bit away.
        if (!offered && (kernelBitmap & PvLockCalls.PV_LOCK_BIT) != 0) {
            vcpus.getFirst().setOneReg(bmapReg, kernelBitmap & ~PvLockCalls.PV_LOCK_BIT);
        }
        if (r.mode() == PvLockMode.OFF) return new PvLockDevice(r, null, stats, false, null, null, trackerCpus);
        MemoryRegion mem = vm.memory().add("pvlock", MemoryRegion.Kind.RESERVED, Arm64Layout.PVLOCK,
                Arm64Layout.pvRegionSize(vcpus.size()), false);
        PvLockRegion region = new PvLockRegion(mem, vcpus.size());
        if (r.mode() == PvLockMode.KERNEL) {
            int group = KvmArm64.KVM_ARM_VCPU_PVLOCK_CTRL();
            long attr = KvmArm64.KVM_ARM_VCPU_PVLOCK_IPA();
            for (VcpuFd v : vcpus) {
                // The kernel does not write the structure when the attribute is set (it has no
                // running vCPU then): "not running yet" until the vCPU first enters the guest.
                region.setPreempted(v.id(), true);
                v.setDeviceAttr(group, attr, region.address(v.id()));
                long back = v.getDeviceAttr(group, attr);
                if (back != region.address(v.id())) {
                    throw new IllegalStateException(v.description() + ": KVM_ARM_VCPU_PVLOCK_IPA reads back 0x"
                            + Long.toHexString(back) + ", not 0x" + Long.toHexString(region.address(v.id())));
                }
            }
        }
        UserspacePreemptionTracker tracker = null;
        if (r.mode() == PvLockMode.USERSPACE || r.mode() == PvLockMode.TRACK_ONLY) {
            tracker = new UserspacePreemptionTracker(region, stats, vcpus.size(), trackerCpus, batchMillis);
            vm.addRunListener(tracker);
        }
        if (!offered) {
            // The guest never learns the structures' address, so it never reads the flags written there.
            tracker.trackFromStart();
            return new PvLockDevice(r, region, stats, false, tracker, null, trackerCpus);
        }
        boolean byJkvm = support.filter();
        if (byJkvm) {
            PvLockCalls calls = new PvLockCalls(kernelBitmap, region, stats, tracker);
            vm.smcccHandlers().add("pvlock features", PvLockCalls.FEATURES, 1, calls);
            vm.smcccHandlers().add("pvlock", PvLockCalls.PV_LOCK, 1, calls);
        } else {
            // Kernel mode on a host without the filter: the kernel answers both calls once bit 2 is on.
            vcpus.getFirst().setOneReg(bmapReg, kernelBitmap | PvLockCalls.PV_LOCK_BIT);
            LOG.log(Level.INFO, "no SMCCC filter on this host: the kernel answers the PV-lock calls itself");
        }
        KernelFlagSampler sampler = r.mode() == PvLockMode.KERNEL && sampleHz > 0
                ? new KernelFlagSampler(region, stats, vcpus.size(), sampleHz, trackerCpus) : null;
        return new PvLockDevice(r, region, stats, byJkvm, tracker, sampler, trackerCpus);
    }

    /** The mode in force and why. */
    public PvLockSupport.Resolution resolution() {
        return resolution;
    }

    /** The structures, or null when off. */
    public PvLockRegion region() {
        return region;
    }

    /** The counters. */
    public PvLockStats stats() {
        return stats;
    }

    /** Whether jkvm answers the guest's discovery calls (else the host kernel does, or nothing is offered). */
    public boolean answeredByJkvm() {
        return answeredByJkvm;
    }

    /** Whether the guest is offered the flags: not when off, nor in {@link PvLockMode#TRACK_ONLY}. */
    public boolean offered() {
        return region != null && resolution.mode() != PvLockMode.TRACK_ONLY;
    }

    /**
     * How much each vCPU's flag has read 1 so far, one edge of a window of the run (a workload's);
     * empty where nothing measures it (PV lock off, kernel mode with {@code --pvlock-sample=0}).
     * Quick, callable from a vCPU thread; {@link FlagMark#meanShare} of two marks is the window's share.
     */
    public Optional<FlagMark> flagMark() {
        if (tracker != null) return Optional.of(tracker.mark());
        if (sampler != null) return Optional.of(stats.sampledMark());
        return Optional.empty();
    }

    /** Kernel mode: whether jkvm samples the host kernel's flags (not with {@code --pvlock-sample=0}). */
    public boolean sampling() {
        return sampler != null;
    }

    /**
     * Where jkvm's own PV-lock thread runs (userspace mode's tracker once the guest's first
     * PV-lock call started it, kernel mode's sampler) and whether one of those CPUs is its own;
     * empty where neither runs. Without a CPU of its own each of its wake-ups can preempt a vCPU
     * it measures: the vCPUs of an idle 4-vCPU guest on the emulated host's 2 CPUs waited
     * 1.4-2.7x as long in userspace mode as in kernel mode, and both modes flagged the same share
     * per second waited once the vCPUs left the tracker a CPU (kernel/NOTES.md, I1/I2).
     */
    public Optional<TrackerCpus> threadCpus() {
        boolean runs = tracker != null && tracker.ranOn() != null || sampler != null;
        return runs ? Optional.of(threadCpus) : Optional.empty();
    }

    /** Userspace mode: where the scheduler's switches come from (idle until the guest's first PV-lock call); null in other modes. */
    public String switchSource() {
        return tracker == null ? null : tracker.switchSource();
    }

    /** One line for the user: mode, reason, where the structures are. */
    @Override
    public String describe() {
        String where = region == null ? "" : ", structures at 0x" + Long.toHexString(region.region().gpa())
                + " (" + region.region().size() / 1024 + " KiB)";
        return "PV lock " + resolution.mode().cliName() + " (" + resolution.reason() + ")" + where
                + (offered() && !answeredByJkvm ? ", calls answered by the host kernel" : "");
    }

    /** Stops tracking and sampling, so the counters describe the run alone. */
    @Override
    public void vmStopped() {
        if (tracker != null) tracker.close();
        if (sampler != null) sampler.close();
        stats.finish();
        events.emit();
    }

    @Override
    public void close() {
        vmStopped();
        events.close();
    }
}
