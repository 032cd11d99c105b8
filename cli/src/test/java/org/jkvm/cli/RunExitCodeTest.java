package org.jkvm.cli;

import org.jkvm.vmm.VmOutcome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The exit status {@code jkvm run} gives for each way a guest can end, as its --help lists them. */
@Tag("unit")
class RunExitCodeTest {
    @Test
    void powerOffIsSuccess() {
        assertEquals(0, RunCommand.exitCode(new VmOutcome.PowerOff()));
    }

    @Test
    void vmmFailureIs1() {
        assertEquals(1, RunCommand.exitCode(new VmOutcome.Failed("KVM_RUN: EFAULT", null)));
    }

    @Test
    void panicIs3() {
        assertEquals(3, RunCommand.exitCode(new VmOutcome.Panic("Kernel panic - not syncing: boom")));
    }

    @Test
    void resetIs4() {
        assertEquals(4, RunCommand.exitCode(new VmOutcome.Reset()));
    }

    @Test
    void timeoutIs5() {
        assertEquals(5, RunCommand.exitCode(new VmOutcome.TimedOut(30)));
    }

    @Test
    void sigintIs130() {
        assertEquals(130, RunCommand.exitCode(new VmOutcome.Stopped("SIGINT")));
    }

    @Test
    void sigtermIs143() {
        assertEquals(143, RunCommand.exitCode(new VmOutcome.Stopped("SIGTERM")));
    }

    @Test
    void otherStopsCountAsInterrupted() {
        assertEquals(130, RunCommand.exitCode(new VmOutcome.Stopped("test harness")));
    }

    @Test
    void codesAreTheDocumentedOnes() {
        assertEquals(0, ExitCode.OK);
        assertEquals(1, ExitCode.FAILURE);
        assertEquals(2, ExitCode.USAGE);
        assertEquals(3, RunCommand.PANIC);
        assertEquals(4, RunCommand.RESET);
        assertEquals(5, RunCommand.TIMEOUT);
    }
}
