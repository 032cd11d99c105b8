package org.jkvm.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a results log into lines as it streams by, holding one line at a time: a log may grow
 * large, a line may not. Of a line longer than the limit only the fact is kept, so a file that
 * is no log (one endless line) costs no memory.
 */
final class LogLines {
    /** Receives each newline-terminated line. */
    @FunctionalInterface
    interface Sink {
        /**
         * @param number   the line's number, from 1
         * @param offset   the file offset of its first byte
         * @param bytes    the line without its newline, in {@code bytes[0..length)} (reused for the next line)
         * @param length   its length, or 0 when overlong
         * @param overlong it had more than the limit, and {@code bytes} holds none of it
         */
        void line(long number, long offset, byte[] bytes, int length, boolean overlong) throws IOException;
    }

    /**
     * What follows the last newline.
     *
     * @param complete the length of the newline-terminated part
     * @param number   the number its line would have
     * @param bytes    the bytes (empty when overlong)
     * @param overlong it has more bytes than the limit
     */
    record Rest(long complete, long number, byte[] bytes, boolean overlong) {}

    private final int maxLine;
    private byte[] line = new byte[1024];
    private int length;
    private boolean overlong;

    private LogLines(int maxLine) {
        this.maxLine = maxLine;
    }

    /** Reads {@code in} to its end, handing each line to {@code sink}; lines longer than {@code maxLine} come as overlong. */
    static Rest read(InputStream in, int maxLine, Sink sink) throws IOException {
        return new LogLines(maxLine).split(in, sink);
    }

    private Rest split(InputStream in, Sink sink) throws IOException {
        byte[] buf = new byte[1 << 16];
        long offset = 0;
        long lineStart = 0;
        long number = 1;
        for (int n; (n = in.read(buf)) > 0; offset += n) {
            int from = 0;
            for (int i = 0; i < n; i++) {
                if (buf[i] != '\n') continue;
                append(buf, from, i - from);
                sink.line(number++, lineStart, line, length, overlong);
                length = 0;
                overlong = false;
                lineStart = offset + i + 1;
                from = i + 1;
            }
            append(buf, from, n - from);
        }
        return new Rest(lineStart, number, Arrays.copyOf(line, length), overlong);
    }

    private void append(byte[] b, int from, int count) {
        if (overlong) return;
        if (length + count > maxLine) {
            overlong = true;
            length = 0;
            return;
        }
        if (length + count > line.length) line = Arrays.copyOf(line, Math.min(Math.max(length + count, 2 * line.length), maxLine));
        System.arraycopy(b, from, line, length, count);
        length += count;
    }
}
