package org.jkvm.vmm;

import java.util.Arrays;

/**
 * A fuzzer's bytes read front to back as little-endian fields, zeros once they run out, so that
 * every input decodes and a seed file can be written by hand (each target's Javadoc gives its
 * layout). Fields taken straight from the bytes let the fuzzer's comparison tracing steer them.
 */
public final class FuzzInput {
    private final byte[] data;
    private int at;

    public FuzzInput(byte[] data) {
        this.data = data;
    }

    /** Whether unread bytes are left. */
    public boolean more() {
        return at < data.length;
    }

    public int u8() {
        return at < data.length ? data[at++] & 0xff : 0;
    }

    public int u16() {
        return u8() | u8() << 8;
    }

    public int u32() {
        return u16() | u16() << 16;
    }

    public long u64() {
        return (u32() & 0xffff_ffffL) | (long) u32() << 32;
    }

    /** Up to {@code n} bytes, fewer where the input ends. */
    public byte[] bytes(int n) {
        int from = at;
        at = Math.min(data.length, at + n);
        return Arrays.copyOfRange(data, from, at);
    }

    /** A value in {@code [0, bound)} from the next eight bytes. */
    public long below(long bound) {
        return Long.remainderUnsigned(u64(), bound);
    }
}
