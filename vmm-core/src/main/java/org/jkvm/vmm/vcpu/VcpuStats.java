package org.jkvm.vmm.vcpu;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

import org.jkvm.kvm.ExitReason;

/**
 * One vCPU's counters: exits by reason, time inside KVM_RUN (the guest, or KVM on its behalf)
 * against time outside it (jkvm handling exits) where the loop times its exits, and the thread's
 * scheduler times over its life.
 * Written only by the vCPU's thread; read once it has stopped, except {@link #exitsNow}, which
 * another thread may call while the vCPU runs.
 */
public final class VcpuStats {
    /** Opaque stores cost a plain store on x86 and arm64, and let {@link #exitsNow} see whole, recent counts. */
    private static final VarHandle EXITS = MethodHandles.arrayElementVarHandle(long[].class);

    private final int vcpu;
    private final long[] exits = new long[ExitReason.values().length];
    private long nanosInKvmRun;
    private long nanosOutside;
    private ThreadSchedStat scheduled;

    VcpuStats(int vcpu) {
        this.vcpu = vcpu;
    }

    void exit(ExitReason reason, long inRun, long outside) {
        int i = reason.ordinal();
        EXITS.setOpaque(exits, i, exits[i] + 1);
        nanosInKvmRun += inRun;
        nanosOutside += outside;
    }

    void scheduled(ThreadSchedStat s) {
        scheduled = s;
    }

    /** The vCPU's id. */
    public int vcpu() {
        return vcpu;
    }

    /** Exits by reason, reasons that never happened left out. */
    public Map<ExitReason, Long> exitsByReason() {
        Map<ExitReason, Long> m = new EnumMap<>(ExitReason.class);
        for (ExitReason r : ExitReason.values()) if (exits[r.ordinal()] > 0) m.put(r, exits[r.ordinal()]);
        return m;
    }

    /** Exits for {@code reason}. */
    public long exits(ExitReason reason) {
        return exits[reason.ordinal()];
    }

    /** Exits for {@code reason} so far, read from any thread while the vCPU runs (a periodic sampler). */
    public long exitsNow(ExitReason reason) {
        return (long) EXITS.getOpaque(exits, reason.ordinal());
    }

    /** All exits. */
    public long totalExits() {
        long n = 0;
        for (long e : exits) n += e;
        return n;
    }

    /** Nanoseconds spent inside KVM_RUN; 0 unless the loop timed its exits ({@link VcpuLoop#timeExits}). */
    public long nanosInKvmRun() {
        return nanosInKvmRun;
    }

    /** Nanoseconds spent in jkvm between KVM_RUN calls; 0 unless the loop timed its exits. */
    public long nanosOutside() {
        return nanosOutside;
    }

    /** How long the vCPU thread ran and how long it waited for a CPU (steal), if the host kernel tells. */
    public Optional<ThreadSchedStat> scheduled() {
        return Optional.ofNullable(scheduled);
    }
}
