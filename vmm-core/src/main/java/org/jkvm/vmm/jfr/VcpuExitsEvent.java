package org.jkvm.vmm.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * A vCPU's exits of one kind over the last period, read from the vCPU's counters by
 * {@link ExitCountEvents} (a periodic event: the exit path itself records nothing). A period
 * without exits of a kind has no event for it.
 */
@Name("org.jkvm.VcpuExits")
@Label("vCPU Exits")
@Category({"jkvm", "vCPU"})
@Description("A vCPU's exits of one kind since the previous event for it")
@Period("1 s")
@StackTrace(false)
public final class VcpuExitsEvent extends jdk.jfr.Event {
    @Label("vCPU")
    int vcpu;

    @Label("Exit Reason")
    @Description("KVM's exit reason, e.g. MMIO, HYPERCALL, INTR")
    String reason;

    @Label("Exits")
    @Description("Exits of this kind since the previous event for this vCPU and kind")
    long count;

    @Label("Total")
    @Description("Exits of this kind since the vCPU started")
    long total;
}
