package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A vCPU file descriptor and its mapped {@code kvm_run}: KVM_RUN, registers, device attributes,
 * and a way to get the vCPU's thread out of KVM_RUN from another thread ({@link #kick}).
 *
 * <p>Kicking uses the {@code immediate_exit} flag plus a signal, {@link #KICK_SIGNAL}. The
 * thread that runs the vCPU calls {@link #bindToCurrentThread} first: it blocks that signal in
 * the thread and tells KVM (KVM_SET_SIGNAL_MASK) to unblock it only while the guest runs, so a
 * kick interrupts KVM_RUN with EINTR and is consumed afterwards without any handler running.
 */
public final class VcpuFd extends KvmFd {
    /** SIGURG: its default action is to do nothing, so a stray one can never harm the process. */
    public static final int KICK_SIGNAL = 23;

    private static final long RUN = HostUapi.request(UapiConstant.KVM_RUN);
    private static final long GET_ONE_REG = HostUapi.request(UapiConstant.KVM_GET_ONE_REG);
    private static final long SET_ONE_REG = HostUapi.request(UapiConstant.KVM_SET_ONE_REG);
    private static final long SET_SIGNAL_MASK = HostUapi.request(UapiConstant.KVM_SET_SIGNAL_MASK);
    private static final GroupLayout ONE_REG = HostUapi.struct(UapiStruct.kvm_one_reg);
    private static final long OR_ID = HostUapi.offset(UapiStruct.kvm_one_reg, "id");
    private static final long OR_ADDR = HostUapi.offset(UapiStruct.kvm_one_reg, "addr");
    private static final long SIGNAL_MASK_LEN = HostUapi.offset(UapiStruct.kvm_signal_mask, "len");
    private static final long SIGNAL_MASK_SET = HostUapi.offset(UapiStruct.kvm_signal_mask, "sigset");

    private final int id;
    private final KvmRun run;
    /**
     * Scratch freed by the GC once this is unreachable: closing a shared arena is a handshake
     * with every thread, and a VM of 512 vCPUs closing one per vCPU took seconds to exit.
     */
    private final Arena arena = Arena.ofAuto();
    /** Scratch for ONE_REG: owned by the vCPU's thread. */
    private final MemorySegment oneReg = arena.allocate(ONE_REG);
    private final MemorySegment regValue = arena.allocate(16, 16);
    private final MemorySegment kickSet = arena.allocate(Libc.GLIBC_SIGSET_BYTES);
    private final MemorySegment noWait = arena.allocate(16);
    private volatile int tid;

    private VcpuFd(int fd, int id, MemorySegment runMapping) {
        super(fd, "vcpu " + id);
        this.id = id;
        this.run = new KvmRun(runMapping);
        kickSet.set(JAVA_LONG, 0, 1L << (KICK_SIGNAL - 1));
    }

    static VcpuFd map(int fd, int id, int mmapSize) {
        long addr = Libc.mmap(mmapSize, Libc.PROT_READ | Libc.PROT_WRITE, Libc.MAP_SHARED, fd, 0);
        if (addr == Libc.MAP_FAILED) {
            int errno = Libc.errno();
            Libc.close(fd);
            throw new KvmException("mmap", "kvm_run of vcpu " + id + ", size=" + mmapSize, errno);
        }
        return new VcpuFd(fd, id, MemorySegment.ofAddress(addr).reinterpret(mmapSize));
    }

    /** The vCPU id it was created with. */
    public int id() {
        return id;
    }

    /** The shared {@code kvm_run} structure: why the last KVM_RUN returned, and its data. */
    public KvmRun kvmRun() {
        return run;
    }

    /**
     * Makes the calling thread the one that runs this vCPU, so {@link #kick} can reach it.
     * Call it on that thread before its first {@link #run}.
     */
    public void bindToCurrentThread() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment old = a.allocate(Libc.GLIBC_SIGSET_BYTES);
            if (Libc.sigprocmask(Libc.SIG_BLOCK, kickSet, old) != 0) {
                throw new KvmException("rt_sigprocmask", "block SIGURG, " + description(), Libc.errno());
            }
            long whileRunning = old.get(JAVA_LONG, 0) & ~(1L << (KICK_SIGNAL - 1));
            MemorySegment mask = a.allocate(SIGNAL_MASK_SET + Libc.KERNEL_SIGSET_BYTES, 8);
            mask.set(JAVA_INT, SIGNAL_MASK_LEN, Libc.KERNEL_SIGSET_BYTES);
            mask.set(JAVA_LONG_UNALIGNED, SIGNAL_MASK_SET, whileRunning);
            ioctl("KVM_SET_SIGNAL_MASK", SET_SIGNAL_MASK, mask, "unblock SIGURG in the guest");
        }
        tid = Libc.gettid();
    }

    /**
     * KVM_RUN. Returns why the guest stopped; {@link ExitReason#INTR} when the vCPU was kicked
     * (or a signal arrived). Any other failure is thrown. Does not allocate.
     */
    public ExitReason run() {
        int rc = Libc.ioctl(fd(), RUN, 0L);
        if (rc < 0) {
            int errno = Libc.errno();
            if (errno == Libc.EINTR || errno == Libc.EAGAIN) {
                run.setImmediateExit(false);
                drainKicks();
                return ExitReason.INTR;
            }
            throw new KvmException("KVM_RUN", description(), errno);
        }
        int reason = run.exitReasonNumber();
        ExitReason r = ExitReason.of(reason);
        if (r == null) throw new IllegalStateException(description() + ": KVM_RUN returned unknown exit reason " + reason);
        return r;
    }

    /** Consumes pending kick signals so the next KVM_RUN does not return at once. */
    private void drainKicks() {
        if (tid == 0) return;
        int taken;
        do {
            taken = Libc.sigtimedwait(kickSet, MemorySegment.NULL, noWait);
        } while (taken == KICK_SIGNAL);
    }

    /**
     * Gets this vCPU out of KVM_RUN, from any thread: its current or next {@link #run} returns
     * {@link ExitReason#INTR}. Safe to call at any time, also before the vCPU ever ran.
     */
    public void kick() {
        run.setImmediateExit(true);
        int t = tid;
        if (t != 0 && Libc.tgkill(Libc.getpid(), t, KICK_SIGNAL) < 0) {
            int errno = Libc.errno();
            if (errno != Libc.ESRCH) throw new KvmException("tgkill", description() + ", tid=" + t, errno);
        }
    }

    /** KVM_GET_ONE_REG for a register of up to 64 bits. */
    public long getOneReg(long regId) {
        oneReg.set(JAVA_LONG, OR_ID, regId);
        oneReg.set(JAVA_LONG, OR_ADDR, regValue.address());
        regValue.set(JAVA_LONG, 0, 0);
        // Checked here rather than through ioctl(..., args) so the exit path builds no text.
        if (Libc.ioctl(fd(), GET_ONE_REG, oneReg) < 0) throw failure("KVM_GET_ONE_REG", regIdText(regId));
        return regValue.get(JAVA_LONG, 0);
    }

    /** KVM_SET_ONE_REG for a register of up to 64 bits. */
    public void setOneReg(long regId, long value) {
        oneReg.set(JAVA_LONG, OR_ID, regId);
        oneReg.set(JAVA_LONG, OR_ADDR, regValue.address());
        regValue.set(JAVA_LONG, 0, value);
        if (Libc.ioctl(fd(), SET_ONE_REG, oneReg) < 0) {
            throw failure("KVM_SET_ONE_REG", regIdText(regId) + ", value=0x" + Long.toHexString(value));
        }
    }

    private static String regIdText(long regId) {
        return "id=0x" + Long.toHexString(regId);
    }

    /**
     * KVM_GET_STATS_FD: KVM's binary statistics of this vCPU (needs KVM_CAP_BINARY_STATS_FD). The
     * caller closes it.
     */
    public StatsFd statsFd() {
        return openStats();
    }

    /** KVM_ARM_VCPU_INIT (arm64) with a target and feature bits (KVM_ARM_VCPU_* numbers). */
    public void armVcpuInit(Arm64.VcpuInit init) {
        Arm64.vcpuInit(this, init);
    }

    /**
     * KVM_ARM_VCPU_FINALIZE (arm64): fixes the configuration of a feature asked for at
     * KVM_ARM_VCPU_INIT that needs it (KVM_ARM_VCPU_SVE), before the vCPU first runs.
     */
    public void armVcpuFinalize(int feature) {
        Arm64.vcpuFinalize(this, feature);
    }

    /**
     * KVM_SET_VCPU_EVENTS (arm64) with {@code ext_dabt_pending}: the guest takes a synchronous
     * external data abort at the instruction it stopped on, when it next runs. What a VMM does
     * with an access it cannot emulate (KVM_EXIT_ARM_NISV); needs KVM_CAP_ARM_INJECT_EXT_DABT.
     */
    public void armInjectExternalDataAbort() {
        Arm64.injectExternalDataAbort(this);
    }

    /** KVM_GET_REGS (x86_64): a {@code kvm_regs} allocated in {@code arena}. */
    public MemorySegment getRegs(Arena arena) {
        return X86.getRegs(this, arena);
    }

    /** KVM_SET_REGS (x86_64) from a {@code kvm_regs}. */
    public void setRegs(MemorySegment regs) {
        X86.setRegs(this, regs);
    }

    /** KVM_GET_SREGS (x86_64): a {@code kvm_sregs} allocated in {@code arena}. */
    public MemorySegment getSregs(Arena arena) {
        return X86.getSregs(this, arena);
    }

    /** KVM_SET_SREGS (x86_64) from a {@code kvm_sregs}. */
    public void setSregs(MemorySegment sregs) {
        X86.setSregs(this, sregs);
    }

    /** KVM_SET_CPUID2 (x86_64) from a {@code kvm_cpuid2}, e.g. {@link Kvm#supportedCpuid}'s. */
    public void setCpuid2(MemorySegment cpuid) {
        X86.setCpuid2(this, cpuid);
    }

    /** KVM_GET_MSRS (x86_64): reads the listed MSRs, returns their values in order. */
    public long[] getMsrs(int... indices) {
        return X86.getMsrs(this, indices);
    }

    /** KVM_SET_MSRS (x86_64): writes MSR {@code indices[i]} := {@code values[i]}. */
    public void setMsrs(int[] indices, long[] values) {
        X86.setMsrs(this, indices, values);
    }

    @Override
    public void close() {
        if (isClosed()) return;
        Libc.munmap(run.segment().address(), run.segment().byteSize());
        super.close();
    }
}
