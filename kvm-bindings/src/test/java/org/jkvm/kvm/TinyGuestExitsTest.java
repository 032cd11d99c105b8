package org.jkvm.kvm;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real KVM: a tiny real-mode guest's port and MMIO exits, answered from Java. */
@Tag("kvm")
class TinyGuestExitsTest {
    private static Kvm kvm;

    @BeforeAll
    static void open() {
        kvm = KvmTier.openOrSkip();
    }

    @AfterAll
    static void close() {
        if (kvm != null) kvm.close();
    }

    /**
     * OUT 'J' to port 0x3f8; write 0x5a to unmapped 0x9000; read unmapped 0x9008; add one to
     * what was read and OUT it to port 0x3f9; HLT.
     */
    private static final byte[] PROGRAM = {
        (byte) 0xba, (byte) 0xf8, 0x03,             // mov dx, 0x3f8
        (byte) 0xb0, 'J',                           // mov al, 'J'
        (byte) 0xee,                                // out dx, al
        (byte) 0xc6, 0x06, 0x00, (byte) 0x90, 0x5a, // mov byte [0x9000], 0x5a
        (byte) 0xa0, 0x08, (byte) 0x90,             // mov al, [0x9008]
        (byte) 0xfe, (byte) 0xc0,                   // inc al
        (byte) 0xba, (byte) 0xf9, 0x03,             // mov dx, 0x3f9
        (byte) 0xee,                                // out dx, al
        (byte) 0xf4,                                // hlt
    };

    @Test
    void portAndMmioExitsCarryTheGuestsValuesAndAnAnsweredReadReachesTheGuest() {
        try (TinyGuest g = new TinyGuest(kvm, PROGRAM)) {
            KvmRun run = g.vcpu.kvmRun();

            assertEquals(ExitReason.IO, g.vcpu.run());
            assertTrue(run.ioIsOut());
            assertEquals(0x3f8, run.ioPort());
            assertEquals(1, run.ioSize());
            assertEquals('J', run.ioValue());

            assertEquals(ExitReason.MMIO, g.vcpu.run());
            assertTrue(run.mmioIsWrite());
            assertEquals(0x9000, run.mmioAddress());
            assertEquals(1, run.mmioLength());
            assertEquals(0x5a, run.mmioValue());

            assertEquals(ExitReason.MMIO, g.vcpu.run());
            assertFalse(run.mmioIsWrite());
            assertEquals(0x9008, run.mmioAddress());
            assertEquals(1, run.mmioLength());
            run.setMmioValue(0x41);

            assertEquals(ExitReason.IO, g.vcpu.run());
            assertEquals(0x3f9, run.ioPort());
            assertEquals(0x42, run.ioValue(), "the guest added one to the value Java answered");

            assertEquals(ExitReason.HLT, g.vcpu.run());
        }
    }

    @Test
    void aSpinningVcpuIsKickedOutOfKvmRunWithin100ms() throws Exception {
        byte[] spin = {(byte) 0xeb, (byte) 0xfe}; // jmp $
        try (TinyGuest g = new TinyGuest(kvm, spin)) {
            CompletableFuture<Long> bound = new CompletableFuture<>();
            CompletableFuture<ExitReason> exited = new CompletableFuture<>();
            Thread t = Thread.ofPlatform().name("vcpu-0").start(() -> {
                try {
                    g.vcpu.bindToCurrentThread();
                    bound.complete(System.nanoTime());
                    exited.complete(g.vcpu.run());
                } catch (Throwable e) {
                    exited.completeExceptionally(e);
                }
            });
            CompletableFuture.anyOf(bound, exited).get(5, TimeUnit.SECONDS);
            assertFalse(exited.isCompletedExceptionally(), () -> "the vCPU thread failed: " + exited.exceptionNow());
            Thread.sleep(200); // long enough to be inside KVM_RUN, spinning
            assertFalse(exited.isDone(), "the guest spins; KVM_RUN must still be running");
            long kicked = System.nanoTime();
            g.vcpu.kick();
            ExitReason r = exited.get(5, TimeUnit.SECONDS);
            Duration took = Duration.ofNanos(System.nanoTime() - kicked);
            t.join();
            assertEquals(ExitReason.INTR, r);
            assertTrue(took.toMillis() < 100, "kick took " + took.toMillis() + " ms");
            assertFalse(g.vcpu.kvmRun().immediateExit(), "run() clears immediate_exit after a kick");
        }
    }

    @Test
    void aKickBeforeRunMakesTheNextRunReturnAtOnce() {
        byte[] spin = {(byte) 0xeb, (byte) 0xfe};
        try (TinyGuest g = new TinyGuest(kvm, spin)) {
            g.vcpu.kick();
            assertEquals(ExitReason.INTR, g.vcpu.run());
        }
    }
}
