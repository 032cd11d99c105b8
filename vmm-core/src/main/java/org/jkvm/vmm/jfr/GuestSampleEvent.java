package org.jkvm.vmm.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.Unsigned;

/**
 * One sample of the guest profiler ({@code --profile}): where a vCPU was when its thread's
 * CPU-time timer fired. Recorded on the vCPU's thread at the profiler's rate, never per exit.
 */
@Name("org.jkvm.GuestSample")
@Label("Guest Sample")
@Category({"jkvm", "Guest Profile"})
@Description("Where a vCPU was when the guest profiler sampled it")
@StackTrace(false)
public final class GuestSampleEvent extends jdk.jfr.Event {
    @Label("vCPU")
    private int vcpu;

    @Label("PC")
    @Description("The guest's program counter")
    @Unsigned
    private long pc;

    @Label("Exception Level")
    @Description("0: user, 1: kernel")
    private int exceptionLevel;

    @Label("Periods")
    @Description("Periods of the vCPU thread's CPU time the sample stands for")
    private int periods;

    @Label("Frames")
    @Description("Return addresses found above the PC (kernel frame records)")
    private int depth;

    @Label("Cost")
    @Description("What taking the sample cost the vCPU's thread")
    @Timespan
    private long took;

    /** Records a sample if a recording wants it; the profiler calls it on the vCPU's thread. */
    public static void record(int vcpu, long pc, int exceptionLevel, int periods, int depth, long tookNanos) {
        GuestSampleEvent e = new GuestSampleEvent();
        if (!e.shouldCommit()) return;
        e.vcpu = vcpu;
        e.pc = pc;
        e.exceptionLevel = exceptionLevel;
        e.periods = periods;
        e.depth = depth;
        e.took = tookNanos;
        e.commit();
    }
}
