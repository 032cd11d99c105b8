package org.jkvm.vmm.arch.aarch64.image;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import org.jkvm.kvm.NativeSearch;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * Finds the kernel release in an Image's banner ("Linux version RELEASE (...)", {@code linux_banner},
 * a plain string in an uncompressed arm64 Image), reading the Image in 1 MiB chunks of native memory
 * so that the search holds no copy of the whole Image. The C library's memmem finds the prefix
 * ({@link NativeSearch}): the search runs at the end of set-up, beside the guest's boot, when the
 * JVM has compiled nothing, and the interpreter took three times memmem's CPU for it in the
 * emulated arm64 host (bench/boot/README.md, 2026-12-03).
 */
final class KernelBanner {
    private static final byte[] PREFIX = "Linux version ".getBytes(StandardCharsets.US_ASCII);
    /** The longest release taken. */
    private static final int MAX_RELEASE = 64;
    /** Bytes a match needs after its start: the prefix, the release and the space ending it. */
    private static final int SPAN = PREFIX.length + MAX_RELEASE + 1;
    private static final int CHUNK = 1 << 20;

    private KernelBanner() {}

    /** The first banner's release in the bytes {@code in} gives, up to its end; empty when there is none. */
    static Optional<String> release(ReadableByteChannel in) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(CHUNK + SPAN);
            MemorySegment prefix = arena.allocateFrom(JAVA_BYTE, PREFIX);
            ByteBuffer to = buf.asByteBuffer();
            int filled = 0;
            boolean eof = false;
            while (true) {
                to.clear().position(filled);
                while (to.hasRemaining() && !eof) eof = in.read(to) < 0;
                filled = to.position();
                // a match starting below `limit` is wholly in the buffer; the rest waits for the next chunk
                int limit = eof ? filled : filled - SPAN;
                Optional<String> r = search(buf.asSlice(0, filled), limit, prefix);
                if (r.isPresent() || eof) return r;
                MemorySegment.copy(buf, limit, buf, 0, filled - limit);
                filled -= limit;
            }
        }
    }

    /** The first well-formed banner in {@code b} starting below {@code limit}. */
    private static Optional<String> search(MemorySegment b, long limit, MemorySegment prefix) {
        for (long from = 0; from < limit; ) {
            long found = NativeSearch.indexOf(b.asSlice(from), prefix);
            if (found < 0 || from + found >= limit) return Optional.empty();
            long start = from + found + PREFIX.length;
            byte[] tail = new byte[(int) Math.min(MAX_RELEASE + 1, b.byteSize() - start)];
            MemorySegment.copy(b, JAVA_BYTE, start, tail, 0, tail.length);
            int end = 0;
            while (end < tail.length && end < MAX_RELEASE && tail[end] > ' ' && tail[end] < 0x7f) end++;
            if (end > 0 && end < tail.length && tail[end] == ' ') {
                return Optional.of(new String(tail, 0, end, StandardCharsets.US_ASCII));
            }
            from = start - PREFIX.length + 1;
        }
        return Optional.empty();
    }
}
