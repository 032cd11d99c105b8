package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import org.jkvm.vmm.virtio.VsockConnection.Key;
import org.jkvm.vmm.virtio.VsockConnection.State;

import static org.jkvm.vmm.virtio.VsockHeader.HOST_CID;
import static org.jkvm.vmm.virtio.VsockHeader.OP_CREDIT_REQUEST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_CREDIT_UPDATE;
import static org.jkvm.vmm.virtio.VsockHeader.OP_REQUEST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RESPONSE;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RST;
import static org.jkvm.vmm.virtio.VsockHeader.OP_RW;
import static org.jkvm.vmm.virtio.VsockHeader.OP_SHUTDOWN;
import static org.jkvm.vmm.virtio.VsockHeader.SHUTDOWN_RCV;
import static org.jkvm.vmm.virtio.VsockHeader.SHUTDOWN_SEND;
import static org.jkvm.vmm.virtio.VsockHeader.TYPE_STREAM;

/**
 * virtio-vsock (virtio 1.2, 5.10), stream sockets only, with Firecracker's host side: a host
 * program connects to the Unix socket {@code PATH} and writes {@code CONNECT <port>\n}; jkvm asks
 * the guest's port, answers {@code OK <host port>\n} once the guest accepted (or closes the
 * socket if it refused, or gave no answer within {@link #ANSWER_TIMEOUT} of taking the request),
 * and relays. A guest connecting to CID 2, port P, reaches the Unix
 * socket {@code PATH_P}. The guest is not trusted: a packet that does not fit its chain is a
 * {@link VirtioException} (the device needs a reset); one with an unknown operation, type or
 * stream, or data beyond the credit jkvm gave, is answered with RST; jkvm holds at most
 * {@link #MAX_STREAMS} streams, each with bounded buffers ({@link VsockConnection}).
 */
public final class VirtioVsock implements VirtioDevice {
    private static final System.Logger LOG = System.getLogger(VirtioVsock.class.getName());
    /** Queues: to the guest, from the guest, events (never used: jkvm does not migrate). */
    static final int RX = 0, TX = 1;
    /** The most streams open at once; further requests are refused with RST. */
    static final int MAX_STREAMS = 64;
    /** The largest payload Linux sends in one packet (VIRTIO_VSOCK_MAX_PKT_BUF_SIZE); more is a broken driver. */
    static final int MAX_PAYLOAD = 64 << 10;
    /** Control packets waiting for receive buffers; RSTs for unknown streams are dropped past half of it. */
    private static final int MAX_CONTROL = 4 * MAX_STREAMS;
    /** A CONNECT line's most bytes. */
    private static final int MAX_LINE = 32;
    /** Host ports jkvm gives host-initiated streams start here, as Firecracker's do. */
    private static final int FIRST_HOST_PORT = 1 << 30;
    /**
     * How long a guest that took a host program's request may leave it unanswered. A Linux guest
     * answers from the kernel at once (RESPONSE or RST); this covers one that never does, so the
     * host program is not left waiting and the stream's slot comes back. Counted from the
     * delivery of the request, not from the CONNECT line: a guest still booting is not late.
     */
    static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(5);

    /** A packet without payload waiting for the guest's receive queue. */
    private record Control(Key key, int op, int flags) {}

    private final String name;
    private final Path socket;
    private final long guestCid;
    private final ServerSocketChannel listener;
    private final Duration answerTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Key, VsockConnection> streams = new LinkedHashMap<>();
    private final Deque<Control> control = new ArrayDeque<>();
    private int nextHostPort = FIRST_HOST_PORT;
    private volatile Runnable wake = () -> { };

    /**
     * A vsock device called {@code name} giving the guest context id {@code guestCid}, listening
     * for host programs on the Unix socket {@code socket} (which must not exist; it is removed on close).
     */
    public VirtioVsock(String name, Path socket, long guestCid) {
        this(name, socket, guestCid, ANSWER_TIMEOUT);
    }

    /** As {@link #VirtioVsock(String, Path, long)}, with the guest given {@code answerTimeout} to answer a request. */
    VirtioVsock(String name, Path socket, long guestCid, Duration answerTimeout) {
        this.name = name;
        this.answerTimeout = answerTimeout;
        this.socket = socket;
        this.guestCid = guestCid;
        try {
            this.listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX).bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": listening on the Unix socket " + socket
                    + (Files.exists(socket) ? " (the file exists: remove it if no VM uses it)" : ""), e);
        }
        Thread.ofVirtual().name(name + "-accept").start(this::accept);
    }

    @Override
    public int deviceId() {
        return 19;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long features() {
        return VirtioMmio.F_VERSION_1;
    }

    @Override
    public int queues() {
        return 3;
    }

    /** guest_cid, le64. */
    @Override
    public byte[] config() {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(guestCid).array();
    }

    @Override
    public void attach(Runnable wakeWorker) {
        this.wake = wakeWorker;
    }

    /** Makes the worker serve the receive queue: something waits for the guest. */
    void wake() {
        wake.run();
    }

    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        lock.lock();
        try {
            return switch (index) {
                case TX -> transmit(queue);
                case RX -> receive(queue);
                default -> false; // the event queue's buffers stay with the device
            };
        } finally {
            lock.unlock();
        }
    }

    /** The guest's packets, each checked against its chain, then acted on. */
    private boolean transmit(VirtQueue queue) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            long readable = Buffers.total(c.readable());
            if (readable < VsockHeader.BYTES) {
                throw new VirtioException("vsock packet of " + readable + " bytes is shorter than its header");
            }
            VsockHeader h = VsockHeader.parse(Buffers.copyOut(c.readable(), VsockHeader.BYTES));
            if (h.payloadLength() > MAX_PAYLOAD || h.payloadLength() > readable - VsockHeader.BYTES) {
                throw new VirtioException("vsock packet says %d bytes of payload; its chain holds %d, at most %d allowed"
                        .formatted(h.payloadLength(), readable - VsockHeader.BYTES, MAX_PAYLOAD));
            }
            byte[] packet = Buffers.copyOut(c.readable(), VsockHeader.BYTES + h.len());
            handle(h, Arrays.copyOfRange(packet, VsockHeader.BYTES, packet.length));
            queue.complete(c.head(), 0);
            used = true;
        }
        return used;
    }

    private void handle(VsockHeader h, byte[] payload) {
        if (h.srcCid() != guestCid || h.dstCid() != HOST_CID) {
            LOG.log(Level.DEBUG, "{0}: dropped a packet from CID {1} to CID {2}", name, h.srcCid(), h.dstCid());
            return;
        }
        Key key = new Key(h.srcPort(), h.dstPort());
        VsockConnection c = streams.get(key);
        if (h.type() != TYPE_STREAM) {
            if (c != null) end(c, false);
            if (h.op() != OP_RST) refuse(key);
            return;
        }
        if (c == null) {
            if (h.op() == OP_REQUEST) {
                connectHost(key, h);
            } else if (h.op() != OP_RST) {
                refuse(key);
            }
            return;
        }
        c.peerCredit(h.bufAlloc(), h.fwdCnt());
        switch (h.op()) {
            case OP_RESPONSE -> {
                if (c.state() == State.REQUESTED) {
                    c.establish(null);
                } else {
                    end(c, true);
                }
            }
            case OP_RST -> end(c, false);
            case OP_SHUTDOWN -> {
                if (c.state() == State.ESTABLISHED) {
                    c.guestShutdown(h.flags());
                } else {
                    end(c, true);
                }
            }
            case OP_RW -> {
                if (c.state() != State.ESTABLISHED || !c.fromGuest(payload)) end(c, true);
            }
            case OP_CREDIT_UPDATE -> { } // the credit is taken from every packet
            case OP_CREDIT_REQUEST -> creditUpdate(c);
            default -> end(c, true); // REQUEST on an open stream, or no operation at all
        }
    }

    /** A guest's REQUEST: the host socket PATH_P is connected on a thread of its own, then answered. */
    private void connectHost(Key key, VsockHeader h) {
        if (streams.size() >= MAX_STREAMS) {
            refuse(key);
            return;
        }
        VsockConnection c = new VsockConnection(key, this, lock, null);
        c.peerCredit(h.bufAlloc(), h.fwdCnt());
        streams.put(key, c);
        Path target = Path.of(socket + "_" + Integer.toUnsignedString(key.hostPort()));
        Thread.ofVirtual().name(name + "-connect").start(() -> {
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open(UnixDomainSocketAddress.of(target));
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "{0}: the guest''s connection to {1} refused: {2}", name, target, e);
            }
            lock.lock();
            try {
                if (c.state() != State.CONNECTING) {
                    closeQuietly(ch);
                } else if (ch == null) {
                    end(c, true);
                } else {
                    send(key, OP_RESPONSE, 0);
                    c.establish(ch);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    /** Ends host-initiated stream {@code c} with RST if the guest has not answered its request in time. */
    private void awaitAnswer(VsockConnection c) {
        Thread.ofVirtual().name(name + "-answer").start(() -> {
            try {
                Thread.sleep(answerTimeout);
            } catch (InterruptedException e) {
                return;
            }
            lock.lock();
            try {
                if (streams.get(c.key()) == c && c.state() == State.REQUESTED) {
                    LOG.log(Level.DEBUG, "{0}: the guest left the request for port {1} unanswered for {2}: reset",
                            name, Integer.toUnsignedString(c.key().guestPort()), answerTimeout);
                    end(c, true);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    /** Answers a packet for no stream with RST, unless too many answers wait already. */
    private void refuse(Key key) {
        if (control.size() < MAX_CONTROL / 2) send(key, OP_RST, 0);
    }

    /** Queues a packet without payload for the guest; with {@link #MAX_CONTROL} waiting, it is dropped. */
    private void send(Key key, int op, int flags) {
        if (control.size() >= MAX_CONTROL) {
            LOG.log(Level.DEBUG, "{0}: control packet {1} for {2} dropped: {3} wait already", name, op, key, MAX_CONTROL);
            return;
        }
        control.add(new Control(key, op, flags));
        wake();
    }

    /** Tells the guest how much of its data the host has taken (once per stream until it is sent). */
    void creditUpdate(VsockConnection c) {
        if (!control.contains(new Control(c.key(), OP_CREDIT_UPDATE, 0))) send(c.key(), OP_CREDIT_UPDATE, 0);
    }

    /** Ends stream {@code c}, telling the guest with RST if {@code rst}. Called with the lock held. */
    void end(VsockConnection c, boolean rst) {
        if (streams.remove(c.key()) != c) return;
        c.close();
        if (rst) send(c.key(), OP_RST, 0);
    }

    /** Fills the guest's receive buffers: control packets first, then stream data and end-of-file notices. */
    private boolean receive(VirtQueue queue) throws VirtioException {
        boolean used = false;
        while (!control.isEmpty()) {
            Control p = control.poll();
            VsockConnection c = streams.get(p.key());
            if (c == null && p.op() != OP_RST) continue;
            DescriptorChain chain = queue.next();
            if (chain == null) {
                control.addFirst(p);
                return used;
            }
            deliver(queue, chain, header(p.key(), c, p.op(), p.flags(), 0), new byte[0]);
            if (p.op() == OP_REQUEST) awaitAnswer(c);
            used = true;
        }
        boolean progress = true;
        while (progress) {
            progress = false;
            for (VsockConnection c : new ArrayList<>(streams.values())) {
                if (!c.hasDataForGuest() && !c.shutdownDue()) continue;
                DescriptorChain chain = queue.next();
                if (chain == null) return used;
                long room = chain.writableBytes() - VsockHeader.BYTES;
                if (c.hasDataForGuest()) {
                    if (room <= 0) throw new VirtioException("vsock receive buffer of " + chain.writableBytes() + " bytes has no room for data");
                    byte[] data = c.takeForGuest((int) Math.min(room, MAX_PAYLOAD));
                    deliver(queue, chain, header(c.key(), c, OP_RW, 0, data.length), data);
                } else {
                    c.shutdownSent();
                    deliver(queue, chain, header(c.key(), c, OP_SHUTDOWN, SHUTDOWN_RCV | SHUTDOWN_SEND, 0), new byte[0]);
                }
                used = progress = true;
            }
        }
        return used;
    }

    private VsockHeader header(Key key, VsockConnection c, int op, int flags, int len) {
        int fwd = c == null ? 0 : c.reportFwdCnt();
        return new VsockHeader(HOST_CID, guestCid, key.hostPort(), key.guestPort(), len, TYPE_STREAM, op, flags,
                VsockConnection.BUF_ALLOC, fwd);
    }

    private static void deliver(VirtQueue queue, DescriptorChain chain, VsockHeader h, byte[] data) throws VirtioException {
        if (chain.writableBytes() < VsockHeader.BYTES) {
            throw new VirtioException("vsock receive buffer of " + chain.writableBytes() + " bytes is shorter than a header");
        }
        queue.complete(chain.head(), Buffers.copyIn(chain.writable(), h.encode(data, data.length)));
    }

    /** Host programs: each connection is read for its CONNECT line on a thread of its own. */
    private void accept() {
        while (listener.isOpen()) {
            try {
                SocketChannel ch = listener.accept();
                Thread.ofVirtual().name(name + "-hello").start(() -> hello(ch));
            } catch (IOException e) {
                if (listener.isOpen()) LOG.log(Level.WARNING, name + ": accepting on " + socket + " failed", e);
                return;
            }
        }
    }

    /** Reads {@code CONNECT <port>\n} byte by byte (nothing past it), then asks the guest. */
    private void hello(SocketChannel ch) {
        Integer port = null;
        try {
            port = VsockConnectLine.read(ch, MAX_LINE);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "{0}: reading a host program''s CONNECT: {1}", name, e);
        }
        if (port == null) {
            closeQuietly(ch);
            return;
        }
        lock.lock();
        try {
            if (streams.size() >= MAX_STREAMS || !listener.isOpen()) {
                closeQuietly(ch);
                return;
            }
            Key key;
            do {
                key = new Key(port, nextHostPort++);
                if (nextHostPort == 0) nextHostPort = FIRST_HOST_PORT;
            } while (streams.containsKey(key));
            VsockConnection c = new VsockConnection(key, this, lock, ch);
            streams.put(key, c);
            send(key, OP_REQUEST, 0);
        } finally {
            lock.unlock();
        }
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch == null) return;
        try {
            ch.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing a vsock host socket: {0}", e);
        }
    }

    /** Ends every stream (a driver reset): the guest starts afresh. */
    @Override
    public void reset() {
        lock.lock();
        try {
            for (VsockConnection c : new ArrayList<>(streams.values())) end(c, false);
            control.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Stops listening, removes the socket file and ends every stream. */
    @Override
    public void close() {
        try {
            listener.close();
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": closing the Unix socket " + socket, e);
        } finally {
            reset();
        }
    }
}
