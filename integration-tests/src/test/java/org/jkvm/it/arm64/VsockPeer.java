package org.jkvm.it.arm64;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The host's side of {@link Arm64VirtioVsockTest}, a main class run inside the emulated host
 * next to jkvm (Firecracker's convention for the Unix sockets):
 * <ul>
 * <li>{@code serve PATH COUNT}: listens on the Unix socket PATH (jkvm's {@code PATH_P} for a
 *     guest port-P connection), echoes COUNT connections one after another until each one's end
 *     of file; prints {@code PEER-SERVED conn=I bytes=N}.</li>
 * <li>{@code client PATH PORT SIZE ROUNDS [SIZE ROUNDS...]}: for each SIZE/ROUNDS pair connects
 *     to jkvm's socket PATH, writes {@code CONNECT PORT\n} (again every 200 ms, up to 5 minutes,
 *     until jkvm answers {@code OK <port>}: the guest may not listen yet), then ROUNDS times writes
 *     SIZE bytes and reads them back; prints {@code PEER-CLIENT ok=<line> size=S rounds=R
 *     bytes=N us_per_round=U}.</li>
 * </ul>
 * Exit status 0 when every byte came back as sent.
 */
public final class VsockPeer {
    private static final long RETRY_MS = 200;
    private static final long GIVE_UP_MS = 300_000;

    private VsockPeer() {}

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "serve" -> serve(Path.of(args[1]), Integer.parseInt(args[2]));
            case "client" -> {
                for (int i = 3; i + 1 < args.length; i += 2) {
                    client(Path.of(args[1]), args[2], Integer.parseInt(args[i]), Integer.parseInt(args[i + 1]));
                }
            }
            default -> throw new IllegalArgumentException("serve PATH COUNT | client PATH PORT SIZE ROUNDS...");
        }
    }

    private static void serve(Path path, int count) throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            System.out.println("PEER-LISTENING " + path);
            for (int i = 0; i < count; i++) {
                long total = 0;
                try (SocketChannel c = server.accept()) {
                    ByteBuffer buf = ByteBuffer.allocate(64 << 10);
                    while (c.read(buf) >= 0) {
                        buf.flip();
                        total += buf.remaining();
                        while (buf.hasRemaining()) c.write(buf);
                        buf.clear();
                    }
                }
                System.out.println("PEER-SERVED conn=" + i + " bytes=" + total);
            }
        }
    }

    private static void client(Path path, String port, int size, int rounds) throws Exception {
        long deadline = System.currentTimeMillis() + GIVE_UP_MS;
        while (true) {
            try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                write(c, ("CONNECT " + port + "\n").getBytes(StandardCharsets.US_ASCII));
                String ok = line(c);
                if (ok != null && ok.startsWith("OK ")) {
                    echo(c, ok, size, rounds);
                    return;
                }
            } catch (IOException notYet) {
                // jkvm's socket is not there yet, or the guest refused: its listener is not up
            }
            if (System.currentTimeMillis() > deadline) throw new IOException("no OK from " + path + " port " + port);
            Thread.sleep(RETRY_MS);
        }
    }

    private static void echo(SocketChannel c, String ok, int size, int rounds) throws IOException {
        byte[] out = new byte[size];
        ByteBuffer in = ByteBuffer.allocate(size);
        long t0 = System.nanoTime();
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < size; i++) out[i] = (byte) (i * 7 + r);
            write(c, out);
            in.clear();
            while (in.hasRemaining()) {
                if (c.read(in) < 0) throw new IOException("end of file in round " + r + " after " + in.position() + " bytes");
            }
            if (!Arrays.equals(in.array(), out)) throw new IOException("round " + r + " came back different");
        }
        long us = (System.nanoTime() - t0) / 1000;
        System.out.println("PEER-CLIENT ok=" + ok.replace(' ', '_') + " size=" + size + " rounds=" + rounds
                + " bytes=" + (long) size * rounds + " us_per_round=" + us / rounds);
    }

    private static void write(SocketChannel c, byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) c.write(b);
    }

    /** One line, up to its newline (which is not returned); null at end of file. */
    private static String line(SocketChannel c) throws IOException {
        StringBuilder s = new StringBuilder();
        ByteBuffer one = ByteBuffer.allocate(1);
        while (true) {
            one.clear();
            if (c.read(one) < 0) return null;
            char ch = (char) one.get(0);
            if (ch == '\n') return s.toString();
            s.append(ch);
        }
    }
}
