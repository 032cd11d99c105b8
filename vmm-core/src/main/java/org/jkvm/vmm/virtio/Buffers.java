package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A run of guest buffers read as one byte sequence, as virtio's any-layout rule asks: a request's
 * header, data and status may be split across descriptors however the driver likes.
 */
final class Buffers {
    private Buffers() {}

    /** Their total length. */
    static long total(List<MemorySegment> buffers) {
        long n = 0;
        for (MemorySegment b : buffers) n += b.byteSize();
        return n;
    }

    /** The bytes {@code [from, to)} of the sequence, as slices of the buffers; {@code to} at most the total. */
    static List<MemorySegment> range(List<MemorySegment> buffers, long from, long to) {
        List<MemorySegment> out = new ArrayList<>();
        long at = 0;
        for (MemorySegment b : buffers) {
            long start = Math.max(from, at);
            long end = Math.min(to, at + b.byteSize());
            if (start < end) out.add(b.asSlice(start - at, end - start));
            at += b.byteSize();
        }
        return out;
    }

    /** Copies the first {@code length} bytes of the sequence (at most the total) to a new array. */
    static byte[] copyOut(List<MemorySegment> buffers, int length) {
        byte[] out = new byte[length];
        int at = 0;
        for (MemorySegment b : range(buffers, 0, length)) {
            MemorySegment.copy(b, JAVA_BYTE, 0, out, at, (int) b.byteSize());
            at += (int) b.byteSize();
        }
        return out;
    }

    /** Copies {@code data} to the start of the sequence, as much as fits; returns the bytes copied. */
    static int copyIn(List<MemorySegment> buffers, byte[] data) {
        int at = 0;
        for (MemorySegment b : range(buffers, 0, data.length)) {
            MemorySegment.copy(data, at, b, JAVA_BYTE, 0, (int) b.byteSize());
            at += (int) b.byteSize();
        }
        return at;
    }
}
