package org.jkvm.vmm.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jkvm.kvm.EventFd;
import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.IovecQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.jkvm.vmm.virtio.FakeRam.AVAIL;
import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.FakeRam.DESC;
import static org.jkvm.vmm.virtio.FakeRam.USED;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_NEXT;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transport as Linux's virtio_mmio driver drives it: identification, feature negotiation,
 * queue set-up, a notification served on the worker thread and answered with an interrupt, and
 * DEVICE_NEEDS_RESET for a guest that breaks the protocol, until it resets the device.
 */
@Tag("unit")
class VirtioMmioTest {
    private static final int STATUS = 0x70, QUEUE_READY = 0x44, INTERRUPT_STATUS = 0x60, INTERRUPT_ACK = 0x64;
    private static final int ACK_DRIVER = 1 | 2, FEATURES_OK = 8, DRIVER_OK = 4;

    private final FakeRam ram = new FakeRam(0x10000);
    private final EventFd doorbell = EventFd.create();
    private final Semaphore interrupts = new Semaphore(0);
    private final VirtioMmio mmio = new VirtioMmio(new VirtioRng("virtio-rng"), ram, doorbell, interrupts::release);

    @AfterEach
    void tearDown() {
        mmio.close();
        doorbell.close();
    }

    private long read(int offset) {
        return mmio.read(0, offset, 4);
    }

    private void write(int offset, long value) {
        mmio.write(0, offset, 4, value);
    }

    private void negotiate() {
        negotiate(0);
    }

    /** Negotiates VIRTIO_F_VERSION_1 and {@code lowFeatures} (bits 0-31), and sets up queue 0 with 8 entries. */
    private void negotiate(long lowFeatures) {
        write(STATUS, ACK_DRIVER);
        write(0x24, 0);
        write(0x20, lowFeatures);
        write(0x24, 1);
        write(0x20, 1); // VIRTIO_F_VERSION_1 is bit 0 of the high word
        write(STATUS, ACK_DRIVER | FEATURES_OK);
        assertEquals(ACK_DRIVER | FEATURES_OK, read(STATUS));
        write(0x30, 0);
        assertEquals(256, read(0x34));
        write(0x38, 8);
        write(0x80, DESC);
        write(0x90, AVAIL);
        write(0xa0, USED);
        write(QUEUE_READY, 1);
        assertEquals(1, read(QUEUE_READY));
        write(STATUS, ACK_DRIVER | FEATURES_OK | DRIVER_OK);
    }

    @Test
    void identifiesAsAVersionTwoDevice() {
        assertEquals(0x74726976, read(0x000));
        assertEquals(2, read(0x004));
        assertEquals(4, read(0x008));
        write(0x14, 1);
        assertEquals(1, read(0x010));
        assertEquals(0, mmio.read(0, 0x000, 2), "registers answer 32-bit reads only");
    }

    @Test
    void featuresWithoutVersion1OrNotOfferedAreNotAccepted() {
        write(STATUS, ACK_DRIVER);
        write(STATUS, ACK_DRIVER | FEATURES_OK);
        assertEquals(ACK_DRIVER, read(STATUS));
        write(0x24, 1);
        write(0x20, 1 | 2);
        write(STATUS, ACK_DRIVER | FEATURES_OK);
        assertEquals(ACK_DRIVER, read(STATUS));
    }

    @Test
    void theDeviceLearnsTheAcceptedFeaturesAndItsOwnInputWakesTheWorker() throws InterruptedException {
        List<Long> negotiated = new ArrayList<>();
        Semaphore served = new Semaphore(0);
        FrameFd[] input = FrameFd.socketPair();
        MemorySegment frame = Arena.global().allocate(1);
        IovecQueue intoFrame = IovecQueue.of(frame);
        VirtioDevice device = new VirtioDevice() {
            @Override public int deviceId() { return 4; }
            @Override public String name() { return "test-device"; }
            @Override public long features() { return VirtioMmio.F_VERSION_1; }
            @Override public int queues() { return 1; }
            @Override public void negotiated(long features) { negotiated.add(features); }
            @Override public boolean awaitWork(EventFd doorbell) { return input[1].awaitReadable(doorbell, -1); }
            @Override public boolean serve(int index, VirtQueue queue) {
                if (input[1].read(intoFrame) > 0) served.release();
                return false;
            }
            @Override public void close() {
                input[1].close();
            }
        };
        try (FrameFd in = input[0]; EventFd bell = EventFd.create(); VirtioMmio m = new VirtioMmio(device, ram, bell, () -> { })) {
            m.write(0, STATUS, 4, ACK_DRIVER);
            m.write(0, 0x24, 4, 1);
            m.write(0, 0x20, 4, 1);
            m.write(0, STATUS, 4, ACK_DRIVER | FEATURES_OK);
            assertEquals(List.of(VirtioMmio.F_VERSION_1), negotiated);
            m.write(0, 0x38, 4, 8);
            m.write(0, 0x80, 4, DESC);
            m.write(0, 0x90, 4, AVAIL);
            m.write(0, 0xa0, 4, USED);
            m.write(0, QUEUE_READY, 4, 1);
            m.write(0, STATUS, 4, ACK_DRIVER | FEATURES_OK | DRIVER_OK);
            in.write(List.of(frame));
            assertTrue(served.tryAcquire(5, TimeUnit.SECONDS), "the device's own input serves the queues");
        }
    }

    @Test
    void aNotificationIsServedOffTheVcpuThreadAndInterrupts() throws InterruptedException {
        negotiate();
        ram.descriptor(0, DATA, 32, DESC_F_WRITE, 0);
        ram.offer(0, 8);
        write(0x50, 0);
        assertTrue(interrupts.tryAcquire(5, TimeUnit.SECONDS));
        assertEquals(1, ram.usedIndex());
        assertEquals(32, ram.usedEntry(0)[1]);
        assertEquals(1, read(INTERRUPT_STATUS));
        write(INTERRUPT_ACK, 1);
        assertEquals(0, read(INTERRUPT_STATUS));
    }

    /** Offers a 32-byte writable chain, notifies, and waits until the worker used it. */
    private void offerAndWaitForUse() {
        ram.descriptor(0, DATA, 32, DESC_F_WRITE, 0);
        ram.offer(0, 8);
        write(0x50, 0);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ram.usedIndex() == 0 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertEquals(1, ram.usedIndex(), "the chain is used");
    }

    @Test
    void aDriverPollingTheUsedRingIsNotInterrupted() throws InterruptedException {
        negotiate();
        ram.memory.set(ValueLayout.JAVA_BYTE, AVAIL - FakeRam.BASE, (byte) VirtQueue.AVAIL_F_NO_INTERRUPT);
        offerAndWaitForUse();
        assertFalse(interrupts.tryAcquire(200, TimeUnit.MILLISECONDS), "but the driver asked for no interrupt");
        assertEquals(0, read(INTERRUPT_STATUS));
    }

    @Test
    void aMalformedChainSetsNeedsResetUntilTheDriverResets() throws InterruptedException {
        negotiate();
        ram.descriptor(0, DATA, 32, DESC_F_WRITE | DESC_F_NEXT, 0);
        ram.offer(0, 8);
        write(0x50, 0);
        assertTrue(interrupts.tryAcquire(5, TimeUnit.SECONDS));
        assertEquals(64, read(STATUS) & 64);
        assertEquals(2, read(INTERRUPT_STATUS));
        assertEquals(0, ram.usedIndex());

        write(STATUS, 0);
        assertEquals(0, read(STATUS));
        assertEquals(0, read(QUEUE_READY));
        ram.descriptor(0, DATA, 32, DESC_F_WRITE, 0);
        ram.clearRings();
        negotiate();
        ram.offer(0, 8);
        write(0x50, 0);
        assertTrue(interrupts.tryAcquire(5, TimeUnit.SECONDS));
        assertEquals(1, ram.usedIndex(), "the re-made queue serves again");
    }

    @Test
    void selectorsAreUnsignedGuestValues() {
        for (long sel : new long[] {0x8000_0000L, 0xffff_ffffL, 2, 1_000_000}) {
            write(0x30, sel);
            assertEquals(0, read(0x34), "no queue " + Long.toHexString(sel));
            write(0x38, 8);
            write(QUEUE_READY, 1);
            assertEquals(0, read(QUEUE_READY));
            write(0x14, sel);
            assertEquals(0, read(0x010), "no feature word " + Long.toHexString(sel));
            write(0x24, sel);
            write(0x20, 0xffff_ffffL);
        }
        write(0x14, 0);
        write(STATUS, ACK_DRIVER);
        write(0x24, 1);
        write(0x20, 1);
        write(STATUS, ACK_DRIVER | FEATURES_OK);
        assertEquals(ACK_DRIVER | FEATURES_OK, read(STATUS), "the stray feature writes went nowhere");
    }

    @Test
    void aQueueOutsideGuestMemoryNeedsReset() {
        write(STATUS, ACK_DRIVER);
        write(0x38, 8);
        write(0x80, 0x10);
        write(QUEUE_READY, 1);
        assertEquals(0, read(QUEUE_READY));
        assertEquals(64, read(STATUS) & 64);
    }

    @Test
    void withEventIdxTheDriverIsInterruptedOnlyOnceTheUsedIndexPassesItsUsedEvent() throws InterruptedException {
        write(0x14, 0);
        assertEquals(VirtioMmio.F_EVENT_IDX, read(0x10) & VirtioMmio.F_EVENT_IDX, "offered");
        negotiate(VirtioMmio.F_EVENT_IDX);
        ram.memory.set(ValueLayout.JAVA_SHORT_UNALIGNED, AVAIL - FakeRam.BASE + 4 + 2 * 8, (short) 1); // used_event
        offerAndWaitForUse();
        assertFalse(interrupts.tryAcquire(200, TimeUnit.MILLISECONDS), "used index 1 does not pass used_event 1");
        assertEquals(1, ram.memory.get(ValueLayout.JAVA_SHORT_UNALIGNED, USED - FakeRam.BASE + 4 + 8 * 8),
                "avail_event: notify for the next chain");
        ram.offer(0, 8);
        write(0x50, 0);
        assertTrue(interrupts.tryAcquire(5, TimeUnit.SECONDS), "used index 2 does");
        assertEquals(2, ram.usedIndex());
    }
}
