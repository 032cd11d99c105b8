package org.jkvm.vmm.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.jkvm.kvm.EventFd;
import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.IovecQueue;
import org.jkvm.kvm.Tap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_NEXT;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * virtio-net's framing against a socket pair standing in for the tap (frames whole, one per
 * read): the 12-byte header and the frame pass unchanged each way, num_buffers is set on receive,
 * headers with offloads the driver did not take are dropped, chains that break the protocol are
 * refused, and a receive buffer waits for its frame, the worker then waiting on the tap too; with
 * VIRTIO_NET_F_MRG_RXBUF a frame spreads over as many chains as it needs.
 */
@Tag("unit")
class VirtioNetTest {
    private static final int SIZE = 16;
    private static final byte[] MAC = {0x52, 0x54, 0, 1, 2, 3};

    private final FakeRam rxRam = new FakeRam(0x20000);
    private final FakeRam txRam = new FakeRam(0x20000);
    private final FrameFd[] pair = FrameFd.socketPair();
    private final FrameFd peer = pair[1];
    private final List<Set<Tap.Offload>> offloads = new ArrayList<>();
    private final VirtioNet net = new VirtioNet("virtio-net0", MAC, pair[0], EnumSet.allOf(Tap.Offload.class), offloads::add);

    @AfterEach
    void tearDown() {
        net.close();
        peer.close();
    }

    private static byte[] frame(int header0, int length) {
        byte[] f = new byte[NetHeader.BYTES + length];
        f[0] = (byte) header0;
        for (int i = NetHeader.BYTES; i < f.length; i++) f[i] = (byte) (i * 7);
        return f;
    }

    /** The frame in two descriptors, split inside the header (any layout). */
    private void offerToSend(byte[] frame) {
        txRam.put(DATA, frame);
        txRam.descriptor(0, DATA, 5, DESC_F_NEXT, 1);
        txRam.descriptor(1, DATA + 5, frame.length - 5, 0, 0);
        txRam.offer(0, SIZE);
    }

    private byte[] peerRead() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(1 << 16);
            long n = peer.read(IovecQueue.of(buf));
            return n < 0 ? null : buf.asSlice(0, n).toArray(JAVA_BYTE);
        }
    }

    private void peerWrite(byte[] frame) {
        try (Arena a = Arena.ofConfined()) {
            assertTrue(peer.write(List.of(a.allocateFrom(JAVA_BYTE, frame))));
        }
    }

    @Test
    void offersTheMacAndTheTapsOffloadsAndPassesTheDriversOnToTheTap() {
        assertArrayEquals(MAC, net.config());
        long f = net.features();
        assertEquals(VirtioMmio.F_VERSION_1 | VirtioNet.F_MAC | VirtioNet.F_MRG_RXBUF | VirtioNet.F_CSUM | VirtioNet.F_GUEST_CSUM
                | VirtioNet.F_HOST_TSO4 | VirtioNet.F_GUEST_TSO4 | VirtioNet.F_HOST_TSO6 | VirtioNet.F_GUEST_TSO6
                | VirtioNet.F_HOST_ECN | VirtioNet.F_GUEST_ECN, f);
        net.negotiated(VirtioMmio.F_VERSION_1 | VirtioNet.F_GUEST_CSUM | VirtioNet.F_GUEST_TSO4 | VirtioNet.F_HOST_TSO6);
        net.reset();
        assertEquals(List.of(EnumSet.of(Tap.Offload.CSUM, Tap.Offload.TSO4), EnumSet.noneOf(Tap.Offload.class)), offloads);
    }

    @Test
    void aTapWithoutOffloadsGetsACardWithout() {
        FrameFd[] p = FrameFd.socketPair();
        try (VirtioNet plain = new VirtioNet("virtio-net1", MAC, p[0], Set.of(), offloads::add)) {
            assertEquals(VirtioMmio.F_VERSION_1 | VirtioNet.F_MAC | VirtioNet.F_MRG_RXBUF, plain.features());
        } finally {
            p[1].close();
        }
    }

    @Test
    void sendsEachFrameWithItsHeaderUnchanged() throws VirtioException {
        VirtQueue tx = txRam.queue(SIZE);
        byte[] frame = frame(0, 60);
        offerToSend(frame);
        assertTrue(net.serve(VirtioNet.TX, tx));
        assertArrayEquals(frame, peerRead());
        assertEquals(1, txRam.usedIndex());
        assertEquals(0, txRam.usedEntry(0)[1]);
    }

    @Test
    void dropsAFrameWhoseHeaderUsesAnOffloadNotNegotiated() throws VirtioException {
        VirtQueue tx = txRam.queue(SIZE);
        offerToSend(frame(NetHeader.F_NEEDS_CSUM, 60));
        assertTrue(net.serve(VirtioNet.TX, tx), "the chain is returned all the same");
        assertEquals(null, peerRead());
        net.negotiated(VirtioMmio.F_VERSION_1 | VirtioNet.F_CSUM);
        offerToSend(frame(NetHeader.F_NEEDS_CSUM, 60));
        assertTrue(net.serve(VirtioNet.TX, tx));
        assertEquals(NetHeader.BYTES + 60, peerRead().length);
    }

    @Test
    void refusesTransmitChainsThatBreakTheProtocol() throws VirtioException {
        VirtQueue tx = txRam.queue(SIZE);
        txRam.descriptor(0, DATA, 100, DESC_F_WRITE, 0);
        txRam.offer(0, SIZE);
        assertThrows(VirtioException.class, () -> net.serve(VirtioNet.TX, tx));
        txRam.descriptor(1, DATA, 11, 0, 0);
        txRam.offer(1, SIZE);
        assertThrows(VirtioException.class, () -> net.serve(VirtioNet.TX, tx), "shorter than the header");
    }

    @Test
    void receivesAFrameIntoScatteredBuffersWithNumBuffersSet() throws VirtioException {
        VirtQueue rx = rxRam.queue(SIZE);
        rxRam.descriptor(0, DATA, 11, DESC_F_WRITE | DESC_F_NEXT, 1);
        rxRam.descriptor(1, DATA + 0x100, 1600, DESC_F_WRITE, 0);
        rxRam.offer(0, SIZE);
        byte[] frame = frame(0, 60);
        frame[NetHeader.NUM_BUFFERS] = (byte) 0xaa; // the tap leaves num_buffers alone
        frame[NetHeader.NUM_BUFFERS + 1] = (byte) 0xbb;
        peerWrite(frame);
        assertTrue(net.serve(VirtioNet.RX, rx));
        assertEquals(frame.length, rxRam.usedEntry(0)[1]);
        assertEquals(1, rxRam.get(DATA + NetHeader.NUM_BUFFERS));
        assertEquals(0, rxRam.get(DATA + 0x100));
        for (int i = NetHeader.BYTES; i < frame.length; i++) assertEquals(frame[i], rxRam.get(DATA + 0x100 + i - 11));
    }

    @Test
    void aReceiveBufferWaitingForAFrameMakesTheWorkerWaitOnTheTapToo() throws Exception {
        try (EventFd doorbell = EventFd.create()) {
            VirtQueue rx = rxRam.queue(SIZE);
            assertFalse(net.serve(VirtioNet.RX, rx), "no buffer: nothing to wait for");
            assertFalse(awaits(doorbell), "the worker waits on the doorbell alone");
            rxRam.descriptor(0, DATA, 2048, DESC_F_WRITE, 0);
            rxRam.offer(0, SIZE);
            assertFalse(net.serve(VirtioNet.RX, rx), "no frame yet: the chain is held");
            assertEquals(0, rxRam.usedIndex());
            assertFalse(awaits(doorbell));
            peerWrite(frame(0, 100));
            assertTrue(awaits(doorbell), "the frame is work");
            assertTrue(net.serve(VirtioNet.RX, rx));
            assertEquals(1, rxRam.usedIndex());
            assertEquals(NetHeader.BYTES + 100, rxRam.usedEntry(0)[1]);
            doorbell.signal();
            assertTrue(awaits(doorbell), "and the doorbell still is");
        }
    }

    /** Whether {@link VirtioNet#awaitWork} returns within half a second. */
    private boolean awaits(EventFd doorbell) throws Exception {
        FutureTask<Boolean> wait = new FutureTask<>(() -> net.awaitWork(doorbell));
        Thread t = Thread.ofPlatform().daemon().start(wait);
        try {
            return wait.get(500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            doorbell.signal();
            t.join();
            doorbell.take();
            return false;
        }
    }

    /**
     * Deciding after each frame instead (the driver then polls from the first frame on) raised
     * 1.5-3x the guest's interrupts and was slower in bench/net/run-arm64: an interrupt costs the
     * guest more than the frames it waits for.
     */
    @Test
    void aBurstOfFramesInterruptsTheDriverOnceAfterItsLastFrame() throws Exception {
        List<Integer> usedAtInterrupt = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            peerWrite(frame(0, 100));
            rxRam.descriptor(i, DATA + 2048L * i, 2048, DESC_F_WRITE, 0);
            rxRam.offer(i, SIZE);
        }
        try (EventFd doorbell = EventFd.create();
             VirtioMmio mmio = new VirtioMmio(net, rxRam, doorbell, () -> usedAtInterrupt.add(rxRam.usedIndex()))) {
            driverSetsUpTheReceiveQueueWithEventIdx(mmio);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (rxRam.usedIndex() < 3 && System.nanoTime() < deadline) Thread.onSpinWait();
            assertEquals(3, rxRam.usedIndex(), "all three frames are delivered");
        }
        // used_event 0: the driver wants an interrupt once the first frame is in; the device asks after the burst
        assertEquals(List.of(3), usedAtInterrupt);
    }

    /** What Linux's driver does: features VERSION_1 and EVENT_IDX, queue 0 of {@link #SIZE} entries at FakeRam's rings, DRIVER_OK. */
    private static void driverSetsUpTheReceiveQueueWithEventIdx(VirtioMmio mmio) {
        int status = 0x70, acknowledgeDriver = 1 | 2, featuresOk = 8, driverOk = 4;
        mmio.write(0, status, 4, acknowledgeDriver);
        mmio.write(0, 0x24, 4, 0);
        mmio.write(0, 0x20, 4, VirtioMmio.F_EVENT_IDX);
        mmio.write(0, 0x24, 4, 1);
        mmio.write(0, 0x20, 4, VirtioMmio.F_VERSION_1 >>> 32);
        mmio.write(0, status, 4, acknowledgeDriver | featuresOk);
        mmio.write(0, 0x30, 4, VirtioNet.RX);
        mmio.write(0, 0x38, 4, SIZE);
        mmio.write(0, 0x80, 4, FakeRam.DESC);
        mmio.write(0, 0x90, 4, FakeRam.AVAIL);
        mmio.write(0, 0xa0, 4, FakeRam.USED);
        mmio.write(0, 0x44, 4, 1);
        mmio.write(0, status, 4, acknowledgeDriver | featuresOk | driverOk);
    }

    @Test
    void refusesReceiveChainsThatBreakTheProtocol() throws VirtioException {
        VirtQueue rx = rxRam.queue(SIZE);
        rxRam.descriptor(0, DATA, 2048, 0, 0);
        rxRam.offer(0, SIZE);
        assertThrows(VirtioException.class, () -> net.serve(VirtioNet.RX, rx), "device-readable");
        rxRam.descriptor(1, DATA, 20, DESC_F_WRITE, 0);
        rxRam.offer(1, SIZE);
        assertThrows(VirtioException.class, () -> net.serve(VirtioNet.RX, rx), "too small for a header and a frame");
    }

    private static final long MERGE = VirtioMmio.F_VERSION_1 | VirtioNet.F_MRG_RXBUF;

    /** Makes {@code count} receive chains of {@code len} bytes each available, one after another in guest memory. */
    private void offerToReceive(int first, int count, int len) {
        for (int i = first; i < first + count; i++) {
            rxRam.descriptor(i, DATA + (long) i * len, len, DESC_F_WRITE, 0);
            rxRam.offer(i, SIZE);
        }
    }

    private int numBuffersAt(long gpa) {
        return Byte.toUnsignedInt(rxRam.get(gpa + NetHeader.NUM_BUFFERS)) | Byte.toUnsignedInt(rxRam.get(gpa + NetHeader.NUM_BUFFERS + 1)) << 8;
    }

    @Test
    void mergeableBuffersTakeAFrameAcrossAsManyChainsAsItNeeds() throws VirtioException {
        net.negotiated(MERGE);
        VirtQueue rx = rxRam.queue(SIZE);
        offerToReceive(0, SIZE, 1000); // the queue's every descriptor: no more can come
        byte[] big = frame(0, 2500), small = frame(0, 60);
        peerWrite(big);
        peerWrite(small);
        assertTrue(net.serve(VirtioNet.RX, rx));
        assertEquals(3, rxRam.usedIndex(), "three chains for the first frame; the second waits for three more");
        assertEquals(3, numBuffersAt(DATA));
        for (int i = 0; i < 3; i++) assertEquals(List.of((long) i, (long) Math.min(1000, big.length - 1000 * i)), List.of(rxRam.usedEntry(i)[0], rxRam.usedEntry(i)[1]));
        for (int i = NetHeader.BYTES; i < big.length; i++) assertEquals(big[i], rxRam.get(DATA + i));
        offerToReceive(0, 3, 1000);
        assertTrue(net.serve(VirtioNet.RX, rx));
        assertEquals(4, rxRam.usedIndex());
        assertEquals(1, numBuffersAt(DATA + 3000));
        assertEquals(List.of(3L, (long) small.length), List.of(rxRam.usedEntry(3)[0], rxRam.usedEntry(3)[1]));
    }

    @Test
    void aDriverPollingMeanwhileSeesAFramesChainsAllAtOnce() throws Exception {
        net.negotiated(MERGE);
        VirtQueue rx = rxRam.queue(SIZE);
        offerToReceive(0, SIZE, 1000);
        byte[] frame = frame(0, 2488); // 2500 bytes with the header: three chains of 1000
        int frames = 20_000; // the used index stays below 2^16, whose wrap is not a multiple of 3
        AtomicInteger torn = new AtomicInteger(-1);
        AtomicBoolean done = new AtomicBoolean();
        // The driver's side polling the used index while the device works, as Linux's NAPI does:
        // an index inside a frame would have it take the first chain without the others and drop the frame.
        Thread driver = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                int idx = rxRam.usedIndex();
                if (idx % 3 != 0) torn.compareAndSet(-1, idx);
            }
        });
        try {
            for (int i = 0; i < frames; i++) {
                peerWrite(frame);
                assertTrue(net.serve(VirtioNet.RX, rx));
                for (int k = 0; k < 3; k++) rxRam.offer((int) rxRam.usedEntry((3 * i + k) % SIZE)[0], SIZE);
            }
        } finally {
            done.set(true);
            driver.join();
        }
        assertEquals(3 * frames, rxRam.usedIndex());
        assertEquals(-1, torn.get(), "the driver saw the used index stop inside a frame");
    }

    @Test
    void mergeableBuffersWaitForChainsThatHoldTheLongestFrame() throws Exception {
        net.negotiated(MERGE);
        try (EventFd doorbell = EventFd.create()) {
            VirtQueue rx = rxRam.queue(SIZE);
            offerToReceive(0, 2, 22_000);
            peerWrite(frame(0, 100));
            assertFalse(net.serve(VirtioNet.RX, rx), "44000 bytes of chains: a longer frame may come");
            assertFalse(awaits(doorbell), "the frame is no work until the driver adds a chain");
            offerToReceive(2, 1, 22_000);
            assertTrue(net.serve(VirtioNet.RX, rx));
            assertEquals(1, rxRam.usedIndex());
            assertEquals(1, numBuffersAt(DATA));
            byte[] longest = frame(0, 50_000);
            peerWrite(longest);
            assertFalse(net.serve(VirtioNet.RX, rx), "two chains left");
            offerToReceive(3, 1, 22_000);
            assertTrue(net.serve(VirtioNet.RX, rx));
            assertEquals(4, rxRam.usedIndex());
            assertEquals(3, numBuffersAt(DATA + 22_000));
            assertEquals(List.of(22_000L, 22_000L, (long) longest.length - 44_000),
                    List.of(rxRam.usedEntry(1)[1], rxRam.usedEntry(2)[1], rxRam.usedEntry(3)[1]));
            for (int i = NetHeader.BYTES; i < longest.length; i++) assertEquals(longest[i], rxRam.get(DATA + 22_000 + i));
        }
    }

    @Test
    void mergeableChainsShorterThanTheHeaderBreakTheProtocol() throws VirtioException {
        net.negotiated(MERGE);
        VirtQueue rx = rxRam.queue(SIZE);
        rxRam.descriptor(0, DATA, 12, DESC_F_WRITE, 0);
        rxRam.descriptor(1, DATA + 12, 11, DESC_F_WRITE, 0);
        rxRam.offer(0, SIZE);
        rxRam.offer(1, SIZE);
        assertThrows(VirtioException.class, () -> net.serve(VirtioNet.RX, rx));
    }
}
