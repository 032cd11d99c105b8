package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import org.jkvm.vmm.memory.GuestAddressException;

/**
 * A split virtqueue (virtio 1.2, 2.7) as the device sees it: the descriptor table, the driver's
 * available ring and the device's used ring, each a slice of guest memory taken once, when the
 * driver makes the queue ready. The guest is not trusted: every index read from its memory is
 * checked against the queue size, every buffer against guest memory, every chain against the
 * queue size (so a loop ends); anything else is a {@link VirtioException}. An indirect table
 * (where negotiated) is checked the same way against its own length, and may not nest. With
 * VIRTIO_RING_F_EVENT_IDX (2.7.7, 2.7.10) notifications and interrupts are asked for by ring
 * index (the used ring's avail_event, the available ring's used_event) instead of by the rings'
 * flags. Used by one device worker thread at a time.
 */
public final class VirtQueue {
    /** The descriptor continues in {@code next}. */
    static final int DESC_F_NEXT = 1;
    /** The buffer is device-writable. */
    static final int DESC_F_WRITE = 2;
    /** The buffer holds a table of descriptors (VIRTIO_RING_F_INDIRECT_DESC). */
    static final int DESC_F_INDIRECT = 4;
    /** Bytes of one descriptor: addr u64, len u32, flags u16, next u16. */
    static final int DESC_BYTES = 16;
    /** Used ring flag: the device asks not to be notified (VIRTQ_USED_F_NO_NOTIFY). */
    static final int USED_F_NO_NOTIFY = 1;
    /** Available ring flag: the driver asks not to be interrupted (VIRTQ_AVAIL_F_NO_INTERRUPT). */
    static final int AVAIL_F_NO_INTERRUPT = 1;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final GuestRam ram;
    private final int size;
    private final boolean indirect;
    private final boolean eventIdx;
    private final MemorySegment descriptors;
    private final MemorySegment avail;
    private final MemorySegment used;
    private int nextAvail;
    private int nextUsed;
    /** The available index the device last read: chains made available after it are news. */
    private int seenAvail;
    /** The used index when the device last decided on an interrupt (EVENT_IDX's "old"). */
    private int signalledUsed;

    private VirtQueue(GuestRam ram, int size, boolean indirect, boolean eventIdx, MemorySegment descriptors,
                      MemorySegment avail, MemorySegment used) {
        this.ram = ram;
        this.size = size;
        this.indirect = indirect;
        this.eventIdx = eventIdx;
        this.descriptors = descriptors;
        this.avail = avail;
        this.used = used;
    }

    /**
     * The queue the driver set up: {@code size} entries, the descriptor table at {@code desc}, the
     * available ring at {@code driver} and the used ring at {@code device}, each aligned as the
     * specification requires and wholly inside guest memory; {@code indirect}: whether the driver
     * took VIRTIO_RING_F_INDIRECT_DESC, {@code eventIdx}: VIRTIO_RING_F_EVENT_IDX.
     */
    public static VirtQueue open(GuestRam ram, int size, int maxSize, long desc, long driver, long device, boolean indirect,
                                 boolean eventIdx) throws VirtioException {
        if (size < 1 || size > maxSize) throw new VirtioException("queue size " + size + " is outside 1.." + maxSize);
        // A split queue's size is a power of 2 (virtio 1.2, 2.7): ring positions are indexes modulo
        // the size, which would disagree with the driver's once the 16-bit index wraps.
        if ((size & (size - 1)) != 0) throw new VirtioException("queue size " + size + " is not a power of 2");
        checkAligned("descriptor table", desc, 16);
        checkAligned("available ring", driver, 2);
        checkAligned("used ring", device, 4);
        // The rings' areas include used_event (after the available ring) and avail_event (after the used ring).
        return new VirtQueue(ram, size, indirect, eventIdx,
                area(ram, "descriptor table", desc, (long) DESC_BYTES * size),
                area(ram, "available ring", driver, 6 + 2L * size),
                area(ram, "used ring", device, 6 + 8L * size));
    }

    private static void checkAligned(String what, long gpa, int alignment) throws VirtioException {
        if (gpa % alignment != 0) {
            throw new VirtioException("%s at 0x%x is not %d-byte aligned".formatted(what, gpa, alignment));
        }
    }

    private static MemorySegment area(GuestRam ram, String what, long gpa, long length) throws VirtioException {
        try {
            return ram.slice(gpa, length);
        } catch (GuestAddressException e) {
            throw new VirtioException(what + ": " + e.getMessage());
        }
    }

    /** The number of entries. */
    public int size() {
        return size;
    }

    /**
     * The next chain the driver made available, checked, or null when there is none. A malformed
     * chain, or an available index that ran more than the queue size ahead, is a {@link VirtioException}.
     */
    public DescriptorChain next() throws VirtioException {
        int availIdx = Short.toUnsignedInt(avail.get(U16, 2));
        VarHandle.acquireFence(); // the ring entries the index covers are read after it
        seenAvail = availIdx;
        int pending = (availIdx - nextAvail) & 0xffff;
        if (pending == 0) return null;
        if (pending > size) {
            throw new VirtioException("available index %d is %d entries ahead of the device's %d in a queue of %d"
                    .formatted(availIdx, pending, nextAvail, size));
        }
        int head = Short.toUnsignedInt(avail.get(U16, 4 + 2L * (nextAvail % size)));
        DescriptorChain chain = chain(head);
        nextAvail = (nextAvail + 1) & 0xffff;
        return chain;
    }

    private DescriptorChain chain(int head) throws VirtioException {
        List<MemorySegment> readable = new ArrayList<>();
        List<MemorySegment> writable = new ArrayList<>();
        MemorySegment table = descriptors;
        int entries = size;
        String where = "queue";
        int index = head;
        for (int count = 1; ; count++) {
            if (index >= entries) throw new VirtioException("descriptor index %d in the %s of %d".formatted(index, where, entries));
            if (count > entries) throw new VirtioException("chain from descriptor %d is longer than the %s's %d entries (a loop?)"
                    .formatted(head, where, entries));
            long at = (long) DESC_BYTES * index;
            long addr = table.get(U64, at);
            // len, flags and next in one little-endian word: a booting guest's first requests run
            // interpreted, where each segment access costs a call chain (bench/blk/README.md, 2026-12-03)
            long word = table.get(U64, at + 8);
            long len = word & 0xffff_ffffL;
            int flags = (int) (word >>> 32) & 0xffff;
            int next = (int) (word >>> 48);
            if (len == 0) throw new VirtioException("descriptor %d has length 0".formatted(index));
            if ((flags & DESC_F_INDIRECT) != 0) {
                checkIndirect(index, len, flags, table != descriptors);
                table = buffer(index, addr, len);
                entries = (int) (len / DESC_BYTES);
                where = "indirect table";
                index = 0;
                count = 0;
                continue;
            }
            MemorySegment buffer = buffer(index, addr, len);
            if ((flags & DESC_F_WRITE) != 0) {
                writable.add(buffer);
            } else if (writable.isEmpty()) {
                readable.add(buffer);
            } else {
                throw new VirtioException("descriptor %d is device-readable after a device-writable one".formatted(index));
            }
            if ((flags & DESC_F_NEXT) == 0) return new DescriptorChain(head, readable, writable);
            index = next;
        }
    }

    /** An indirect descriptor: negotiated, not in a table itself, last in its chain, a table of 1..size entries. */
    private void checkIndirect(int index, long len, int flags, boolean nested) throws VirtioException {
        if (!indirect) throw new VirtioException("descriptor %d is indirect, which was not negotiated".formatted(index));
        if (nested) throw new VirtioException("descriptor %d of an indirect table is indirect itself".formatted(index));
        if ((flags & DESC_F_NEXT) != 0) throw new VirtioException("indirect descriptor %d has a next".formatted(index));
        if (len % DESC_BYTES != 0 || len / DESC_BYTES > size) {
            throw new VirtioException("indirect descriptor %d: a table of %d bytes is not 1..%d whole descriptors"
                    .formatted(index, len, size));
        }
    }

    private MemorySegment buffer(int index, long addr, long len) throws VirtioException {
        try {
            return ram.slice(addr, len);
        } catch (GuestAddressException e) {
            throw new VirtioException("descriptor " + index + ": " + e.getMessage());
        }
    }

    /**
     * Asks the driver not to notify the device (virtio 1.2, 2.7.10) while it serves the queue
     * anyway: each notification is a trap into KVM. {@link #resumeNotifications} ends it. With
     * EVENT_IDX there is nothing to write: avail_event stays where the last resume put it, which
     * the driver passes with its first new chain, notifying once.
     */
    public void suppressNotifications() {
        if (!eventIdx) used.set(U16, 0, (short) USED_F_NO_NOTIFY);
    }

    /**
     * Asks for notifications again (with EVENT_IDX: for the next chain the device has not taken);
     * returns whether the driver made chains available since the device last looked, which it may
     * have done without notifying: they are served now, or they would wait for the next
     * notification. Each such change is reported once.
     */
    public boolean resumeNotifications() {
        if (eventIdx) {
            used.set(U16, 4 + 8L * size, (short) nextAvail);
        } else {
            used.set(U16, 0, (short) 0);
        }
        VarHandle.fullFence(); // the request is published before the index is read (the driver: index written, then request read)
        int availIdx = Short.toUnsignedInt(avail.get(U16, 2));
        boolean news = availIdx != seenAvail;
        seenAvail = availIdx;
        return news;
    }

    /**
     * Whether the driver wants an interrupt for the chains returned since the last call: without
     * EVENT_IDX, unless it set VIRTQ_AVAIL_F_NO_INTERRUPT (it polls the used ring itself, and looks
     * at the ring again when it clears the flag); with EVENT_IDX, if the used index passed the
     * driver's used_event since the last call (the standard vring_need_event rule, modulo 2^16: a
     * guest's used_event only decides this answer). Read after the used index is published
     * ({@link #publishUsed} fences).
     */
    public boolean interruptWanted() {
        if (!eventIdx) return (avail.get(U16, 0) & AVAIL_F_NO_INTERRUPT) == 0;
        int usedEvent = Short.toUnsignedInt(avail.get(U16, 4 + 2L * size));
        boolean wanted = ((nextUsed - usedEvent - 1) & 0xffff) < ((nextUsed - signalledUsed) & 0xffff);
        signalledUsed = nextUsed;
        return wanted;
    }

    /**
     * Returns the chain at {@code head} to the driver, saying the device wrote {@code written}
     * bytes to its writable buffers. Chains may be returned in any order.
     */
    public void complete(int head, int written) {
        addUsed(head, written);
        publishUsed();
    }

    /**
     * Writes the used entry for the chain at {@code head} without moving the used index: the driver
     * does not see it until {@link #publishUsed}. For chains the driver must find together, such
     * as a frame spread over several receive chains (VIRTIO_NET_F_MRG_RXBUF): Linux's driver
     * takes the first, reads num_buffers from it and then expects the others in the ring, dropping
     * the frame if the index does not cover them yet.
     */
    public void addUsed(int head, int written) {
        long at = 4 + 8L * (nextUsed % size);
        // id and len, one little-endian word (as the descriptors are read)
        used.set(U64, at, Integer.toUnsignedLong(head) | (long) written << 32);
        nextUsed = (nextUsed + 1) & 0xffff;
    }

    /** Moves the used index past every entry {@link #addUsed} wrote, in one store the driver sees whole. */
    public void publishUsed() {
        VarHandle.releaseFence(); // the driver must see the entries before the index that covers them
        used.set(U16, 2, (short) nextUsed);
        VarHandle.fullFence(); // and the index before the interrupt that follows
    }
}
