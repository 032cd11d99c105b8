package org.jkvm.vmm.arch.aarch64;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.jkvm.kvm.sys.aarch64.KvmArm64;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.devices.PanicWatcher;
import org.jkvm.vmm.vcpu.RecordingMachine;
import org.jkvm.vmm.vcpu.ScriptedVcpu;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the guest's PSCI system events end the VM, seen through the run loop as a user sees it. */
@Tag("unit")
class PsciEventsTest {
    static final String PANIC = "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100";
    static final int SHUTDOWN = KvmArm64.KVM_SYSTEM_EVENT_SHUTDOWN();
    static final int RESET = KvmArm64.KVM_SYSTEM_EVENT_RESET();
    static final int CRASH = KvmArm64.KVM_SYSTEM_EVENT_CRASH();
    /** PSCI SYSTEM_SUSPEND's event: one jkvm does not map. */
    static final int SUSPEND = KvmArm64.KVM_SYSTEM_EVENT_SUSPEND();

    final PanicWatcher console = new PanicWatcher(OutputStream.nullOutputStream());
    final PsciEvents events = new PsciEvents(console);

    /** How the machine ends when vCPU 2 exits with system event {@code type}. */
    VmOutcome outcomeOf(int type) {
        RecordingMachine machine = new RecordingMachine();
        new ScriptedVcpu(2, machine).systemEvent(type).loop(new MmioBus(), new HypercallBus(), events).run();
        return machine.outcome();
    }

    void panicOnTheConsole() throws IOException {
        console.write(("[    2.100000] " + PANIC + "\n").getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void systemOffPowersOff() {
        assertEquals(new VmOutcome.PowerOff(), outcomeOf(SHUTDOWN));
    }

    @Test
    void systemResetIsAReset() {
        assertEquals(new VmOutcome.Reset(), outcomeOf(RESET));
    }

    @Test
    void aCrashReportIsAPanic() {
        assertEquals(new VmOutcome.Panic("guest reported a crash"), outcomeOf(CRASH));
    }

    @Test
    void anEventJkvmDoesNotMapFailsNamingTheVcpuAndTheType() {
        assertEquals(new VmOutcome.Failed("vcpu 2: unknown system event " + SUSPEND, null), outcomeOf(SUSPEND));
    }

    @Test
    void afterAKernelPanicOffResetAndCrashAreThatPanic() throws IOException {
        panicOnTheConsole();
        for (int type : new int[] {SHUTDOWN, RESET, CRASH}) {
            assertEquals(new VmOutcome.Panic(PANIC), outcomeOf(type), "event " + type);
        }
    }

    @Test
    void anUnmappedEventAfterAPanicStillFails() throws IOException {
        panicOnTheConsole();
        assertEquals(new VmOutcome.Failed("vcpu 7: unknown system event " + SUSPEND, null), events.outcome(SUSPEND, 7));
    }
}
