package org.jkvm.vmm.virtio;

import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.jkvm.vmm.virtio.FakeRam.AVAIL;
import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.FakeRam.DESC;
import static org.jkvm.vmm.virtio.FakeRam.USED;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_INDIRECT;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_NEXT;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The split queue reads well-formed chains and refuses every malformed one a guest can make. */
@Tag("unit")
class VirtQueueTest {
    private static final int SIZE = 8;
    private static final long TABLE = DATA + 0x800;
    private final FakeRam ram = new FakeRam(0x10000);

    private String refusal() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        return assertThrows(VirtioException.class, q::next).getMessage();
    }

    /** The refusal of a chain whose head is descriptor {@code i}, written as given. */
    private String refusalOf(int i, long addr, int len, int flags, int next) throws VirtioException {
        ram.descriptor(i, addr, len, flags, next);
        ram.offer(i, SIZE);
        return refusal();
    }

    @Test
    void aChainIsReadableBuffersThenWritableOnesAndIsReturnedThroughTheUsedRing() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        assertNull(q.next());
        ram.descriptor(3, DATA, 16, DESC_F_NEXT, 5);
        ram.descriptor(5, DATA + 16, 512, DESC_F_NEXT | DESC_F_WRITE, 1);
        ram.descriptor(1, DATA + 528, 1, DESC_F_WRITE, 0);
        ram.offer(3, SIZE);
        DescriptorChain c = q.next();
        assertEquals(3, c.head());
        assertEquals(1, c.readable().size());
        assertEquals(16, c.readable().getFirst().byteSize());
        assertEquals(513, c.writableBytes());
        assertNull(q.next());
        q.complete(3, 513);
        assertEquals(1, ram.usedIndex());
        assertArrayEquals(new long[] {3, 513}, ram.usedEntry(0));
    }

    @Test
    void entriesAddedTogetherStayUnseenUntilPublishedThenTheIndexCoversThemAll() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        for (int i = 0; i < 3; i++) {
            ram.descriptor(i, DATA + 0x100L * i, 0x100, DESC_F_WRITE, 0);
            ram.offer(i, SIZE);
        }
        q.addUsed(q.next().head(), 0x100);
        q.addUsed(q.next().head(), 0x100);
        assertEquals(0, ram.usedIndex(), "the driver must not see a frame's first chain without the rest");
        q.addUsed(q.next().head(), 7);
        q.publishUsed();
        assertEquals(3, ram.usedIndex());
        assertArrayEquals(new long[] {2, 7}, ram.usedEntry(2));
    }

    @Test
    void theRingsWrapAroundTheQueueAndTheSixteenBitIndex() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        ram.descriptor(0, DATA, 8, DESC_F_WRITE, 0);
        for (int i = 0; i < 70_000; i++) {
            ram.offer(0, SIZE);
            DescriptorChain c = q.next();
            q.complete(c.head(), 8);
        }
        assertEquals(70_000 & 0xffff, ram.usedIndex());
    }

    @Test
    void aLoopIsRefusedOnceTheChainOutgrowsTheQueue() throws VirtioException {
        ram.descriptor(0, DATA, 8, DESC_F_NEXT, 1);
        ram.descriptor(1, DATA, 8, DESC_F_NEXT, 0);
        ram.offer(0, SIZE);
        assertTrue(refusal().contains("longer than the queue"), refusal());
    }

    @Test
    void aSelfLoopIsRefused() throws VirtioException {
        assertTrue(refusalOf(2, DATA, 8, DESC_F_NEXT, 2).contains("a loop?"));
    }

    @Test
    void aHeadOrNextIndexOutsideTheQueueIsRefused() throws VirtioException {
        ram.offer(SIZE, SIZE);
        assertTrue(refusal().contains("descriptor index 8 in the queue of 8"));
        FakeRam other = new FakeRam(0x10000);
        other.descriptor(0, DATA, 8, DESC_F_NEXT, 0xffff);
        other.offer(0, SIZE);
        VirtQueue q = other.queue(SIZE);
        assertTrue(assertThrows(VirtioException.class, q::next).getMessage().contains("descriptor index 65535"));
    }

    @Test
    void aBufferOutsideGuestMemoryIsRefused() throws VirtioException {
        ram.descriptor(0, FakeRam.BASE + 0x10000 - 4, 8, 0, 0);
        ram.offer(0, SIZE);
        assertTrue(refusal().contains("not in guest memory"), refusal());
        ram.descriptor(0, 0, 8, 0, 0);
        assertTrue(refusal().contains("[0x0, +0x8)"), refusal());
        ram.descriptor(0, -8, 16, 0, 0);
        assertTrue(refusal().contains("not in guest memory"), refusal());
        ram.descriptor(0, DATA, -1, 0, 0);
        assertTrue(refusal().contains("+0xffffffff"), refusal());
    }

    @Test
    void aZeroLengthBufferIsRefused() throws VirtioException {
        assertTrue(refusalOf(0, DATA, 0, 0, 0).contains("length 0"));
    }

    @Test
    void anIndirectDescriptorIsRefusedAsItWasNotNegotiated() throws VirtioException {
        assertTrue(refusalOf(0, DATA, 32, DESC_F_INDIRECT, 0).contains("indirect"));
    }

    @Test
    void anIndirectTableIsReadAsTheChainWhereNegotiated() throws VirtioException {
        VirtQueue q = ram.queue(SIZE, true);
        ram.descriptor(4, TABLE, 3 * 16, DESC_F_INDIRECT, 0);
        ram.descriptorAt(TABLE, 0, DATA, 16, DESC_F_NEXT, 1);
        ram.descriptorAt(TABLE, 1, DATA + 16, 512, DESC_F_WRITE | DESC_F_NEXT, 2);
        ram.descriptorAt(TABLE, 2, DATA + 528, 1, DESC_F_WRITE, 0);
        ram.offer(4, SIZE);
        DescriptorChain c = q.next();
        assertEquals(4, c.head());
        assertEquals(16, Buffers.total(c.readable()));
        assertEquals(513, c.writableBytes());
    }

    private String indirectRefusal(int len, int flags) throws VirtioException {
        ram.descriptor(0, TABLE, len, DESC_F_INDIRECT | flags, 1);
        ram.offer(0, SIZE);
        VirtQueue q = ram.queue(SIZE, true);
        return assertThrows(VirtioException.class, q::next).getMessage();
    }

    @Test
    void malformedIndirectTablesAreRefused() throws VirtioException {
        ram.descriptorAt(TABLE, 0, DATA, 8, DESC_F_NEXT, 1);
        ram.descriptorAt(TABLE, 1, DATA, 8, DESC_F_NEXT, 0);
        assertTrue(indirectRefusal(32, 0).contains("longer than the indirect table's 2 entries"));
        ram.descriptorAt(TABLE, 1, DATA, 8, DESC_F_NEXT, 2);
        assertTrue(indirectRefusal(32, 0).contains("descriptor index 2 in the indirect table of 2"));
        assertTrue(indirectRefusal(24, 0).contains("not 1..8 whole descriptors"));
        assertTrue(indirectRefusal(16 * (SIZE + 1), 0).contains("not 1..8 whole descriptors"));
        assertTrue(indirectRefusal(32, DESC_F_NEXT).contains("has a next"));
        ram.descriptorAt(TABLE, 1, TABLE, 32, DESC_F_INDIRECT, 0);
        assertTrue(indirectRefusal(32, 0).contains("indirect itself"));
        ram.descriptor(0, FakeRam.BASE + 0x10000 - 16, 32, DESC_F_INDIRECT, 0);
        assertTrue(refusal().contains("not negotiated"));
        VirtQueue q = ram.queue(SIZE, true);
        assertTrue(assertThrows(VirtioException.class, q::next).getMessage().contains("not in guest memory"));
    }

    @Test
    void aReadableBufferAfterAWritableOneIsRefused() throws VirtioException {
        ram.descriptor(0, DATA, 8, DESC_F_WRITE | DESC_F_NEXT, 1);
        ram.descriptor(1, DATA, 8, 0, 0);
        ram.offer(0, SIZE);
        assertTrue(refusal().contains("device-readable after a device-writable"));
    }

    @Test
    void anAvailableIndexTooFarAheadIsRefused() throws VirtioException {
        ram.availIndex(SIZE + 1);
        assertTrue(refusal().contains("9 entries ahead"));
    }

    @Test
    void ringsOutsideGuestMemoryOrMisalignedOrABadSizeAreRefused() {
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, SIZE, 256, DESC + 8, AVAIL, USED, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, SIZE, 256, DESC, AVAIL + 1, USED, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, SIZE, 256, DESC, AVAIL, USED + 2, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, SIZE, 256, DESC, AVAIL, FakeRam.BASE + 0x10000 - 16, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, 0, 256, DESC, AVAIL, USED, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, 512, 256, DESC, AVAIL, USED, false, false));
        assertThrows(VirtioException.class, () -> VirtQueue.open(ram, SIZE, 256, 0, AVAIL, USED, false, false));
    }

    @Test
    void notificationsAreSuppressedWhileServingAndChainsThatCameMeanwhileAreReportedOnce() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        q.suppressNotifications();
        assertEquals(VirtQueue.USED_F_NO_NOTIFY, ram.memory.get(ValueLayout.JAVA_BYTE, USED - FakeRam.BASE));
        assertFalse(q.resumeNotifications(), "nothing came");
        assertEquals(0, ram.memory.get(ValueLayout.JAVA_BYTE, USED - FakeRam.BASE));
        ram.descriptor(0, DATA, 16, 0, 0);
        q.suppressNotifications();
        ram.offer(0, SIZE); // made available without a notification
        assertTrue(q.resumeNotifications());
        assertFalse(q.resumeNotifications(), "reported once, even if the device leaves it in the ring");
        assertEquals(0, q.next().head());
        assertFalse(q.resumeNotifications());
    }

    @Test
    void theDriverMaySayItWantsNoInterrupt() throws VirtioException {
        VirtQueue q = ram.queue(SIZE);
        assertTrue(q.interruptWanted());
        ram.memory.set(ValueLayout.JAVA_BYTE, AVAIL - FakeRam.BASE, (byte) VirtQueue.AVAIL_F_NO_INTERRUPT);
        assertFalse(q.interruptWanted());
    }

    /** avail_event, after the used ring of a queue of {@link #SIZE}. */
    private int availEvent() {
        return Short.toUnsignedInt(ram.memory.get(ValueLayout.JAVA_SHORT_UNALIGNED, USED - FakeRam.BASE + 4 + 8L * SIZE));
    }

    private void usedEvent(int idx) {
        ram.memory.set(ValueLayout.JAVA_SHORT_UNALIGNED, AVAIL - FakeRam.BASE + 4 + 2L * SIZE, (short) idx);
    }

    @Test
    void withEventIdxTheDeviceAsksToBeNotifiedForTheNextChainItHasNotTakenAndLeavesTheFlagsAlone() throws VirtioException {
        VirtQueue q = ram.eventIdxQueue(SIZE);
        ram.descriptor(0, DATA, 16, 0, 0);
        ram.offer(0, SIZE);
        ram.offer(0, SIZE);
        q.suppressNotifications();
        assertEquals(0, ram.memory.get(ValueLayout.JAVA_BYTE, USED - FakeRam.BASE), "the driver ignores the flags with EVENT_IDX");
        assertEquals(0, q.next().head());
        assertFalse(q.resumeNotifications(), "next() saw both chains");
        assertEquals(1, availEvent(), "notify when the chain at index 1 is made available: it is, so no notification comes");
        assertEquals(0, q.next().head());
        assertFalse(q.resumeNotifications());
        assertEquals(2, availEvent());
    }

    @Test
    void withEventIdxAnInterruptIsWantedOnlyOnceTheUsedIndexPassesUsedEvent() throws VirtioException {
        VirtQueue q = ram.eventIdxQueue(SIZE);
        ram.descriptor(0, DATA, 16, 0, 0);
        for (int i = 0; i < 4; i++) ram.offer(0, SIZE);
        usedEvent(1); // interrupt when the entry at used index 1 is written
        q.complete(q.next().head(), 0);
        assertFalse(q.interruptWanted(), "used index 1 does not pass used_event 1");
        q.complete(q.next().head(), 0);
        assertTrue(q.interruptWanted(), "used index 2 does");
        q.complete(q.next().head(), 0);
        assertFalse(q.interruptWanted(), "the driver has not asked again: used_event is still behind");
        ram.memory.set(ValueLayout.JAVA_BYTE, AVAIL - FakeRam.BASE, (byte) VirtQueue.AVAIL_F_NO_INTERRUPT);
        usedEvent(3);
        q.complete(q.next().head(), 0);
        assertTrue(q.interruptWanted(), "the flag is ignored with EVENT_IDX");
    }

    @Test
    void withEventIdxAnyUsedEventAcrossTheSixteenBitWrapIsOnlyAnAnswer() throws VirtioException {
        VirtQueue q = ram.eventIdxQueue(SIZE);
        ram.descriptor(0, DATA, 16, 0, 0);
        ram.offer(0, SIZE);
        usedEvent(0xffff);
        q.complete(q.next().head(), 0);
        assertFalse(q.interruptWanted(), "used_event far ahead (modulo 2^16) asks for no interrupt yet");
        ram.offer(0, SIZE);
        usedEvent(1);
        q.complete(q.next().head(), 0);
        assertTrue(q.interruptWanted());
    }
}
