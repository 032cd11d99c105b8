package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.jkvm.vmm.virtio.VsockDriver.Packet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.jkvm.vmm.virtio.VsockDriver.GUEST_CID;
import static org.jkvm.vmm.virtio.VsockDriver.header;
import static org.jkvm.vmm.virtio.VsockHeader.OP_CREDIT_REQUEST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_CREDIT_UPDATE;
import static org.jkvm.vmm.virtio.VsockHeader.OP_REQUEST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RESPONSE;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RW;
import static org.jkvm.vmm.virtio.VsockHeader.OP_SHUTDOWN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * virtio-vsock against real Unix sockets, with the guest's driver played by {@link VsockDriver}:
 * both directions of connection, data and credit both ways, the ends of a stream, and what an
 * untrusted guest gets for packets that break the protocol.
 */
@Tag("unit")
class VirtioVsockTest {
    private static final int GUEST_PORT = 1234;
    private static final int HOST_PORT = 5001;
    private static final int BIG = 256 << 10;

    @TempDir
    Path dir;
    private Path socket;
    private VirtioVsock device;
    private VsockDriver guest;
    private ServerSocketChannel hostServer;

    @BeforeEach
    void device() throws VirtioException {
        socket = dir.resolve("v.sock");
        device = new VirtioVsock("virtio-vsock", socket, GUEST_CID);
        guest = new VsockDriver(device);
    }

    @AfterEach
    void close() throws IOException {
        device.close();
        if (hostServer != null) hostServer.close();
    }

    private ServerSocketChannel hostListens(int port) throws IOException {
        hostServer = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        hostServer.bind(UnixDomainSocketAddress.of(Path.of(socket + "_" + port)));
        return hostServer;
    }

    private static boolean is(Packet p, int op) {
        return p.header().op() == op;
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.US_ASCII.decode(b.flip()).toString();
    }

    /** The guest connects to the host's {@link #HOST_PORT} advertising {@code bufAlloc}; returns the host's end. */
    private SocketChannel guestConnects(int bufAlloc) throws Exception {
        ServerSocketChannel server = hostListens(HOST_PORT);
        guest.send(header(GUEST_PORT, HOST_PORT, OP_REQUEST, 0, 0, bufAlloc, 0), new byte[0]);
        SocketChannel host = server.accept();
        List<Packet> got = guest.await(p -> is(p, OP_RESPONSE), "RESPONSE");
        Packet r = got.getLast();
        assertEquals(VsockHeader.HOST_CID, r.header().srcCid());
        assertEquals(GUEST_CID, r.header().dstCid());
        assertEquals(HOST_PORT, r.header().srcPort());
        assertEquals(GUEST_PORT, r.header().dstPort());
        assertEquals(VsockConnection.BUF_ALLOC, r.header().bufAlloc());
        return host;
    }

    @Test
    void offersAVsockDeviceWithTheGuestsContextId() {
        assertEquals(19, device.deviceId());
        assertEquals(3, device.queues());
        assertEquals(GUEST_CID, ByteBuffer.wrap(device.config()).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
        assertTrue(Files.exists(socket));
    }

    @Test
    void aGuestConnectionReachesPathUnderscorePortAndEchoesBothWays() throws Exception {
        try (SocketChannel host = guestConnects(BIG)) {
            byte[] hello = "hello from the guest".getBytes(StandardCharsets.US_ASCII);
            guest.send(header(GUEST_PORT, HOST_PORT, OP_RW, 0, hello.length, BIG, 0), hello);
            ByteBuffer in = ByteBuffer.allocate(hello.length);
            while (in.hasRemaining()) host.read(in);
            assertEquals("hello from the guest", text(in));
            awaitFwdCnt(hello.length);

            host.write(ByteBuffer.wrap("and back".getBytes(StandardCharsets.US_ASCII)));
            Packet data = guest.await(p -> is(p, OP_RW), "RW").getLast();
            assertEquals("and back", new String(data.payload(), StandardCharsets.US_ASCII));
            assertEquals(8, data.header().len());
            assertEquals(GUEST_PORT, data.header().dstPort());
            assertEquals(hello.length, data.header().fwdCnt(), "the packet tells the guest the host took its bytes");

            guest.send(header(GUEST_PORT, HOST_PORT, OP_SHUTDOWN, 3, 0, BIG, 8), new byte[0]);
            assertEquals(-1, host.read(ByteBuffer.allocate(1)), "the host sees the end of the stream");
            guest.await(p -> is(p, OP_RST), "RST closing the stream");
        }
    }

    @Test
    void aGuestThatStopsSendingHalfClosesTheHostSocketAndStillReceives() throws Exception {
        try (SocketChannel host = guestConnects(BIG)) {
            guest.send(header(GUEST_PORT, HOST_PORT, OP_RW, 0, 3, BIG, 0), "bye".getBytes(StandardCharsets.US_ASCII));
            guest.send(header(GUEST_PORT, HOST_PORT, OP_SHUTDOWN, VsockHeader.SHUTDOWN_SEND, 0, BIG, 0), new byte[0]);
            ByteBuffer in = ByteBuffer.allocate(3);
            while (in.hasRemaining()) host.read(in);
            assertEquals("bye", text(in));
            assertEquals(-1, host.read(ByteBuffer.allocate(1)), "the host sees the guest's end of file");
            host.write(ByteBuffer.wrap("late".getBytes(StandardCharsets.US_ASCII)));
            assertEquals("late", new String(guest.await(p -> is(p, OP_RW), "RW").getLast().payload(), StandardCharsets.US_ASCII));
            byte[] more = {1};
            guest.send(header(GUEST_PORT, HOST_PORT, OP_RW, 0, 1, BIG, 4), more);
            guest.await(p -> is(p, OP_RST), "RST for data after the guest's own SHUTDOWN");
        }
    }

    /** Asks for credit updates until one says the host took {@code n} bytes (its writer counts them after the write). */
    private void awaitFwdCnt(int n) throws Exception {
        for (long deadline = System.nanoTime() + 5_000_000_000L; System.nanoTime() < deadline; Thread.sleep(5)) {
            guest.send(header(GUEST_PORT, HOST_PORT, OP_CREDIT_REQUEST, 0, 0, BIG, 0), new byte[0]);
            if (guest.receive().stream().anyMatch(p -> is(p, OP_CREDIT_UPDATE) && p.header().fwdCnt() == n)) return;
        }
        fail("no CREDIT_UPDATE with fwd_cnt " + n + " within 5 s");
    }

    @Test
    void aGuestConnectionToAPortNobodyListensOnIsReset() throws Exception {
        guest.send(header(GUEST_PORT, 4444, OP_REQUEST, 0, 0, BIG, 0), new byte[0]);
        Packet rst = guest.await(p -> is(p, OP_RST), "RST").getLast();
        assertEquals(4444, rst.header().srcPort());
    }

    @Test
    void aHostProgramConnectsWithConnectAndTheGuestAccepts() throws Exception {
        try (SocketChannel host = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            host.write(ByteBuffer.wrap("CONNECT 5000\n".getBytes(StandardCharsets.US_ASCII)));
            Packet request = guest.await(p -> is(p, OP_REQUEST), "REQUEST").getLast();
            assertEquals(5000, request.header().dstPort());
            int hostPort = request.header().srcPort();
            assertTrue(Integer.toUnsignedLong(hostPort) >= 1 << 30, "a port from jkvm's range: " + hostPort);
            guest.send(header(5000, hostPort, OP_RESPONSE, 0, 0, BIG, 0), new byte[0]);
            String ok = "OK " + hostPort + "\n";
            ByteBuffer line = ByteBuffer.allocate(ok.length());
            while (line.hasRemaining()) host.read(line);
            assertEquals(ok, text(line));

            byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
            host.write(ByteBuffer.wrap(ping));
            assertArrayEquals(ping, guest.await(p -> is(p, OP_RW), "RW").getLast().payload());
            guest.send(header(5000, hostPort, OP_RW, 0, 4, BIG, 4), "pong".getBytes(StandardCharsets.US_ASCII));
            ByteBuffer pong = ByteBuffer.allocate(4);
            while (pong.hasRemaining()) host.read(pong);
            assertEquals("pong", text(pong));

            host.close();
            Packet end = guest.await(p -> is(p, OP_SHUTDOWN), "SHUTDOWN").getLast();
            assertEquals(VsockHeader.SHUTDOWN_RCV | VsockHeader.SHUTDOWN_SEND, end.header().flags());
        }
    }

    @Test
    void aGuestRefusingAHostConnectionClosesTheHostSocket() throws Exception {
        try (SocketChannel host = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            host.write(ByteBuffer.wrap("CONNECT 7\n".getBytes(StandardCharsets.US_ASCII)));
            Packet request = guest.await(p -> is(p, OP_REQUEST), "REQUEST").getLast();
            guest.send(header(7, request.header().srcPort(), OP_RST, 0, 0, 0, 0), new byte[0]);
            assertEquals(-1, host.read(ByteBuffer.allocate(1)));
        }
    }

    @Test
    @Timeout(30) // without the answer timeout the host's read would wait for ever
    void aGuestThatNeverAnswersAHostConnectionIsResetAndTheHostSocketClosed() throws Exception {
        Path quiet = dir.resolve("quiet.sock");
        VirtioVsock silent = new VirtioVsock("virtio-vsock", quiet, GUEST_CID, Duration.ofMillis(200));
        try (SocketChannel host = SocketChannel.open(UnixDomainSocketAddress.of(quiet))) {
            VsockDriver mute = new VsockDriver(silent);
            host.write(ByteBuffer.wrap("CONNECT 7\n".getBytes(StandardCharsets.US_ASCII)));
            Packet request = mute.await(p -> is(p, OP_REQUEST), "REQUEST").getLast();
            assertEquals(-1, host.read(ByteBuffer.allocate(1)), "the host program is told by end of file");
            Packet rst = mute.await(p -> is(p, OP_RST), "RST").getLast();
            assertEquals(request.header().srcPort(), rst.header().srcPort());
            assertEquals(7, rst.header().dstPort());

            mute.send(header(7, request.header().srcPort(), OP_RESPONSE, 0, 0, BIG, 0), new byte[0]);
            mute.await(p -> is(p, OP_RST) && p.header().dstPort() == 7, "RST for the late answer");
        } finally {
            silent.close();
        }
    }

    @Test
    void aLineThatIsNotConnectClosesTheHostSocket() throws Exception {
        try (SocketChannel host = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            host.write(ByteBuffer.wrap("HELLO 5000\n".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(-1, host.read(ByteBuffer.allocate(1)));
        }
        assertEquals(List.of(), guest.receive());
    }

    @Test
    void jkvmReadsFromTheHostOnlyWhatTheGuestsBufferHasRoomFor() throws Exception {
        try (SocketChannel host = guestConnects(1000)) {
            host.write(ByteBuffer.wrap(new byte[5000]));
            assertEquals(1000, receivedUpTo(1000), "the guest's 1000-byte buffer is full");
            guest.send(header(GUEST_PORT, HOST_PORT, OP_CREDIT_UPDATE, 0, 0, 1000, 1000), new byte[0]);
            assertEquals(1000, receivedUpTo(1000), "1000 bytes more after the credit update");
        }
    }

    /** Data bytes the guest receives: until {@code n} came (within 5 s), then whatever comes in 200 ms more. */
    private int receivedUpTo(int n) throws Exception {
        int total = 0;
        for (long deadline = System.nanoTime() + 5_000_000_000L; total < n && System.nanoTime() < deadline; Thread.sleep(5)) {
            total += received(guest.receive());
        }
        Thread.sleep(200);
        return total + received(guest.receive());
    }

    private static int received(List<Packet> packets) {
        return packets.stream().filter(p -> is(p, OP_RW)).mapToInt(p -> p.payload().length).sum();
    }

    @Test
    void aGuestSendingPastItsCreditIsReset() throws Exception {
        try (SocketChannel host = guestConnects(BIG)) {
            // the host never reads: its socket buffer fills, then jkvm's 256 KiB, then the guest is over its credit
            byte[] chunk = new byte[VirtioVsock.MAX_PAYLOAD];
            boolean reset = false;
            for (int i = 0; i < 64 && !reset; i++) {
                guest.send(header(GUEST_PORT, HOST_PORT, OP_RW, 0, chunk.length, BIG, 0), chunk);
                reset = guest.receive().stream().anyMatch(p -> is(p, OP_RST));
            }
            assertTrue(reset, "RST within 4 MiB");
            assertTrue(host.isOpen());
        }
    }

    @Test
    void theHostTakingAQuarterOfTheBufferIsToldTheGuestUnasked() throws Exception {
        try (SocketChannel host = guestConnects(BIG)) {
            byte[] chunk = new byte[VirtioVsock.MAX_PAYLOAD];
            guest.send(header(GUEST_PORT, HOST_PORT, OP_RW, 0, chunk.length, BIG, 0), chunk);
            ByteBuffer in = ByteBuffer.allocate(chunk.length);
            while (in.hasRemaining()) host.read(in);
            Packet update = guest.await(p -> is(p, OP_CREDIT_UPDATE), "CREDIT_UPDATE").getLast();
            assertEquals(chunk.length, update.header().fwdCnt());
        }
    }

    @Test
    void aCreditRequestIsAnsweredWithAnUpdate() throws Exception {
        try (SocketChannel ignored = guestConnects(BIG)) {
            guest.send(header(GUEST_PORT, HOST_PORT, OP_CREDIT_REQUEST, 0, 0, BIG, 0), new byte[0]);
            Packet update = guest.await(p -> is(p, OP_CREDIT_UPDATE), "CREDIT_UPDATE").getLast();
            assertEquals(VsockConnection.BUF_ALLOC, update.header().bufAlloc());
        }
    }

    @Test
    void packetsForNoStreamOrOfAnUnknownKindAreReset() throws Exception {
        guest.send(header(1, 2, OP_RW, 0, 1, BIG, 0), new byte[1]);
        guest.send(new VsockHeader(GUEST_CID, VsockHeader.HOST_CID, 3, 4, 0, 2, OP_REQUEST, 0, BIG, 0), new byte[0]);
        List<Packet> refused = guest.receive();
        assertEquals(List.of(1, 3), refused.stream().filter(p -> is(p, OP_RST)).map(p -> p.header().dstPort()).toList());
        try (SocketChannel host = guestConnects(BIG)) {
            guest.send(header(GUEST_PORT, HOST_PORT, 99, 0, 0, BIG, 0), new byte[0]);
            guest.await(p -> is(p, OP_RST) && p.header().dstPort() == GUEST_PORT, "RST of the stream");
            assertEquals(-1, host.read(ByteBuffer.allocate(1)));
        }
    }

    @Test
    void packetsFromAnotherContextIdAreDropped() throws Exception {
        guest.send(new VsockHeader(9, VsockHeader.HOST_CID, 1, 2, 0, 1, OP_RW, 0, BIG, 0), new byte[0]);
        guest.send(new VsockHeader(GUEST_CID, 7, 1, 2, 0, 1, OP_RW, 0, BIG, 0), new byte[0]);
        assertEquals(List.of(), guest.receive());
    }

    @Test
    void aPacketThatDoesNotFitItsChainNeedsAReset() {
        assertThrows(VirtioException.class, () -> guest.sendRaw(new byte[VsockHeader.BYTES - 1]));
        VsockHeader longer = header(1, 2, OP_RW, 0, 100, BIG, 0);
        assertThrows(VirtioException.class, () -> guest.sendRaw(longer.encode(new byte[10], 10)));
        VsockHeader huge = header(1, 2, OP_RW, 0, -1, BIG, 0);
        assertThrows(VirtioException.class, () -> guest.sendRaw(huge.encode(new byte[0], 0)));
    }

    @Test
    void aResetEndsEveryStream() throws Exception {
        try (SocketChannel host = guestConnects(BIG)) {
            device.reset();
            assertEquals(-1, host.read(ByteBuffer.allocate(1)));
            assertEquals(List.of(), guest.receive());
        }
    }

    @Test
    void closingRemovesTheSocketFile() {
        device.close();
        assertFalse(Files.exists(socket));
    }

    @Test
    void theConnectLineIsFirecrackers() {
        assertEquals(5000, VsockConnectLine.parse("CONNECT 5000"));
        assertEquals(52, VsockConnectLine.parse("CONNECT 52\r"));
        assertEquals(-1, VsockConnectLine.parse("CONNECT 4294967295"));
        for (String bad : List.of("CONNECT 4294967296", "CONNECT ", "CONNECT -1", "connect 5", "CONNECT 5 6", "CONNECT +5", "")) {
            assertEquals(null, VsockConnectLine.parse(bad), bad);
        }
    }
}
