package org.jkvm.cli;

import org.jkvm.vmm.VmOutcome;

/** How a guest's end reads to the user, on stderr and in --stats-json. */
final class OutcomeText {
    private OutcomeText() {}

    static String describe(VmOutcome o) {
        return switch (o) {
            case VmOutcome.PowerOff p -> "the guest powered off";
            case VmOutcome.Failed f -> "jkvm failed: " + f.message();
            case VmOutcome.Panic p -> "the guest panicked: " + p.message();
            case VmOutcome.Reset r -> "the guest reset itself";
            case VmOutcome.TimedOut t -> "the guest ran past the " + t.seconds() + " s timeout";
            case VmOutcome.Stopped s -> "stopped by " + s.reason();
        };
    }
}
