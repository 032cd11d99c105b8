package org.jkvm.vmm.launch;

import org.jkvm.vmm.arch.aarch64.Arm64Vm;

/**
 * Something attached to a built VM before it runs and read after it (the PV-lock device is
 * one). The core drives it only through this interface, so it knows no such device by name.
 */
public interface VmExtension extends AutoCloseable {
    /** One line for the user: what it does on this VM. */
    String describe();

    /** Called once, after every vCPU has stopped and before the run is reported: stop measuring. */
    void vmStopped();

    @Override
    void close();

    /** Attaches an extension to a VM that is built and not yet running. */
    @FunctionalInterface
    interface Attach {
        /** Attaches to {@code vm}; a host that cannot do it is an {@link IllegalArgumentException}. */
        VmExtension attach(Arm64Vm vm);
    }
}
