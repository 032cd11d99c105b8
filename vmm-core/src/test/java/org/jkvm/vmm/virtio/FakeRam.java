package org.jkvm.vmm.virtio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.jkvm.vmm.memory.GuestAddressException;

/**
 * Guest memory for queue tests: {@code size} bytes at guest address {@link #BASE}, with a driver's
 * side of a split queue (descriptor table, available ring, used ring) at fixed addresses.
 */
final class FakeRam implements GuestRam {
    static final long BASE = 0x1000;
    static final long DESC = BASE, AVAIL = BASE + 0x1000, USED = BASE + 0x2000, DATA = BASE + 0x3000;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final MemorySegment memory;
    private int availIdx;

    FakeRam(long size) {
        memory = Arena.ofAuto().allocate(size, 16);
    }

    @Override
    public MemorySegment slice(long gpa, long length) {
        if (gpa < BASE || length < 0 || gpa - BASE > memory.byteSize() || length > memory.byteSize() - (gpa - BASE)) {
            throw new GuestAddressException(gpa, length, null);
        }
        return memory.asSlice(gpa - BASE, length);
    }

    /** Writes descriptor {@code i} of the queue's table. */
    void descriptor(int i, long addr, int len, int flags, int next) {
        descriptorAt(DESC, i, addr, len, flags, next);
    }

    /** Writes descriptor {@code i} of the table at {@code table} (an indirect one). */
    void descriptorAt(long table, int i, long addr, int len, int flags, int next) {
        long at = table - BASE + 16L * i;
        memory.set(U64, at, addr);
        memory.set(U32, at + 8, len);
        memory.set(U16, at + 12, (short) flags);
        memory.set(U16, at + 14, (short) next);
    }

    /** Makes the chain at {@code head} available, in a queue of {@code size}. */
    void offer(int head, int size) {
        memory.set(U16, AVAIL - BASE + 4 + 2L * (availIdx % size), (short) head);
        availIdx = (availIdx + 1) & 0xffff;
        memory.set(U16, AVAIL - BASE + 2, (short) availIdx);
    }

    /** Sets the available index as a driver gone wrong might. */
    void availIndex(int idx) {
        memory.set(U16, AVAIL - BASE + 2, (short) idx);
    }

    /** Starts the rings afresh, as a driver does after a device reset. */
    void clearRings() {
        availIdx = 0;
        memory.set(U16, AVAIL - BASE + 2, (short) 0);
        memory.set(U16, USED - BASE + 2, (short) 0);
    }

    int usedIndex() {
        return Short.toUnsignedInt(memory.get(U16, USED - BASE + 2));
    }

    /** The used ring's entry {@code i}: id and length. */
    long[] usedEntry(int i) {
        long at = USED - BASE + 4 + 8L * i;
        return new long[] {Integer.toUnsignedLong(memory.get(U32, at)), Integer.toUnsignedLong(memory.get(U32, at + 4))};
    }

    byte get(long gpa) {
        return memory.get(ValueLayout.JAVA_BYTE, gpa - BASE);
    }

    void put(long gpa, byte[] bytes) {
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, gpa - BASE, bytes.length);
    }

    VirtQueue queue(int size) throws VirtioException {
        return queue(size, false);
    }

    VirtQueue queue(int size, boolean indirect) throws VirtioException {
        return VirtQueue.open(this, size, 256, DESC, AVAIL, USED, indirect, false);
    }

    /** A queue with VIRTIO_RING_F_EVENT_IDX negotiated. */
    VirtQueue eventIdxQueue(int size) throws VirtioException {
        return VirtQueue.open(this, size, 256, DESC, AVAIL, USED, false, true);
    }
}
