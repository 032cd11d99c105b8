package org.jkvm.kvm;

import java.lang.foreign.MemorySegment;

/**
 * Anonymous host memory from mmap, e.g. guest RAM: page aligned, zeroed, unmapped on close.
 * With {@code noReserve} the kernel commits pages only when they are touched.
 */
public final class MappedMemory implements AutoCloseable {
    private final MemorySegment segment;
    private boolean closed;

    private MappedMemory(MemorySegment segment) {
        this.segment = segment;
    }

    /** Maps {@code size} bytes of private anonymous memory. */
    public static MappedMemory anonymous(long size, boolean noReserve) {
        if (size <= 0) throw new IllegalArgumentException("size must be positive, not " + size);
        int flags = Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS | (noReserve ? Libc.MAP_NORESERVE : 0);
        long addr = Libc.mmap(size, Libc.PROT_READ | Libc.PROT_WRITE, flags, -1, 0);
        if (addr == Libc.MAP_FAILED) {
            throw new KvmException("mmap", "anonymous, size=0x" + Long.toHexString(size), Libc.errno(),
                    "not enough memory for the guest: ask for less, or free some on the host");
        }
        return new MappedMemory(MemorySegment.ofAddress(addr).reinterpret(size));
    }

    /** The mapping; valid until {@link #close}. */
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (Libc.munmap(segment.address(), segment.byteSize()) < 0) {
            throw new KvmException("munmap", "0x" + Long.toHexString(segment.address()), Libc.errno());
        }
    }
}
