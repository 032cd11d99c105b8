package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One stream between a guest port and a host Unix socket, and its credit both ways (virtio 1.2,
 * 5.10.6.3): the guest may have at most {@link #BUF_ALLOC} bytes in jkvm waiting for the host
 * socket (more is a broken promise: the stream is reset), and jkvm reads from the host only what
 * the guest's advertised buffer has room for, and at most {@link #TO_GUEST_LIMIT} ahead of the
 * receive queue. Two virtual threads move the bytes: one reads the host socket, one writes it.
 * Every field is guarded by the device's lock.
 */
final class VsockConnection {
    private static final System.Logger LOG = System.getLogger(VsockConnection.class.getName());
    /** The receive buffer jkvm advertises per stream: what the guest may send before jkvm wrote it out. */
    static final int BUF_ALLOC = 256 << 10;
    /** Host bytes read ahead of the guest's receive queue, per stream. */
    static final int TO_GUEST_LIMIT = 256 << 10;
    private static final int READ_CHUNK = 64 << 10;

    /** Where a stream is: the guest's answer awaited, the host socket being connected, open, gone. */
    enum State { REQUESTED, CONNECTING, ESTABLISHED, CLOSED }

    /** The stream's two ports, as the guest sees them: its own, and the host's. */
    record Key(int guestPort, int hostPort) {}

    private final Key key;
    private final VirtioVsock device;
    private final ReentrantLock lock;
    private final Condition changed;
    private final boolean hostInitiated;
    private SocketChannel host;
    private State state;
    private final Deque<byte[]> toHost = new ArrayDeque<>();
    private int toHostBytes;
    private final Deque<byte[]> toGuest = new ArrayDeque<>();
    private int toGuestBytes;
    /** Bytes written to the host socket, and the count last told the guest. */
    private int fwdCnt, reportedFwdCnt;
    /** Bytes put in the guest's receive queue. */
    private int txCnt;
    private int peerBufAlloc, peerFwdCnt;
    private boolean guestStopsSending, guestStopsReceiving, hostEof, shutdownSent;

    /**
     * A stream the host program opened on {@code host} (state REQUESTED, waiting for the guest's
     * RESPONSE), or, with {@code host} null, one the guest asked for (CONNECTING).
     */
    VsockConnection(Key key, VirtioVsock device, ReentrantLock lock, SocketChannel host) {
        this.key = key;
        this.device = device;
        this.lock = lock;
        this.changed = lock.newCondition();
        this.host = host;
        this.hostInitiated = host != null;
        this.state = host != null ? State.REQUESTED : State.CONNECTING;
    }

    Key key() {
        return key;
    }

    State state() {
        return state;
    }

    /** The guest's view of its receive buffer, from any packet it sent on the stream. */
    void peerCredit(int bufAlloc, int fwd) {
        peerBufAlloc = bufAlloc;
        peerFwdCnt = fwd;
        changed.signalAll();
    }

    /** Bytes the guest's buffer has room for now; 0 when it shrank below what is in flight. */
    private long credit() {
        return Math.max(0, Integer.toUnsignedLong(peerBufAlloc) - Integer.toUnsignedLong(txCnt - peerFwdCnt));
    }

    /** The stream is open: starts the two threads, with the host socket {@code connected} for a guest-initiated one. */
    void establish(SocketChannel connected) {
        if (!hostInitiated) host = connected;
        state = State.ESTABLISHED;
        String name = "vsock-" + Integer.toUnsignedString(key.guestPort()) + "-" + Integer.toUnsignedString(key.hostPort());
        Thread.ofVirtual().name(name + "-in").start(this::readHost);
        Thread.ofVirtual().name(name + "-out").start(this::writeHost);
    }

    /** Takes the guest's RW payload; false when it would overrun the credit jkvm gave. */
    boolean fromGuest(byte[] data) {
        if (guestStopsSending || data.length > BUF_ALLOC - toHostBytes) return false;
        if (data.length > 0) {
            toHost.add(data);
            toHostBytes += data.length;
            changed.signalAll();
        }
        return true;
    }

    /** The guest's SHUTDOWN: the writer finishes what is queued, then half-closes or ends the stream. */
    void guestShutdown(int flags) {
        guestStopsSending |= (flags & VsockHeader.SHUTDOWN_SEND) != 0;
        guestStopsReceiving |= (flags & VsockHeader.SHUTDOWN_RCV) != 0;
        changed.signalAll();
    }

    /** Whether host bytes wait that the guest has room for. */
    boolean hasDataForGuest() {
        return state == State.ESTABLISHED && toGuestBytes > 0 && credit() > 0;
    }

    /** Takes at most {@code max} waiting host bytes the guest has room for, counting them as sent. */
    byte[] takeForGuest(int max) {
        int n = (int) Math.min(Math.min(max, credit()), toGuestBytes);
        byte[] out = new byte[n];
        int at = 0;
        while (at < n) {
            byte[] head = toGuest.poll();
            int take = Math.min(head.length, n - at);
            System.arraycopy(head, 0, out, at, take);
            if (take < head.length) toGuest.addFirst(Arrays.copyOfRange(head, take, head.length));
            at += take;
        }
        toGuestBytes -= n;
        txCnt += n;
        changed.signalAll();
        return out;
    }

    /** Whether the host's end of file is due to the guest: everything before it was delivered, once. */
    boolean shutdownDue() {
        return state == State.ESTABLISHED && hostEof && toGuestBytes == 0 && !shutdownSent;
    }

    void shutdownSent() {
        shutdownSent = true;
    }

    /** The fwd_cnt to put in a packet to the guest, remembered as told. */
    int reportFwdCnt() {
        reportedFwdCnt = fwdCnt;
        return fwdCnt;
    }

    /** Ends the stream: its threads stop, the host socket closes. */
    void close() {
        state = State.CLOSED;
        toHost.clear();
        toGuest.clear();
        toHostBytes = toGuestBytes = 0;
        changed.signalAll();
        if (host == null) return;
        try {
            host.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "vsock stream {0}: closing the host socket: {1}", key, e);
        }
    }

    /** Host to guest: reads what the guest's credit allows, until the host's end of file. */
    private void readHost() {
        ByteBuffer buf = ByteBuffer.allocate(READ_CHUNK);
        while (true) {
            long room;
            lock.lock();
            try {
                while (state == State.ESTABLISHED && !guestStopsReceiving
                        && (room = Math.min(TO_GUEST_LIMIT, credit()) - toGuestBytes) <= 0) {
                    changed.awaitUninterruptibly();
                }
                if (state != State.ESTABLISHED || guestStopsReceiving) return;
                room = Math.min(TO_GUEST_LIMIT, credit()) - toGuestBytes;
            } finally {
                lock.unlock();
            }
            buf.clear().limit((int) Math.min(room, READ_CHUNK));
            int n;
            try {
                n = host.read(buf);
            } catch (IOException e) {
                hostFailed("reading", e);
                return;
            }
            lock.lock();
            try {
                if (state != State.ESTABLISHED) return;
                if (n < 0) {
                    hostEof = true;
                } else if (n > 0) {
                    toGuest.add(Arrays.copyOf(buf.array(), n));
                    toGuestBytes += n;
                }
            } finally {
                lock.unlock();
            }
            device.wake();
            if (n < 0) return;
        }
    }

    /** Guest to host: answers a host program's CONNECT, then writes what the guest sent, returning its credit. */
    private void writeHost() {
        try {
            if (hostInitiated) {
                writeFully(("OK " + Integer.toUnsignedString(key.hostPort()) + "\n").getBytes(StandardCharsets.US_ASCII));
            }
            while (true) {
                byte[] chunk;
                lock.lock();
                try {
                    while (state == State.ESTABLISHED && toHost.isEmpty() && !guestStopsSending) changed.awaitUninterruptibly();
                    if (state != State.ESTABLISHED) return;
                    if (toHost.isEmpty()) {
                        // the guest sends no more and all it sent is written
                        if (guestStopsReceiving) {
                            device.end(this, true);
                        } else {
                            host.shutdownOutput();
                        }
                        return;
                    }
                    chunk = toHost.peek();
                } finally {
                    lock.unlock();
                }
                writeFully(chunk);
                lock.lock();
                try {
                    if (state != State.ESTABLISHED) return;
                    toHost.poll();
                    toHostBytes -= chunk.length;
                    fwdCnt += chunk.length;
                    // Once a quarter of the buffer is free again unbeknown to the guest: it then never
                    // sees less than three quarters free with nothing waiting here, so it never stalls
                    // (and every packet to it carries fwd_cnt as well).
                    if (fwdCnt - reportedFwdCnt >= BUF_ALLOC / 4) device.creditUpdate(this);
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException e) {
            hostFailed("writing", e);
        }
    }

    private void writeFully(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) host.write(b);
    }

    /** A host socket error resets the stream; on a stream jkvm already ended it is no news. */
    private void hostFailed(String doing, IOException e) {
        lock.lock();
        try {
            if (state == State.CLOSED) return;
            LOG.log(Level.DEBUG, "vsock stream {0}: {1} the host socket failed, resetting it: {2}", key, doing, e);
            device.end(this, true);
        } finally {
            lock.unlock();
        }
    }
}
