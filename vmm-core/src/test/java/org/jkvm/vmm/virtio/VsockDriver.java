package org.jkvm.vmm.virtio;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

import static org.jkvm.vmm.virtio.FakeRam.DATA;
import static org.jkvm.vmm.virtio.VirtQueue.DESC_F_WRITE;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The guest's side of a {@link VirtioVsock} for tests, as Linux's driver works it: a transmit
 * queue with one descriptor per packet and a receive queue kept full of 4 KiB buffers, each
 * in its own {@link FakeRam}; the device's host threads run for real, so {@link #await} polls.
 */
final class VsockDriver {
    static final long GUEST_CID = 3;
    static final int SIZE = 16;
    static final int RX_BUFFER = VsockHeader.BYTES + 4096;
    private static final int TX_SLOT = 0x11000;

    /** A packet the device put in the receive queue. */
    record Packet(VsockHeader header, byte[] payload) {}

    private final VirtioVsock device;
    private final FakeRam tx = new FakeRam(0x3000 + (long) TX_SLOT * SIZE);
    private final FakeRam rx = new FakeRam(0x3000 + (long) RX_BUFFER * SIZE);
    private final VirtQueue txQueue;
    private final VirtQueue rxQueue;
    private int sent;
    private int received;

    VsockDriver(VirtioVsock device) throws VirtioException {
        this.device = device;
        txQueue = tx.queue(SIZE);
        rxQueue = rx.queue(SIZE);
        for (int i = 0; i < SIZE; i++) offerRx(i);
    }

    private void offerRx(int i) {
        rx.descriptor(i, DATA + (long) RX_BUFFER * i, RX_BUFFER, DESC_F_WRITE, 0);
        rx.offer(i, SIZE);
    }

    /** A stream header from the guest's {@code port} to the host's {@code hostPort}, advertising {@code bufAlloc}. */
    static VsockHeader header(int port, int hostPort, int op, int flags, int len, int bufAlloc, int fwdCnt) {
        return new VsockHeader(GUEST_CID, VsockHeader.HOST_CID, port, hostPort, len, VsockHeader.TYPE_STREAM, op, flags,
                bufAlloc, fwdCnt);
    }

    /** Sends {@code bytes} (a header and its payload, or anything) as one packet; the device serves it. */
    void sendRaw(byte[] bytes) throws VirtioException {
        int slot = sent % SIZE;
        long at = DATA + (long) TX_SLOT * slot;
        tx.put(at, bytes);
        tx.descriptor(slot, at, Math.max(1, bytes.length), 0, 0);
        tx.offer(slot, SIZE);
        sent++;
        device.serve(VirtioVsock.TX, txQueue);
    }

    void send(VsockHeader h, byte[] payload) throws VirtioException {
        sendRaw(h.encode(payload, payload.length));
    }

    /** Serves the receive queue and returns the packets since the last call, their buffers offered again. */
    List<Packet> receive() throws VirtioException {
        device.serve(VirtioVsock.RX, rxQueue);
        List<Packet> out = new ArrayList<>();
        for (; received < rx.usedIndex(); received++) {
            long[] entry = rx.usedEntry(received % SIZE);
            byte[] b = new byte[(int) entry[1]];
            for (int i = 0; i < b.length; i++) b[i] = rx.get(DATA + (long) RX_BUFFER * entry[0] + i);
            VsockHeader h = VsockHeader.parse(b);
            out.add(new Packet(h, Arrays.copyOfRange(b, VsockHeader.BYTES, b.length)));
            offerRx((int) entry[0]);
        }
        return out;
    }

    /** Receives until a packet matches {@code wanted} (within 5 s); returns every packet received meanwhile. */
    List<Packet> await(Predicate<Packet> wanted, String what) throws VirtioException, InterruptedException {
        List<Packet> all = new ArrayList<>();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            List<Packet> got = receive();
            all.addAll(got);
            if (got.stream().anyMatch(wanted)) return all;
            Thread.sleep(5);
        }
        return fail("no " + what + " within 5 s; received " + all);
    }
}
