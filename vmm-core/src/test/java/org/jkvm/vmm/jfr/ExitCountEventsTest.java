package org.jkvm.vmm.jfr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import org.jkvm.kvm.Arch;
import org.jkvm.kvm.ExitReason;
import org.jkvm.kvm.Kvm;
import org.jkvm.kvm.MappedMemory;
import org.jkvm.kvm.VcpuFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.kvm.sys.x86_64.kvm_regs;
import org.jkvm.kvm.sys.x86_64.kvm_segment;
import org.jkvm.kvm.sys.x86_64.kvm_sregs;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.MmioBus;
import org.jkvm.vmm.bus.MmioDevice;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.memory.KvmTier;
import org.jkvm.vmm.vcpu.MachineControl;
import org.jkvm.vmm.vcpu.VcpuLoop;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Real KVM (x86_64): a tiny guest stores to an address no RAM backs, in a loop, through jkvm's
 * vCPU run loop for a few seconds under a JFR recording. The recording's {@code org.jkvm.VcpuExits}
 * events add up to the vCPU's own exit counters, and some were recorded by JFR's periodic thread
 * while the vCPU ran. (That the exit path allocates nothing under a recording is
 * {@code VcpuLoopAllocationTest}'s: here the loop is not run long enough to be compiled.)
 */
@Tag("kvm")
class ExitCountEventsTest {
    /** mov bx, 0x9000; loop: inc al; mov [bx], al; jmp loop */
    private static final byte[] STORE_LOOP = {(byte) 0xbb, 0x00, (byte) 0x90, (byte) 0xfe, (byte) 0xc0, (byte) 0x88, 0x07,
        (byte) 0xeb, (byte) 0xfa};
    private static final int RAM = 0x8000;
    private static final int CODE = 0x1000;
    private static final long STORE = 0x9000;
    private static final long RUN_NANOS = 2_500_000_000L;
    /** How long the guest may run waiting for JFR's periodic thread, which a loaded machine starves. */
    private static final long MAX_RUN_NANOS = 60_000_000_000L;
    private static Kvm kvm;

    @TempDir
    Path dir;

    @BeforeAll
    static void open() {
        kvm = KvmTier.openOrSkip();
        assumeTrue(Arch.host() == Arch.X86_64, "the guest here is x86 code");
    }

    @AfterAll
    static void close() {
        if (kvm != null) kvm.close();
    }

    @Test
    void theRecordedExitCountsAddUpToTheVcpusCounters() throws Exception {
        Path file = dir.resolve("run.jfr");
        long threadId = Thread.currentThread().threadId();
        AtomicInteger periodicReads = new AtomicInteger();
        TimedMachine machine = new TimedMachine(periodicReads);
        VcpuLoop loop;
        try (FlightRecording recording = FlightRecording.start();
             VmFd vm = kvm.createVm();
             MappedMemory ram = MappedMemory.anonymous(RAM, false)) {
            MemorySegment.copy(MemorySegment.ofArray(STORE_LOOP), 0, ram.segment(), CODE, STORE_LOOP.length);
            vm.setUserMemoryRegion(0, 0, 0, ram.segment());
            try (VcpuFd vcpu = vm.createVcpu(0)) {
                startInRealMode(vcpu);
                MmioBus mmio = new MmioBus();
                mmio.register("store-sink", MmioWindow.of(STORE, 0x1000), machine);
                loop = new VcpuLoop(vcpu, mmio, new HypercallBus(), null, null, machine, null, null);
                VcpuLoop watched = loop;
                try (ExitCountEvents events = ExitCountEvents.watch(() -> {
                    if (Thread.currentThread().threadId() != threadId) periodicReads.incrementAndGet();
                    return List.of(watched.stats());
                })) {
                    loop.run();
                    events.emit();
                }
            }
            recording.stopAndDump(file);
        }
        assertNull(machine.outcome, "the guest only stores");

        Map<ExitReason, Long> recorded = new EnumMap<>(ExitReason.class);
        int periodic = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (!e.getEventType().getName().equals("org.jkvm.VcpuExits")) continue;
            assertEquals(0, e.getInt("vcpu"));
            ExitReason r = ExitReason.valueOf(e.getString("reason"));
            recorded.merge(r, e.getLong("count"), Long::sum);
            assertEquals(recorded.get(r), e.getLong("total"), "total after " + e);
            if (!onThread(e, threadId)) periodic++;
        }
        long exits = loop.stats().totalExits();
        assertEquals(loop.stats().exitsByReason(), recorded);
        assertTrue(exits > 1_000, exits + " exits");
        assertTrue(periodic > 0, "no event was recorded while the vCPU ran");
    }

    private static boolean onThread(RecordedEvent e, long threadId) {
        RecordedThread t = e.getThread("eventThread");
        return t != null && t.getJavaThreadId() == threadId;
    }

    private static void startInRealMode(VcpuFd vcpu) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sregs = vcpu.getSregs(a);
            kvm_segment.base(kvm_sregs.cs(sregs), 0);
            kvm_segment.selector(kvm_sregs.cs(sregs), (short) 0);
            vcpu.setSregs(sregs);
            MemorySegment regs = vcpu.getRegs(a);
            kvm_regs.rip(regs, CODE);
            kvm_regs.rflags(regs, 2);
            vcpu.setRegs(regs);
        }
    }

    /**
     * The store sink, and the machine that stops once the guest has stored for {@link #RUN_NANOS}
     * and JFR's periodic thread has read the counters, or after {@link #MAX_RUN_NANOS}.
     */
    private static final class TimedMachine implements MmioDevice, MachineControl {
        private final long start = System.nanoTime();
        private final AtomicInteger periodicReads;
        private long stores;
        private boolean stopping;
        VmOutcome outcome;

        TimedMachine(AtomicInteger periodicReads) {
            this.periodicReads = periodicReads;
        }

        @Override
        public long read(int vcpu, long offset, int size) {
            throw new IllegalStateException("the guest only stores");
        }

        @Override
        public void write(int vcpu, long offset, int size, long value) {
            if (++stores % 4096 != 0) return;
            long ran = System.nanoTime() - start;
            stopping = ran > MAX_RUN_NANOS || ran > RUN_NANOS && periodicReads.get() > 0;
        }

        @Override
        public boolean stopping() {
            return stopping || outcome != null;
        }

        @Override
        public void finish(VmOutcome o) {
            if (outcome == null) outcome = o;
        }
    }
}
