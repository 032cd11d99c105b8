package org.jkvm.kvm;

import java.lang.foreign.AddressLayout;
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
    private static final AddressLayout BASE = (AddressLayout) HostUapi.member(UapiStruct.iovec, "iov_base");
    private static final ValueLayout.OfLong LEN = (ValueLayout.OfLong) HostUapi.member(UapiStruct.iovec, "iov_len");

    /** An array of {@code count} entries (at least one), in {@code arena}. */
    static MemorySegment allocate(Arena arena, int count) {
        return arena.allocate(BYTES * Math.max(count, 1), 8);
    }

    /** Sets entry {@code index} of {@code iov} to describe all of {@code buffer}. */
    static void set(MemorySegment iov, int index, MemorySegment buffer) {
        iov.set(BASE, index * BYTES + BASE_AT, buffer);
        iov.set(LEN, index * BYTES + LEN_AT, buffer.byteSize());
    }
}
