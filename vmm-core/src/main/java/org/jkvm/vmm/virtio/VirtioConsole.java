package org.jkvm.vmm.virtio;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

import org.jkvm.vmm.devices.ConsoleReceiver;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * virtio-console (virtio 1.2, 5.3) with VIRTIO_CONSOLE_F_MULTIPORT and two ports: port 0 is the
 * console (the guest's hvc0), port 1 is named {@link #RESULTS_PORT}, for what an experiment reads
 * back. What the guest writes to a port goes to that port's stream; what {@link #receiveAll} is
 * given (jkvm run's standard input) goes to port 0's receive buffers as the guest posts them, and
 * port 1 receives nothing. A driver without MULTIPORT gets port 0 alone.
 * The control queues speak the protocol of 5.3.6.2: the driver says it is ready, the device adds
 * its ports, and answers each port's readiness with its role (console, name) and "host connected".
 */
public final class VirtioConsole implements VirtioDevice, ConsoleReceiver {
    private static final System.Logger LOG = System.getLogger(VirtioConsole.class.getName());
    /** The name the guest sees in /sys/class/virtio-ports/vportNp1/name. */
    public static final String RESULTS_PORT = "jkvm.results";
    /** VIRTIO_CONSOLE_F_MULTIPORT: several ports and the control queues. */
    static final long F_MULTIPORT = 1L << 1;
    /** Control events (5.3.6.2). */
    static final int DEVICE_READY = 0, DEVICE_ADD = 1, PORT_READY = 3, CONSOLE_PORT = 4, PORT_OPEN = 6, PORT_NAME = 7;
    /** Queue indices with MULTIPORT: port 0's receive and transmit, the control receive (to the driver) and transmit. */
    static final int PORT0_RX = 0, PORT0_TX = 1, CONTROL_RX = 2, CONTROL_TX = 3, PORT1_TX = 5;
    /** Bytes of a control message: id u32, event u16, value u16. */
    static final int CONTROL_BYTES = 8;
    private static final int PORTS = 2;
    /** Each port is announced at most a few messages at a time; a guest that asks for more is not answered. */
    private static final int MAX_PENDING = 16;
    /** Bytes of console input held for the guest, as the UART's receive buffer holds. */
    private static final int INPUT_LIMIT = 4096;

    private final String name;
    private final OutputStream console;
    private final OutputStream results;
    private final Deque<byte[]> pending = new ArrayDeque<>();
    private volatile Runnable wake = () -> { };
    private final PortInput input = new PortInput(INPUT_LIMIT, () -> wake.run());
    /** Used by the device's worker thread only. */
    private final byte[] scratch = new byte[64 << 10];
    private long outputErrors;

    /**
     * A console device called {@code name}: port 0's output goes to {@code console}, port 1's
     * ({@link #RESULTS_PORT}) to {@code results}.
     */
    public VirtioConsole(String name, OutputStream console, OutputStream results) {
        this.name = name;
        this.console = console;
        this.results = results;
    }

    @Override
    public int deviceId() {
        return 3;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long features() {
        return VirtioMmio.F_VERSION_1 | F_MULTIPORT;
    }

    /** Each port's receive and transmit queue, and the two control queues. */
    @Override
    public int queues() {
        return 2 * PORTS + 2;
    }

    /** cols u16, rows u16 (unused without VIRTIO_CONSOLE_F_SIZE), max_nr_ports u32, emerg_wr u32 (not offered). */
    @Override
    public byte[] config() {
        return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(4, PORTS).array();
    }

    /** Remembers how to wake the worker when console input arrives. */
    @Override
    public void attach(Runnable wakeWorker) {
        wake = wakeWorker;
    }

    /**
     * Queues console input for port 0, waiting while {@value #INPUT_LIMIT} bytes wait for the
     * guest's receive buffers; false once the device is closed.
     */
    @Override
    public boolean receiveAll(byte[] data) throws InterruptedException {
        return input.put(data);
    }

    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        return switch (index) {
            case PORT0_RX -> receive(queue);
            case PORT0_TX -> drain(queue, console);
            case PORT1_TX -> drain(queue, results);
            case CONTROL_TX -> control(queue);
            case CONTROL_RX -> deliver(queue);
            default -> false; // port 1's receive queue: the host sends it nothing
        };
    }

    /** Forgets the messages a reset driver will not expect; console input waits for the next driver. */
    @Override
    public void reset() {
        pending.clear();
    }

    /** Releases a feeder waiting for receive buffers. */
    @Override
    public void close() {
        input.close();
    }

    /** Fills the receive buffers the guest posted with waiting input; a buffer is taken only when there is some. */
    private boolean receive(VirtQueue queue) throws VirtioException {
        boolean used = false;
        while (!input.isEmpty()) {
            DescriptorChain c = queue.next();
            if (c == null) break;
            queue.complete(c.head(), input.takeInto(c.writable()));
            used = true;
        }
        return used;
    }

    /** A guest buffer may be gigabytes: it goes out through one bounded scratch array. */
    private void copy(MemorySegment buffer, OutputStream out) throws IOException {
        for (long at = 0; at < buffer.byteSize(); at += scratch.length) {
            int n = (int) Math.min(scratch.length, buffer.byteSize() - at);
            MemorySegment.copy(buffer, JAVA_BYTE, at, scratch, 0, n);
            out.write(scratch, 0, n);
        }
    }

    /** Writes each chain's readable bytes to {@code out} and returns it unwritten-to. */
    private boolean drain(VirtQueue queue, OutputStream out) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            try {
                for (MemorySegment b : c.readable()) copy(b, out);
            } catch (IOException e) {
                outputFailed(e);
            }
            queue.complete(c.head(), 0);
            used = true;
        }
        try {
            if (used) out.flush();
        } catch (IOException e) {
            outputFailed(e);
        }
        return used;
    }

    /** The guest goes on: its writes are dropped, the first failure logged. */
    private void outputFailed(IOException e) {
        if (outputErrors++ == 0) LOG.log(Level.WARNING, name + ": a port's output failed; the guest's writes are dropped", e);
    }

    /** Takes the driver's control messages and queues the answers; a message too short is skipped. */
    private boolean control(VirtQueue queue) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            if (Buffers.total(c.readable()) >= CONTROL_BYTES) {
                ByteBuffer m = ByteBuffer.wrap(Buffers.copyOut(c.readable(), CONTROL_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
                answer(m.getInt(0), Short.toUnsignedInt(m.getShort(4)), Short.toUnsignedInt(m.getShort(6)));
            }
            queue.complete(c.head(), 0);
            used = true;
        }
        return used;
    }

    private void answer(int id, int event, int value) {
        if (event == DEVICE_READY && value == 1) {
            for (int p = 0; p < PORTS; p++) send(p, DEVICE_ADD, 1, "");
        } else if (event == PORT_READY && value == 1 && id >= 0 && id < PORTS) {
            if (id == 0) {
                send(id, CONSOLE_PORT, 1, "");
            } else {
                send(id, PORT_NAME, 1, RESULTS_PORT);
            }
            send(id, PORT_OPEN, 1, "");
        }
        // PORT_OPEN from the driver (a program opened or closed the port) needs no answer.
    }

    private void send(int id, int event, int value, String text) {
        if (pending.size() >= MAX_PENDING) {
            LOG.log(Level.DEBUG, "{0}: control message {1} for port {2} dropped: {3} already wait for the driver",
                    name, event, id, MAX_PENDING);
            return;
        }
        byte[] tail = text.getBytes(StandardCharsets.US_ASCII);
        pending.add(ByteBuffer.allocate(CONTROL_BYTES + tail.length).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(id).putShort((short) event).putShort((short) value).put(tail).array());
    }

    /** Puts waiting control messages into the buffers the driver offered, one message per buffer. */
    private boolean deliver(VirtQueue queue) throws VirtioException {
        boolean used = false;
        while (!pending.isEmpty()) {
            DescriptorChain c = queue.next();
            if (c == null) break;
            queue.complete(c.head(), Buffers.copyIn(c.writable(), pending.poll()));
            used = true;
        }
        return used;
    }
}
