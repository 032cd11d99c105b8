package org.jkvm.vmm.vcpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jkvm.kvm.ExitReason;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.bus.MmioDevice;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The run loop's exit dispatch, driven by a scripted vCPU: what each exit does, without /dev/kvm. */
@Tag("unit")
class VcpuLoopTest {
    static final long UART = 0x0900_0000L;
    static final long PV_LOCK = 0xC600_0002L;
    /** How long the scripted guest stays in KVM_RUN, and a slow device's write, in the timing test. */
    static final long GUEST_MILLIS = 60, DEVICE_MILLIS = 20;
    static final SystemEvents NO_EVENTS = (type, vcpu) -> {
        throw new AssertionError("system event " + type + " on vcpu " + vcpu);
    };

    final RecordingMachine machine = new RecordingMachine();
    final MmioBus mmio = new MmioBus();
    final HypercallBus hypercalls = new HypercallBus();
    final List<String> accesses = new ArrayList<>();

    /** A device that logs each access and answers a read with its offset plus 0x1000. */
    final MmioDevice device = new MmioDevice() {
        @Override
        public long read(int vcpu, long offset, int size) {
            accesses.add("read vcpu=" + vcpu + " offset=" + offset + " size=" + size);
            return 0x1000 + offset;
        }

        @Override
        public void write(int vcpu, long offset, int size, long value) {
            accesses.add("write vcpu=" + vcpu + " offset=" + offset + " size=" + size + " value=0x" + Long.toHexString(value));
        }
    };

    VcpuLoop run(ScriptedVcpu vcpu) {
        VcpuLoop loop = vcpu.loop(mmio, hypercalls, NO_EVENTS);
        loop.run();
        return loop;
    }

    VmOutcome.Failed failed() {
        return assertInstanceOf(VmOutcome.Failed.class, machine.outcome());
    }

    @Test
    void mmioWriteReachesTheDeviceThatOwnsTheAddressAndTheGuestGoesOn() {
        mmio.register("uart", MmioWindow.of(UART, 0x1000), device);
        ScriptedVcpu vcpu = new ScriptedVcpu(2, machine).mmioWrite(UART + 4, 1, 0x41);
        VcpuLoop loop = run(vcpu);
        assertTrue(vcpu.bound());
        assertEquals(List.of("write vcpu=2 offset=4 size=1 value=0x41"), accesses);
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
        assertEquals(Map.of(ExitReason.MMIO, 1L, ExitReason.INTR, 1L), loop.stats().exitsByReason());
    }

    @Test
    void mmioReadHandsTheDevicesValueToTheGuest() {
        mmio.register("uart", MmioWindow.of(UART, 0x1000), device);
        ScriptedVcpu vcpu = new ScriptedVcpu(1, machine).mmioRead(UART + 0x18, 4).mmioRead(UART, 8);
        run(vcpu);
        assertEquals(List.of("read vcpu=1 offset=24 size=4", "read vcpu=1 offset=0 size=8"), accesses);
        assertEquals(List.of(0x1018L, 0x1000L), vcpu.mmioValuesReturned());
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
    }

    @Test
    void anAccessNoDeviceOwnsReadsZeroAndTheGuestGoesOn() {
        ScriptedVcpu vcpu = new ScriptedVcpu(0, machine).mmioRead(0x1234_0000L, 4).mmioWrite(0x1234_0000L, 4, 7);
        run(vcpu);
        assertEquals(List.of(0L), vcpu.mmioValuesReturned());
        assertEquals(2, mmio.strayAccesses());
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
    }

    @Test
    void hypercallPassesItsArgumentsInAndTheResultsBack() {
        List<String> calls = new ArrayList<>();
        hypercalls.register("pv-lock", PV_LOCK, 1, (vcpu, function, call) -> {
            calls.add("vcpu=" + vcpu + " function=0x" + Long.toHexString(function)
                    + " args=" + List.of(call.argument(0), call.argument(1), call.argument(2)));
            call.result(0, 0);
            call.result(1, call.argument(0) + call.argument(1));
            call.result(2, call.argument(2));
        });
        ScriptedVcpu vcpu = new ScriptedVcpu(3, machine).hypercall(PV_LOCK, 5, 6, 9);
        run(vcpu);
        assertEquals(List.of("vcpu=3 function=0xc6000002 args=[5, 6, 9]"), calls);
        assertEquals(1, vcpu.hypercallResults().size());
        assertArrayEquals(new long[] {0, 11, 9}, vcpu.hypercallResults().getFirst());
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
    }

    @Test
    void aHypercallNoDeviceOwnsIsAnsweredNotSupported() {
        ScriptedVcpu vcpu = new ScriptedVcpu(0, machine).hypercall(0x8400_0000L, 1, 2, 3);
        run(vcpu);
        assertArrayEquals(new long[] {HypercallBus.NOT_SUPPORTED}, vcpu.hypercallResults().getFirst());
        assertEquals(1, hypercalls.unknownCalls());
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
    }

    @Test
    void aSystemEventEndsTheMachineWithWhatTheArchitectureMapsItTo() {
        List<String> events = new ArrayList<>();
        ScriptedVcpu vcpu = new ScriptedVcpu(4, machine).systemEvent(5).mmioWrite(UART, 1, 0);
        VcpuLoop loop = vcpu.loop(mmio, hypercalls, (type, id) -> {
            events.add("type=" + type + " vcpu=" + id);
            return new VmOutcome.PowerOff();
        });
        loop.run();
        assertEquals(List.of("type=5 vcpu=4"), events);
        assertEquals(new VmOutcome.PowerOff(), machine.outcome());
        assertEquals(Map.of(ExitReason.SYSTEM_EVENT, 1L), loop.stats().exitsByReason());
    }

    @Test
    void aKickOrSignalReentersTheGuest() {
        VcpuLoop loop = run(new ScriptedVcpu(0, machine).exit(ExitReason.INTR).exit(ExitReason.INTR));
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
        assertEquals(Map.of(ExitReason.INTR, 3L), loop.stats().exitsByReason());
    }

    @Test
    void aFailedEntryEndsTheMachineWithTheHardwareReason() {
        run(new ScriptedVcpu(1, machine).failEntry(0x8000_0021L));
        assertEquals("vcpu 1: KVM could not enter the guest, hardware reason 0x80000021", failed().message());
        assertNull(failed().cause());
    }

    @Test
    void anInternalErrorEndsTheMachineWithTheSuberror() {
        run(new ScriptedVcpu(1, machine).internalError(3));
        assertEquals("vcpu 1: KVM internal error, suberror 3", failed().message());
    }

    @Test
    void anUndecodableArmAccessGivesTheGuestADataAbortAndTheGuestGoesOn() {
        ScriptedVcpu vcpu = new ScriptedVcpu(6, machine).armNisv(0x0a00_0010L, 0x93L)
                .repeat(20, ExitReason.ARM_NISV, v -> { }).mmioWrite(UART, 1, 0x41);
        mmio.register("uart", MmioWindow.of(UART, 0x1000), device);
        VcpuLoop loop = run(vcpu);
        assertEquals(21, vcpu.dataAbortsInjected().size());
        assertEquals(0x0a00_0010L, vcpu.dataAbortsInjected().getFirst());
        assertEquals(List.of("write vcpu=6 offset=0 size=1 value=0x41"), accesses);
        assertSame(ScriptedVcpu.SCRIPT_ENDED, machine.outcome());
        assertEquals(21, loop.stats().exits(ExitReason.ARM_NISV));
    }

    @Test
    void anExitTheLoopDoesNotHandleEndsTheMachineNamingIt() {
        run(new ScriptedVcpu(1, machine).exit(ExitReason.HLT));
        assertEquals("vcpu 1: unexpected exit HLT (" + ExitReason.HLT.number() + ")", failed().message());
    }

    @Test
    void anExitNumberJkvmDoesNotKnowEndsTheMachineNamingIt() {
        run(new ScriptedVcpu(1, machine).unknownExit(4242));
        assertTrue(failed().message().startsWith("vcpu 1: "), failed().message());
        assertTrue(failed().message().endsWith("KVM_RUN returned unknown exit reason 4242"), failed().message());
        assertInstanceOf(IllegalStateException.class, failed().cause());
    }

    @Test
    void aDeviceThatFailsEndsTheMachineNamingTheVcpu() {
        mmio.register("broken", MmioWindow.of(UART, 0x1000), new MmioDevice() {
            @Override
            public long read(int vcpu, long offset, int size) {
                throw new IllegalStateException("broken: no register at offset " + offset);
            }

            @Override
            public void write(int vcpu, long offset, int size, long value) {
                throw new AssertionError("no write expected");
            }
        });
        run(new ScriptedVcpu(2, machine).mmioRead(UART + 8, 4));
        assertEquals("vcpu 2: broken: no register at offset 8", failed().message());
    }

    @Test
    void aListenerFollowingEntriesIsToldBeforeEveryEntryIntoTheGuestAndOthersOnlyOfStartAndStop() {
        List<String> told = new ArrayList<>();
        ScriptedVcpu vcpu = new ScriptedVcpu(5, machine).exit(ExitReason.INTR);
        new VcpuLoop(vcpu, mmio, hypercalls, NO_EVENTS, machine, null,
                VcpuRunListener.both(lifecycle("follows", true, told), lifecycle("other", false, told))).run();
        assertEquals(List.of("follows started 5", "other started 5", "follows entering 5", "follows entering 5",
                "follows stopped 5", "other stopped 5"), told);

        told.clear();
        new VcpuLoop(new ScriptedVcpu(6, new RecordingMachine()).exit(ExitReason.INTR), mmio, hypercalls, NO_EVENTS,
                new RecordingMachine(), null, lifecycle("alone", false, told)).run();
        assertEquals(List.of("alone started 6", "alone stopped 6"), told, "no call on the exit path for a listener that does not ask");
    }

    /** A listener that records its calls as "NAME what vcpu"; it follows entries where {@code entries}. */
    private static VcpuRunListener lifecycle(String name, boolean entries, List<String> told) {
        return new VcpuRunListener() {
            @Override
            public void started(int vcpu, int tid) {
                told.add(name + " started " + vcpu + (tid > 0 ? "" : " without a tid"));
            }

            @Override
            public void entering(int vcpu) {
                told.add(name + " entering " + vcpu);
            }

            @Override
            public boolean followsEntries() {
                return entries;
            }

            @Override
            public void stopped(int vcpu) {
                told.add(name + " stopped " + vcpu);
            }
        };
    }

    @Test
    void bothListenersAreToldOfAnInterruptionButNotOfTheKickThatStopsTheMachine() {
        List<String> told = new ArrayList<>();
        ScriptedVcpu vcpu = new ScriptedVcpu(3, machine).exit(ExitReason.INTR);
        new VcpuLoop(vcpu, mmio, hypercalls, NO_EVENTS, machine, null,
                VcpuRunListener.both(interruptions("first", told), interruptions("second", told))).run();
        assertEquals(List.of("first 3", "second 3"), told);
    }

    @Test
    void aTimedLoopSplitsItsTimeBetweenTheGuestAndItsExitsAndAnUntimedOneCountsTheSameExitsWithoutTimes() {
        mmio.register("uart", MmioWindow.of(UART, 0x1000), slowDevice());
        VcpuLoop timedLoop = new ScriptedVcpu(0, machine).repeat(1, ExitReason.INTR, v -> pause(GUEST_MILLIS))
                .mmioWrite(UART, 1, 0x41).loop(mmio, hypercalls, NO_EVENTS).timeExits();
        timedLoop.run();
        VcpuStats timed = timedLoop.stats();
        // Sleeps last at least what they ask, so lower bounds hold; the two differ, so swapped figures fail.
        assertTrue(timed.nanosInKvmRun() >= GUEST_MILLIS * 1_000_000, "inside KVM_RUN: " + timed.nanosInKvmRun() + " ns");
        assertTrue(timed.nanosOutside() >= DEVICE_MILLIS * 1_000_000, "outside KVM_RUN: " + timed.nanosOutside() + " ns");
        assertTrue(timed.nanosInKvmRun() > timed.nanosOutside(), timed.nanosInKvmRun() + " ns inside, " + timed.nanosOutside() + " outside");

        VcpuStats untimed = run(new ScriptedVcpu(0, new RecordingMachine()).repeat(1, ExitReason.INTR, v -> pause(GUEST_MILLIS))
                .mmioWrite(UART, 1, 0x41)).stats();
        assertEquals(timed.exitsByReason(), untimed.exitsByReason());
        assertEquals(0, untimed.nanosInKvmRun());
        assertEquals(0, untimed.nanosOutside());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** A device whose writes take {@link #DEVICE_MILLIS}: the vCPU's time outside KVM_RUN. */
    private static MmioDevice slowDevice() {
        return new MmioDevice() {
            @Override
            public long read(int vcpu, long offset, int size) {
                return 0;
            }

            @Override
            public void write(int vcpu, long offset, int size, long value) {
                pause(DEVICE_MILLIS);
            }
        };
    }

    private static VcpuRunListener interruptions(String name, List<String> told) {
        return new VcpuRunListener() {
            @Override
            public void started(int vcpu, int tid) {}

            @Override
            public void stopped(int vcpu) {}

            @Override
            public void interrupted(int vcpu) {
                told.add(name + " " + vcpu);
            }
        };
    }
}
