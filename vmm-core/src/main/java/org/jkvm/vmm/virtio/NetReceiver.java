package org.jkvm.vmm.virtio;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Consumer;

import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.IovecQueue;
import org.jkvm.kvm.KvmException;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * virtio-net's receive side: frames read from the tap straight into the driver's receive chains.
 * Without VIRTIO_NET_F_MRG_RXBUF each frame fills one chain. With it (5.1.6.4) a frame may spread
 * over several chains, num_buffers in its header telling how many: as the tap says nothing of a
 * frame's length before it is read, chains are taken from the queue until they hold the longest
 * frame there can be, the frame is read across all of them, and those it left empty wait for the
 * next frame. Fewer chains do when the driver cannot make more available (it has given every
 * descriptor its queue holds), the frame then being lost if it is longer. All frames the tap has for the chains are read in one pass, so the transport
 * raises one interrupt per batch. What is allocated is per chain taken (the queue's record of it
 * and a holder), not per frame read: the worker reads thousands of frames a second. For the same
 * reason the held chains' buffers stay laid out for the read ({@link IovecQueue}) from frame to
 * frame: a frame fills a few of the 64 KiB of chains held for it, and only the chains taken
 * after it are laid out for the next (measured at no gain in the emulated host, where the
 * per-frame code runs interpreted either way: bench/net/README.md, 2026-12-04).
 *
 * <p>Used by the worker thread, and by the transport's register writes with its lock held.
 */
final class NetReceiver {
    /** The most a frame and its header can need: the tap hands no more. */
    static final int MAX_BYTES = NetHeader.BYTES + NetHeader.MAX_FRAME;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final FrameFd frames;
    private final Consumer<String> drop;
    /** Chains taken from the queue that no frame has filled yet, in the driver's order; cleared by a reset. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The buffers of the {@link #held} chains, in order: what the next frame is read into. */
    private final IovecQueue into = new IovecQueue(FrameFd.MAX_BUFFERS);
    /** The bytes the held chains can take. */
    private long heldBytes;
    private boolean merge;
    /** Whether the held chains wait for a frame from the tap (rather than for more chains). */
    private volatile boolean waitsForFrame;

    /** Reads {@code frames}; {@code drop} hears why a frame for the guest was lost. */
    NetReceiver(FrameFd frames, Consumer<String> drop) {
        this.frames = frames;
        this.drop = drop;
    }

    /** Forgets the held chains; {@code merge}: whether the driver took VIRTIO_NET_F_MRG_RXBUF. */
    void reset(boolean merge) {
        this.merge = merge;
        held.clear();
        into.clear();
        heldBytes = 0;
        waitsForFrame = false;
    }

    /** Whether a frame from the tap is work for the worker. */
    boolean waitsForFrame() {
        return waitsForFrame;
    }

    /** Fills the driver's receive chains with frames from the tap until either runs out; returns whether one was used. */
    boolean receive(VirtQueue queue) throws VirtioException {
        boolean used = false;
        int failures = 0;
        while (true) {
            waitsForFrame = take(queue);
            if (!waitsForFrame) return used; // the driver notifies when it adds chains
            long n;
            try {
                n = frames.read(into);
            } catch (KvmException e) {
                // A failed read drops that frame; reads that fail without taking frames (the tap
                // gone) end in the transport's error handling rather than a loop.
                if (++failures > queue.size()) throw e;
                drop.accept(e.getMessage());
                continue;
            }
            if (n < 0) return used; // the worker polls the tap until a frame comes
            if (n < NetHeader.BYTES + NetHeader.ETH_BYTES) {
                drop.accept(n + " bytes, less than a header and an Ethernet header");
                continue;
            }
            complete(queue, n);
            used = true;
        }
    }

    /**
     * Takes chains from the queue until those held can take a frame; returns whether they can,
     * false when the driver has to make more chains available first.
     */
    private boolean take(VirtQueue queue) throws VirtioException {
        if (!merge) {
            if (held.isEmpty()) {
                Held h = checked(queue.next(), NetHeader.BYTES + NetHeader.ETH_BYTES);
                if (h == null) return false;
                hold(h);
            }
            return true;
        }
        // Enough for the longest frame. Direct chains take a descriptor per buffer: once the held
        // ones have as many as the queue, the driver has no chain left to add. That also bounds
        // the buffers one read spans: fewer than the queue's size held (at most 256) and a chain's
        // at most twice that (VirtQueue: direct ones, then an indirect table), below FrameFd.MAX_BUFFERS.
        while (heldBytes < MAX_BYTES && into.size() < queue.size()) {
            Held h = checked(queue.next(), NetHeader.BYTES);
            if (h == null) return false;
            hold(h);
        }
        return true;
    }

    /** Holds the chain, its buffers laid out after the held ones' (by index: an iterator would be an object per chain). */
    private void hold(Held h) {
        held.add(h);
        List<MemorySegment> w = h.chain.writable();
        for (int i = 0; i < w.size(); i++) into.add(w.get(i));
        heldBytes += h.bytes;
    }

    /** {@code c} held, or null; a chain the device may not write into, or too short for {@code least} bytes, breaks the protocol. */
    private static Held checked(DescriptorChain c, int least) throws VirtioException {
        if (c == null) return null;
        if (!c.readable().isEmpty()) {
            throw new VirtioException("receive chain from descriptor %d has device-readable buffers".formatted(c.head()));
        }
        Held h = new Held(c);
        if (h.bytes < least) {
            throw new VirtioException("receive chain from descriptor %d has %d bytes, fewer than the %d a receive buffer needs"
                    .formatted(c.head(), h.bytes, least));
        }
        if (c.writable().size() > FrameFd.MAX_BUFFERS) {
            throw new VirtioException("receive chain from descriptor %d has %d buffers, more than the %d one read fills"
                    .formatted(c.head(), c.writable().size(), FrameFd.MAX_BUFFERS));
        }
        return h;
    }

    /**
     * Returns the chains the frame of {@code n} bytes filled, in order, its header's num_buffers
     * saying how many; the driver sees them all at once.
     */
    private void complete(VirtQueue queue, long n) {
        int count = 0;
        long left = n;
        for (Held h : held) {
            if (left <= 0) break;
            left -= h.bytes;
            count++;
        }
        numBuffers(held.peek().chain, count);
        left = n;
        for (int i = 0; i < count; i++) {
            Held h = held.poll();
            long written = Math.min(left, h.bytes);
            queue.addUsed(h.chain.head(), (int) written);
            left -= written;
            into.removeFirst(h.chain.writable().size());
            heldBytes -= h.bytes;
        }
        queue.publishUsed();
    }

    /** Sets num_buffers, which the tap leaves as it was, in the header at the start of {@code first}. */
    private static void numBuffers(DescriptorChain first, int count) {
        MemorySegment start = first.writable().getFirst();
        if (start.byteSize() >= NetHeader.NUM_BUFFERS + 2) {
            start.set(U16, NetHeader.NUM_BUFFERS, (short) count);
            return;
        }
        // The header split over buffers (any layout is allowed): byte by byte.
        byte[] value = {(byte) count, (byte) (count >>> 8)};
        int at = 0;
        for (MemorySegment b : Buffers.range(first.writable(), NetHeader.NUM_BUFFERS, NetHeader.NUM_BUFFERS + 2)) {
            MemorySegment.copy(value, at, b, JAVA_BYTE, 0, (int) b.byteSize());
            at += (int) b.byteSize();
        }
    }

    /** A chain held for a frame, with the bytes the device may write into it, summed once. */
    private static final class Held {
        final DescriptorChain chain;
        final long bytes;

        Held(DescriptorChain chain) {
            this.chain = chain;
            this.bytes = chain.writableBytes();
        }
    }
}
