package org.jkvm.vmm.arch.aarch64;

import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.devices.PanicWatcher;
import org.jkvm.vmm.vcpu.SystemEvents;

/**
 * What the guest's PSCI calls (handled in the kernel) end the VM with: SYSTEM_OFF is a
 * power-off, SYSTEM_RESET a reset, unless the console showed a kernel panic first (a guest
 * booted with panic=-1 resets after panicking), and a crash report is a panic.
 */
final class PsciEvents implements SystemEvents {
    private final PanicWatcher panicWatcher;

    PsciEvents(PanicWatcher panicWatcher) {
        this.panicWatcher = panicWatcher;
    }

    @Override
    public VmOutcome outcome(int type, int vcpu) {
        String panic = panicWatcher.panic();
        if (type == KvmArm64.KVM_SYSTEM_EVENT_SHUTDOWN()) return panic != null ? new VmOutcome.Panic(panic) : new VmOutcome.PowerOff();
        if (type == KvmArm64.KVM_SYSTEM_EVENT_RESET()) return panic != null ? new VmOutcome.Panic(panic) : new VmOutcome.Reset();
        if (type == KvmArm64.KVM_SYSTEM_EVENT_CRASH()) return new VmOutcome.Panic(panic != null ? panic : "guest reported a crash");
        return new VmOutcome.Failed("vcpu " + vcpu + ": unknown system event " + type, null);
    }
}
