package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Arrays of struct iovec, as the generated uapi layout lays them out, for the vectored calls
 * (readv/writev, preadv/pwritev) that move a list of native buffers in one system call.
 */
final class Iovecs {
    private Iovecs() {}

    /** The most entries one call takes (UIO_MAXIOV). */
    static final int MAX = (int) HostUapi.constant(UapiConstant.UIO_MAXIOV);
    private static final long BYTES = HostUapi.struct(UapiStruct.iovec).byteSize();
    private static final long BASE_AT = HostUapi.offset(UapiStruct.iovec, "iov_base");
    private static final long LEN_AT = HostUapi.offset(UapiStruct.iovec, "iov_len");
    /**
     * Both members are 8-byte words (checked below), and iov_base is written as the address it
     * holds: the pointer layout's own access converts a segment to its address through method
     * handles, which a booting guest's first requests run interpreted and which the JVM spins on
     * their first use, on the disk's worker (bench/blk/README.md, 2026-12-03).
     */
    private static final ValueLayout.OfLong WORD = (ValueLayout.OfLong) HostUapi.member(UapiStruct.iovec, "iov_len");

    static {
        if (HostUapi.member(UapiStruct.iovec, "iov_base").byteSize() != WORD.byteSize()) {
            throw new ExceptionInInitializerError("iov_base is not the size of iov_len: not a 64-bit host");
        }
    }

    /** An array of {@code count} entries (at least one), in {@code arena}. */
    static MemorySegment allocate(Arena arena, int count) {
        return arena.allocate(BYTES * Math.max(count, 1), 8);
    }

    /** The byte offset of entry {@code index} in an array of them. */
    static long offset(int index) {
        return index * BYTES;
    }

    /** Sets entry {@code index} of {@code iov} to describe all of {@code buffer}, a native segment. */
    static void set(MemorySegment iov, int index, MemorySegment buffer) {
        if (!buffer.isNative()) throw new IllegalArgumentException("an iovec describes native memory, not a heap segment");
        iov.set(WORD, offset(index) + BASE_AT, buffer.address());
        iov.set(WORD, offset(index) + LEN_AT, buffer.byteSize());
    }
}
