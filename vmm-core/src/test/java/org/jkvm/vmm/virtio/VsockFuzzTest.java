package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.FuzzInput;
import org.jkvm.vmm.virtio.VsockDriver.Packet;
import org.junit.jupiter.api.Tag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A guest sending virtio-vsock anything: packets with fuzzed operations, types, ports, flags,
 * credit fields and lengths (or raw bytes), on well-formed queues, to a device whose host has a
 * Unix socket listening for guest port 1 ({@code PATH_1}, accepted and never read) and none for
 * other ports. The device either refuses a packet that does not fit its chain with a
 * {@link VirtioException} or goes on, and everything it puts in the receive queue is a
 * well-formed packet from the host to the guest. Input, per packet until it runs out: a u8
 * selector (bit 7: raw bytes of the u8 length that follows), op u8 (mod 9), type u8 (mod 3),
 * source and destination port u8 (mod 4), flags u8, buf_alloc u32, fwd_cnt u32, payload length
 * u16 (mod 8192), a u8 extra length the header claims beyond it, then the payload.
 */
@Tag("unit")
@Tag("fuzz")
class VsockFuzzTest {
    private static final int PACKETS = 64;

    @FuzzTest(maxDuration = "30s")
    void packets(byte[] data) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("jkvm-vsock-fuzz");
        Path socket = dir.resolve("v.sock");
        List<SocketChannel> accepted = new ArrayList<>();
        Thread acceptor = null;
        try (ServerSocketChannel host = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            host.bind(UnixDomainSocketAddress.of(Path.of(socket + "_1")));
            acceptor = Thread.ofVirtual().start(() -> acceptAll(host, accepted));
            VirtioVsock device = new VirtioVsock("virtio-vsock-fuzz", socket, VsockDriver.GUEST_CID);
            try {
                run(new VsockDriver(device), new FuzzInput(data));
            } catch (VirtioException refused) {
                // a packet that did not fit its chain: the transport asks the driver to reset the device
            } finally {
                device.close();
            }
        } finally {
            // The acceptor may hold a connection it took just before the host socket closed: wait
            // for it, or that connection outlives the input (tens of thousands of inputs: EMFILE).
            if (acceptor != null) acceptor.join();
            synchronized (accepted) {
                for (SocketChannel c : accepted) c.close();
            }
            try (var left = Files.list(dir)) {
                for (Path f : left.toList()) Files.delete(f);
            }
            Files.delete(dir);
        }
    }

    private static void run(VsockDriver guest, FuzzInput in) throws VirtioException {
        for (int i = 0; i < PACKETS && in.more(); i++) {
            int selector = in.u8();
            if ((selector & 0x80) != 0) {
                guest.sendRaw(in.bytes(in.u8()));
            } else {
                int op = in.u8() % 9, type = in.u8() % 3, src = in.u8() % 4, dst = in.u8() % 4, flags = in.u8();
                int bufAlloc = in.u32(), fwdCnt = in.u32();
                int length = in.u16() % 8192, extra = in.u8();
                byte[] payload = new byte[length];
                byte[] given = in.bytes(length);
                System.arraycopy(given, 0, payload, 0, given.length);
                VsockHeader h = new VsockHeader(VsockDriver.GUEST_CID, VsockHeader.HOST_CID, src, dst, length + extra,
                        type, op, flags, bufAlloc, fwdCnt);
                guest.send(h, payload);
            }
            for (Packet p : guest.receive()) check(p);
        }
    }

    private static void check(Packet p) {
        VsockHeader h = p.header();
        assertEquals(VsockHeader.HOST_CID, h.srcCid(), h.toString());
        assertEquals(VsockDriver.GUEST_CID, h.dstCid(), h.toString());
        assertEquals(VsockHeader.TYPE_STREAM, h.type(), h.toString());
        assertTrue(h.op() >= VsockHeader.OP_REQUEST && h.op() <= VsockHeader.OP_CREDIT_UPDATE, h.toString());
        assertEquals(p.payload().length, h.len(), h.toString());
        assertTrue(h.op() == VsockHeader.OP_RW || h.len() == 0, h.toString());
    }

    private static void acceptAll(ServerSocketChannel host, List<SocketChannel> accepted) {
        while (true) {
            try {
                SocketChannel c = host.accept();
                synchronized (accepted) {
                    accepted.add(c);
                }
            } catch (IOException closed) {
                return;
            }
        }
    }
}
