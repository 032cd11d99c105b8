package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * The line a host program writes to the vsock Unix socket to reach a guest port, Firecracker's
 * {@code CONNECT <port>\n} (the port decimal, 0 to 2^32 - 1).
 */
final class VsockConnectLine {
    private static final String VERB = "CONNECT ";

    private VsockConnectLine() {}

    /**
     * Reads one line from {@code ch}, a byte at a time so that nothing after it is taken, and
     * returns its port (as a 32-bit value); null for a line that is not a CONNECT, longer than
     * {@code max} bytes, or cut short by the end of the stream.
     */
    static Integer read(SocketChannel ch, int max) throws IOException {
        ByteBuffer one = ByteBuffer.allocate(1);
        StringBuilder line = new StringBuilder();
        while (line.length() <= max) {
            one.clear();
            if (ch.read(one) < 0) return null;
            char c = (char) (one.get(0) & 0xff);
            if (c == '\n') return parse(line.toString());
            line.append(c);
        }
        return null;
    }

    /** The port of {@code CONNECT <port>} (an optional trailing CR allowed), or null. */
    static Integer parse(String line) {
        String s = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        if (!s.startsWith(VERB)) return null;
        String digits = s.substring(VERB.length());
        if (digits.isEmpty() || digits.length() > 10 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) return null;
        long port = Long.parseLong(digits);
        return port > 0xffff_ffffL ? null : (int) port;
    }
}
