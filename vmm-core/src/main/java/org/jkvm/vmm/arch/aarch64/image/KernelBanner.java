package org.jkvm.vmm.arch.aarch64.image;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Finds the kernel release in an Image's banner ("Linux version RELEASE (...)", {@code linux_banner},
 * a plain string in an uncompressed arm64 Image), reading the Image in 64 KiB chunks so that the
 * search holds no copy of the whole Image (nor does the JDK's native buffer for reads into an array).
 */
final class KernelBanner {
    private static final byte[] PREFIX = "Linux version ".getBytes(StandardCharsets.US_ASCII);
    /** The longest release taken. */
    private static final int MAX_RELEASE = 64;
    /** Bytes a match needs after its start: the prefix, the release and the space ending it. */
    private static final int SPAN = PREFIX.length + MAX_RELEASE + 1;
    private static final int CHUNK = 64 << 10;
    private static final int[] SHIFT = shifts();

    private KernelBanner() {}

    /** The first banner's release in the bytes {@code in} gives, up to its end; empty when there is none. */
    static Optional<String> release(ReadableByteChannel in) throws IOException {
        byte[] buf = new byte[CHUNK + SPAN];
        int filled = 0;
        boolean eof = false;
        while (true) {
            ByteBuffer to = ByteBuffer.wrap(buf);
            to.position(filled);
            while (to.hasRemaining() && !eof) eof = in.read(to) < 0;
            filled = to.position();
            // a match starting below `limit` is wholly in the buffer; the rest waits for the next chunk
            int limit = eof ? filled : filled - SPAN;
            Optional<String> r = search(buf, limit, filled);
            if (r.isPresent() || eof) return r;
            System.arraycopy(buf, limit, buf, 0, filled - limit);
            filled -= limit;
        }
    }

    /**
     * Horspool's search of {@code b[0, len)} for matches starting below {@code limit}: a mismatch moves
     * on by up to the prefix's length, so a 44 MB Image costs ~1/14 of the byte-by-byte scan's steps
     * (seconds of a CPU under emulation, taken from the booting guest: bench/boot/README.md).
     */
    private static Optional<String> search(byte[] b, int limit, int len) {
        int last = PREFIX.length - 1;
        for (int i = 0; i < limit && i + PREFIX.length < len; i += SHIFT[b[i + last] & 0xff]) {
            int k = last;
            while (k >= 0 && b[i + k] == PREFIX[k]) k--;
            if (k >= 0) continue;
            int start = i + PREFIX.length, end = start;
            while (end < len && end - start < MAX_RELEASE && b[end] > ' ' && b[end] < 0x7f) end++;
            if (end > start && end < len && b[end] == ' ') {
                return Optional.of(new String(b, start, end - start, StandardCharsets.US_ASCII));
            }
        }
        return Optional.empty();
    }

    private static int[] shifts() {
        int last = PREFIX.length - 1;
        int[] shift = new int[256];
        Arrays.fill(shift, PREFIX.length);
        for (int k = 0; k < last; k++) shift[PREFIX[k] & 0xff] = last - k;
        return shift;
    }
}
