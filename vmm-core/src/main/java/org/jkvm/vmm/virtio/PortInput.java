package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The bytes waiting for a virtio-console port's receive queue: a bounded ring the host's feeder
 * fills, waiting while it is full, and the device's worker empties into the receive buffers the
 * guest posts. The feeder's bytes arrive in order and none is dropped; a guest that posts no
 * buffers only keeps the feeder waiting, until {@link #close} releases it.
 */
final class PortInput {
    private final byte[] ring;
    private final Runnable arrived;
    private int head, count;
    private boolean closed;

    /** A ring of {@code capacity} bytes; {@code arrived} runs as bytes come in (to wake the worker). */
    PortInput(int capacity, Runnable arrived) {
        this.ring = new byte[capacity];
        this.arrived = arrived;
    }

    /** Adds all of {@code data}, waiting for room; false when closed first (the rest is not wanted). */
    synchronized boolean put(byte[] data) throws InterruptedException {
        int at = 0;
        while (at < data.length) {
            while (count == ring.length && !closed) wait();
            if (closed) return false;
            int n = Math.min(ring.length - count, data.length - at);
            for (int i = 0; i < n; i++) ring[(head + count + i) % ring.length] = data[at + i];
            count += n;
            at += n;
            arrived.run();
        }
        return true;
    }

    /** Whether no byte waits. */
    synchronized boolean isEmpty() {
        return count == 0;
    }

    /** Moves as many waiting bytes as {@code buffers} hold into them, in order; returns how many. */
    synchronized int takeInto(List<MemorySegment> buffers) {
        int moved = 0;
        for (MemorySegment b : buffers) {
            long at = 0;
            while (at < b.byteSize() && count > 0) {
                int n = (int) Math.min(b.byteSize() - at, Math.min(count, ring.length - head));
                MemorySegment.copy(ring, head, b, JAVA_BYTE, at, n);
                head = (head + n) % ring.length;
                count -= n;
                at += n;
                moved += n;
            }
            if (count == 0) break;
        }
        if (moved > 0) notifyAll();
        return moved;
    }

    /** Releases a waiting feeder; later bytes are refused. */
    synchronized void close() {
        closed = true;
        notifyAll();
    }
}
