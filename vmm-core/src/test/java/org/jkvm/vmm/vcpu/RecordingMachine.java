package org.jkvm.vmm.vcpu;

import java.util.ArrayList;
import java.util.List;

import org.jkvm.vmm.VmOutcome;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A machine for run-loop tests: stops at the first outcome and keeps every outcome reported. */
public final class RecordingMachine implements MachineControl {
    private final List<VmOutcome> reported = new ArrayList<>();

    @Override
    public boolean stopping() {
        return !reported.isEmpty();
    }

    @Override
    public void finish(VmOutcome outcome) {
        reported.add(outcome);
    }

    /** How the machine ended; fails unless exactly one outcome was reported. */
    public VmOutcome outcome() {
        assertEquals(1, reported.size(), () -> "outcomes reported: " + reported);
        return reported.getFirst();
    }
}
