package org.jkvm.vmm;

/** How a VM ended: exactly one per run. */
public sealed interface VmOutcome {
    /** The guest powered off (PSCI SYSTEM_OFF). */
    record PowerOff() implements VmOutcome {}

    /** The guest asked for a reset (PSCI SYSTEM_RESET); jkvm does not restart it. */
    record Reset() implements VmOutcome {}

    /** The guest panicked; {@code message} is the panic line from its console. */
    record Panic(String message) implements VmOutcome {}

    /** Stopped from outside the guest: a signal or a caller. */
    record Stopped(String reason) implements VmOutcome {}

    /** The guest ran longer than it was allowed. */
    record TimedOut(long seconds) implements VmOutcome {}

    /** The VMM could not go on (a failed ioctl, an exit it cannot handle). */
    record Failed(String message, Throwable cause) implements VmOutcome {}
}
