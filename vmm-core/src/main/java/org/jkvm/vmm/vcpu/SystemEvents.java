package org.jkvm.vmm.vcpu;

import org.jkvm.vmm.VmOutcome;

/** Turns a KVM_EXIT_SYSTEM_EVENT type (KVM_SYSTEM_EVENT_*) into how the VM ends. */
public interface SystemEvents {
    /** The outcome for event {@code type} raised on {@code vcpu}. */
    VmOutcome outcome(int type, int vcpu);
}
