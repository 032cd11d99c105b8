package org.jkvm.vmm.vcpu;

import org.jkvm.vmm.VmOutcome;

/** What a vCPU's run loop asks of the machine it belongs to. */
public interface MachineControl {
    /** Whether the machine is stopping: the loop returns at its next chance. */
    boolean stopping();

    /** Ends the machine with {@code outcome} (the first outcome reported wins). */
    void finish(VmOutcome outcome);
}
