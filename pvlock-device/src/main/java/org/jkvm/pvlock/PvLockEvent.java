package org.jkvm.pvlock;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * What the PV-lock device counted for one vCPU over the last period ({@link PvLockEvents}
 * reads {@link PvLockStats}): the guest's calls jkvm answered and the {@code preempted}
 * transitions. A period in which nothing changed for a vCPU has no event for it.
 */
@Name("org.jkvm.PvLock")
@Label("PV Lock")
@Category({"jkvm", "PV Lock"})
@Description("PV-lock calls and preempted transitions of a vCPU since the previous event for it")
@Period("1 s")
@StackTrace(false)
final class PvLockEvent extends jdk.jfr.Event {
    @Label("vCPU")
    int vcpu;

    @Label("PV-Lock Calls")
    @Description("PV-lock hypercalls the vCPU made that jkvm answered")
    long pvLockCalls;

    @Label("Feature Calls")
    @Description("Vendor-hyp feature calls the vCPU made that jkvm answered")
    long featureCalls;

    @Label("Preempted Set")
    @Description("Times jkvm changed the vCPU's preempted flag from 0 to 1 (userspace mode)")
    long preemptedSet;

    @Label("Preempted Cleared")
    @Description("Times jkvm changed the vCPU's preempted flag from 1 to 0 (userspace mode)")
    long preemptedCleared;

    @Label("Preemptions")
    @Description("Switch-outs of the vCPU's thread while it was runnable (userspace mode)")
    long preemptions;

    @Label("Voluntary Switch-outs")
    @Description("Switch-outs of the vCPU's thread because it blocked (userspace mode)")
    long voluntarySwitchOuts;

    @Label("Changes Seen")
    @Description("Changes of the flag the sampler saw the host kernel make (kernel mode)")
    long changesSeen;
}
