package org.jkvm.vmm.profile;

import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.OptionalLong;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.ThreadCpuTimer;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.jfr.GuestSampleEvent;
import org.jkvm.vmm.launch.VmExtension;
import org.jkvm.vmm.memory.GuestMemory;
import org.jkvm.vmm.vcpu.VcpuRunListener;

/**
 * Samples where each vCPU is, from the VMM side (no agent in the guest): every vCPU thread gets
 * a timer on its own CPU time ({@link ThreadCpuTimer}) which interrupts KVM_RUN; the thread
 * then reads the guest's PC and PSTATE (in the kernel also its frame records, through its own
 * page tables: {@link KernelFrames}) and goes back in. Time a vCPU spends preempted on the
 * host or halted in the guest is no CPU time, so it is never sampled as if it ran. Each sample
 * is weighted by the periods of CPU time it stands for. A period that ended while the thread
 * was outside KVM_RUN (jkvm handling an exit) is taken at the next entry and counted as
 * {@link VcpuSamples#VMM}, not charged to the guest: the thread's CPU time is read at each
 * entry while profiling. Under a JFR recording each guest sample is also an
 * {@code org.jkvm.GuestSample} event. Arm64 guests.
 */
public final class GuestProfiler implements VmExtension, VcpuRunListener {
    private static final System.Logger LOG = System.getLogger(GuestProfiler.class.getName());
    private static final long PC = KvmArm64.JKVM_REG_ARM64_PC();
    private static final long PSTATE = KvmArm64.JKVM_REG_ARM64_PSTATE();
    private static final long VBAR_EL1 = KvmArm64.JKVM_REG_ARM64_VBAR_EL1();
    private static final long X29 = KvmArm64.JKVM_REG_ARM64_X0() + 29 * KvmArm64.JKVM_REG_ARM64_CORE_X_STRIDE();
    private static final long TTBR1_EL1 = KvmArm64.JKVM_REG_ARM64_TTBR1_EL1();
    private static final long TCR_EL1 = KvmArm64.JKVM_REG_ARM64_TCR_EL1();
    private static final int EL1 = 1;
    /** The PC of a vCPU that has never run: no guest jkvm boots executes at address 0. */
    private static final long NOT_STARTED = 0;
    /** PSTATE.M[4] set: the vCPU was in AArch32 (only at EL0 under arm64 KVM). */
    private static final long PSTATE_AARCH32 = 1L << 4;

    private final int hz;
    private final long periodNanos;
    private final List<VcpuFd> vcpus;
    private final VcpuSamples[] samples;
    private final ThreadCpuTimer[] timers;
    private final long[] nextDue;
    private final long[] startCpu;
    private final long[] cpuAtEntry;
    private final MemorySegment[] clocks;
    private final long[][] returns;
    private final KernelFrames frames;
    private final Arena arena = Arena.ofShared();
    private volatile OptionalLong vbar = OptionalLong.empty();

    private GuestProfiler(int hz, List<VcpuFd> vcpus, GuestMemory memory) {
        this.hz = hz;
        this.periodNanos = 1_000_000_000L / hz;
        this.vcpus = List.copyOf(vcpus);
        int n = vcpus.size();
        this.samples = new VcpuSamples[n];
        this.timers = new ThreadCpuTimer[n];
        this.nextDue = new long[n];
        this.startCpu = new long[n];
        this.cpuAtEntry = new long[n];
        this.clocks = new MemorySegment[n];
        this.returns = new long[n][KernelFrames.MAX_DEPTH];
        this.frames = new KernelFrames(gpa -> memory.slice(gpa, Long.BYTES).get(JAVA_LONG_UNALIGNED, 0));
        for (int i = 0; i < n; i++) {
            samples[i] = new VcpuSamples();
            clocks[i] = ThreadCpuTimer.clockScratch(arena);
        }
    }

    /** Attaches a profiler sampling each vCPU {@code hz} times per second of its CPU time. */
    public static VmExtension.Attach attaching(int hz) {
        if (hz < 1 || hz > 10_000) throw new IllegalArgumentException("profile rate " + hz + " Hz: give 1 to 10000");
        return vm -> {
            GuestProfiler p = new GuestProfiler(hz, vm.vcpus(), vm.memory());
            vm.addRunListener(p);
            return p;
        };
    }

    @Override
    public String describe() {
        return "profiler: " + hz + " samples per second of each vCPU thread's CPU time";
    }

    @Override
    public void started(int vcpu, int tid) {
        startCpu[vcpu] = ThreadCpuTimer.currentThreadCpuNanos(clocks[vcpu]);
        nextDue[vcpu] = startCpu[vcpu] + periodNanos;
        timers[vcpu] = ThreadCpuTimer.startOnCurrentThread(VcpuFd.KICK_SIGNAL, periodNanos);
    }

    @Override
    public void entering(int vcpu) {
        cpuAtEntry[vcpu] = ThreadCpuTimer.currentThreadCpuNanos(clocks[vcpu]);
    }

    @Override
    public boolean followsEntries() {
        return true;
    }

    @Override
    public void interrupted(int vcpu) {
        long t0 = System.nanoTime();
        long cpu = ThreadCpuTimer.currentThreadCpuNanos(clocks[vcpu]);
        long due = nextDue[vcpu];
        if (cpu < due) return; // a kick, not the timer
        long periods = (cpu - due) / periodNanos + 1;
        long entry = cpuAtEntry[vcpu];
        long outside = entry < due ? 0 : Math.min(periods, (entry - due) / periodNanos + 1);
        nextDue[vcpu] = due + periods * periodNanos;
        VcpuSamples s = samples[vcpu];
        if (outside > 0) s.add(t0, 0, VcpuSamples.VMM, weight(outside), 0);
        if (periods == outside) return;
        VcpuFd v = vcpus.get(vcpu);
        long pc = v.getOneReg(PC);
        if (pc == NOT_STARTED) {
            // A secondary vCPU the guest has not powered on yet (PSCI CPU_ON) waits in KVM_RUN at its
            // reset PC; the CPU time its thread spends there is KVM's and jkvm's, not the guest's.
            s.add(t0, 0, VcpuSamples.VMM, weight(periods - outside), 0);
            return;
        }
        long pstate = v.getOneReg(PSTATE);
        int el = (pstate & PSTATE_AARCH32) != 0 ? 0 : (int) ((pstate >> 2) & 3);
        int depth = el == EL1 ? frames.walk(v.getOneReg(TTBR1_EL1), v.getOneReg(TCR_EL1), v.getOneReg(X29), returns[vcpu]) : 0;
        long took = System.nanoTime() - t0;
        s.add(t0, pc, el, weight(periods - outside), took, returns[vcpu], depth);
        GuestSampleEvent.record(vcpu, pc, el, weight(periods - outside), depth, took);
    }

    private static int weight(long periods) {
        return (int) Math.min(periods, Integer.MAX_VALUE);
    }

    @Override
    public void stopped(int vcpu) {
        ThreadCpuTimer t = timers[vcpu];
        if (t == null) return;
        samples[vcpu].ranFor(ThreadCpuTimer.currentThreadCpuNanos(clocks[vcpu]) - startCpu[vcpu]);
        timers[vcpu] = null;
        try {
            t.close();
        } catch (KvmException e) {
            // Called as the vCPU thread ends: a timer that cannot be deleted must not end it with an error.
            LOG.log(Level.WARNING, "vcpu " + vcpu + ": deleting its profiling timer failed", e);
        }
    }

    /** Reads where the guest put its exception vectors (VBAR_EL1), which places its kernel under KASLR. */
    @Override
    public void vmStopped() {
        try {
            long v = vcpus.getFirst().getOneReg(VBAR_EL1);
            vbar = v == 0 ? OptionalLong.empty() : OptionalLong.of(v);
        } catch (KvmException e) {
            vbar = OptionalLong.empty();
        }
    }

    /** The samples so far; complete once the VM has stopped. */
    public GuestProfile profile() {
        return new GuestProfile(hz, List.of(samples), vbar);
    }

    @Override
    public void close() {
        arena.close();
    }
}
