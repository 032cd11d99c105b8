package org.jkvm.kvm;

import java.lang.foreign.MemorySegment;

/**
 * Anonymous host memory from mmap, e.g. guest RAM: zeroed, unmapped on close. With
 * {@code noReserve} the kernel commits pages only when they are touched. A mapping whose size is a
 * multiple of {@link #HUGE_PAGE} starts on such a boundary, as QEMU aligns guest RAM:
 * only then can a transparent huge page back its first bytes, and KVM map guest RAM in blocks of
 * that size (its guest and host addresses must agree below that size).
 */
public final class MappedMemory implements AutoCloseable {
    /** A transparent huge page where base pages are 4 KiB (x86_64, and arm64 kernels built for 4 KiB pages). */
    public static final long HUGE_PAGE = 2L << 20;

    private final MemorySegment segment;
    private boolean closed;

    private MappedMemory(MemorySegment segment) {
        this.segment = segment;
    }

    /** Maps {@code size} bytes of private anonymous memory. */
    public static MappedMemory anonymous(long size, boolean noReserve) {
        if (size <= 0) throw new IllegalArgumentException("size must be positive, not " + size);
        int flags = Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS | (noReserve ? Libc.MAP_NORESERVE : 0);
        // Room to slide to a boundary, the rest given back: mmap(2) promises only page alignment.
        // A whole number of huge pages keeps both ends given back on page boundaries.
        long slack = size % HUGE_PAGE == 0 ? HUGE_PAGE : 0;
        long addr = Libc.mmap(size + slack, Libc.PROT_READ | Libc.PROT_WRITE, flags, -1, 0);
        if (addr == Libc.MAP_FAILED) {
            throw new KvmException("mmap", "anonymous, size=0x" + Long.toHexString(size), Libc.errno(),
                    "not enough memory for the guest: ask for less, or free some on the host");
        }
        if (slack > 0) {
            long start = (addr + HUGE_PAGE - 1) & -HUGE_PAGE;
            unmap(addr, start - addr);
            unmap(start + size, addr + slack - start);
            addr = start;
        }
        return new MappedMemory(MemorySegment.ofAddress(addr).reinterpret(size));
    }

    /**
     * Asks the kernel to back the mapping with transparent huge pages (madvise MADV_HUGEPAGE), as
     * QEMU does for guest RAM: where the host's setting is "madvise" only such memory gets them.
     * Returns false when the kernel has no transparent huge pages (EINVAL): the memory works without.
     */
    public boolean adviseHugePages() {
        int advice = (int) HostUapi.constant(UapiConstant.MADV_HUGEPAGE);
        if (Libc.madvise(segment.address(), segment.byteSize(), advice) == 0) return true;
        int errno = Libc.errno();
        if (errno == Libc.EINVAL) return false;
        throw new KvmException("madvise", "MADV_HUGEPAGE, 0x" + Long.toHexString(segment.address())
                + " size=0x" + Long.toHexString(segment.byteSize()), errno);
    }

    /** The mapping; valid until {@link #close}. */
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        unmap(segment.address(), segment.byteSize());
    }

    private static void unmap(long address, long length) {
        if (length > 0 && Libc.munmap(address, length) < 0) {
            throw new KvmException("munmap", "0x" + Long.toHexString(address) + " size=0x" + Long.toHexString(length), Libc.errno());
        }
    }
}
