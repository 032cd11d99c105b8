package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.memory.GuestAddressException;

import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A split queue whose guest memory a fuzzer wrote: the queue size (1 + the first byte's low 4
 * bits; its bit 7 negotiates indirect descriptors, bit 6 EVENT_IDX), then up to {@link #RAM} bytes copied to guest address {@link FakeRam#BASE}, where the descriptor
 * table (+0), available ring (+0x100) and used ring (+0x200) lie; buffers may point anywhere.
 */
final class FuzzedQueue {
    static final int RAM = 0x800;
    static final long DESC = FakeRam.BASE, AVAIL = FakeRam.BASE + 0x100, USED = FakeRam.BASE + 0x200;

    final FakeRam ram = new FakeRam(RAM);
    final VirtQueue queue;

    FuzzedQueue(FuzzInput in) throws VirtioException {
        int first = in.u8();
        int size = 1 + (first & 15);
        byte[] memory = in.bytes(RAM);
        MemorySegment.copy(MemorySegment.ofArray(memory), 0, ram.memory, 0, memory.length);
        queue = VirtQueue.open(ram, size, 256, DESC, AVAIL, USED, (first & 0x80) != 0, (first & 0x40) != 0);
    }

    /**
     * Zeroes the used ring's index, as a driver sets the ring up: the device counts its own from 0
     * and never reads it, so a test counting the chains returned starts from the same 0.
     */
    void zeroUsedIndex() {
        ram.memory.set(JAVA_SHORT_UNALIGNED, USED - FakeRam.BASE + 2, (short) 0);
    }

    /** The used ring's index. */
    int usedIndex() {
        return Short.toUnsignedInt(ram.memory.get(JAVA_SHORT_UNALIGNED, USED - FakeRam.BASE + 2));
    }

    /** The used ring's entry {@code i}: id and length. */
    long[] usedEntry(int i) {
        long at = USED - FakeRam.BASE + 4 + 8L * i;
        return new long[] {Integer.toUnsignedLong(ram.memory.get(JAVA_INT_UNALIGNED, at)),
                Integer.toUnsignedLong(ram.memory.get(JAVA_INT_UNALIGNED, at + 4))};
    }

    /**
     * Whether the device's own writes could change the rings or a descriptor table: a device-writable
     * buffer that the table names, directly or in an indirect table, overlaps them, or an indirect table
     * lies in the rings. A guest may do that to itself; the device must stay safe, but what the used
     * ring then says is no longer the device's account alone, so a test reads nothing from it.
     */
    boolean deviceMayOverwriteRings() {
        long ringsEnd = USED + 6 + 8L * queue.size();
        List<long[]> descriptors = new ArrayList<>();
        for (int i = 0; i < queue.size(); i++) descriptors.add(descriptor(DESC + (long) VirtQueue.DESC_BYTES * i));
        List<long[]> protectedRanges = new ArrayList<>(List.of(new long[] {DESC, ringsEnd}));
        for (long[] d : List.copyOf(descriptors)) {
            if ((d[2] & VirtQueue.DESC_F_INDIRECT) == 0 || !inside(d[0], d[1])) continue;
            if (overlaps(d[0], d[1], DESC, ringsEnd)) return true;
            protectedRanges.add(new long[] {d[0], d[0] + d[1]});
            for (long at = d[0]; at + VirtQueue.DESC_BYTES <= d[0] + d[1]; at += VirtQueue.DESC_BYTES) descriptors.add(descriptor(at));
        }
        for (long[] d : descriptors) {
            if ((d[2] & VirtQueue.DESC_F_WRITE) == 0) continue;
            for (long[] r : protectedRanges) {
                if (overlaps(d[0], d[1], r[0], r[1])) return true;
            }
        }
        return false;
    }

    /** The descriptor at guest address {@code at}: addr, len, flags. */
    private long[] descriptor(long at) {
        long off = at - FakeRam.BASE;
        return new long[] {ram.memory.get(JAVA_LONG_UNALIGNED, off), Integer.toUnsignedLong(ram.memory.get(JAVA_INT_UNALIGNED, off + 8)),
                Short.toUnsignedInt(ram.memory.get(JAVA_SHORT_UNALIGNED, off + 12))};
    }

    /** Whether the fake guest memory holds these bytes, by the bounds the device meets too. */
    private boolean inside(long addr, long length) {
        try {
            ram.slice(addr, length);
            return true;
        } catch (GuestAddressException e) {
            return false;
        }
    }

    private static boolean overlaps(long addr, long length, long from, long to) {
        return length > 0 && Long.compareUnsigned(addr, to) < 0 && Long.compareUnsigned(from, addr + length) < 0;
    }

    /** Every buffer of {@code chain} lies inside the fake guest memory, and the chain fits in the queue (or its table). */
    void checkInside(DescriptorChain chain) {
        assertTrue(chain.readable().size() + chain.writable().size() <= queue.size(), chain.toString());
        long lo = ram.memory.address(), hi = lo + ram.memory.byteSize();
        List<MemorySegment> all = new ArrayList<>(chain.readable());
        all.addAll(chain.writable());
        for (MemorySegment b : all) {
            assertTrue(b.byteSize() > 0 && b.address() >= lo && b.address() + b.byteSize() <= hi, b.toString());
        }
    }
}
