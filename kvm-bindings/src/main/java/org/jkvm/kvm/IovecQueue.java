package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Native buffers in order, kept laid out as the struct iovec array a vectored read takes
 * ({@link FrameFd#read(IovecQueue)}): buffers join at the back and leave from the front. A
 * receiver that holds more buffers than one frame fills (a frame of any length may come) then
 * lays out only the buffers it adds, not all it holds, for every frame it reads: the work a
 * frame costs follows the buffers it fills. The entries sit in an array twice the queue's
 * capacity and move back to its start only when the back reaches the array's end.
 *
 * <p>Not thread-safe; the memory is freed when the queue is unreachable.
 */
public final class IovecQueue {
    private final int capacity;
    private final MemorySegment entries;
    private int first;
    private int end;

    /** An empty queue of at most {@code capacity} buffers (1 to {@link FrameFd#MAX_BUFFERS}). */
    public IovecQueue(int capacity) {
        if (capacity < 1 || capacity > FrameFd.MAX_BUFFERS) {
            throw new IllegalArgumentException("an iovec queue holds 1 to " + FrameFd.MAX_BUFFERS + " buffers, not " + capacity);
        }
        this.capacity = capacity;
        this.entries = Iovecs.allocate(Arena.ofAuto(), 2 * capacity);
    }

    /** A queue holding {@code buffers}, native segments, in order, with room for no more (for one, if none is given). */
    public static IovecQueue of(MemorySegment... buffers) {
        IovecQueue q = new IovecQueue(Math.max(buffers.length, 1));
        for (MemorySegment b : buffers) q.add(b);
        return q;
    }

    /** How many buffers it holds. */
    public int size() {
        return end - first;
    }

    /** Appends {@code buffer}, a native segment. */
    public void add(MemorySegment buffer) {
        int size = size();
        if (size == capacity) throw new IllegalStateException("the iovec queue is full: it holds at most " + capacity + " buffers");
        if (end == 2 * capacity) {
            MemorySegment.copy(entries, Iovecs.offset(first), entries, 0, Iovecs.offset(size));
            first = 0;
            end = size;
        }
        Iovecs.set(entries, end, buffer); // first: a refused buffer leaves the queue as it was
        end++;
    }

    /** Removes the first {@code count} buffers. */
    public void removeFirst(int count) {
        if (count < 0 || count > size()) {
            throw new IllegalArgumentException("cannot remove " + count + " of the " + size() + " buffers queued");
        }
        first += count;
        if (first == end) first = end = 0;
    }

    /** Removes every buffer. */
    public void clear() {
        first = end = 0;
    }

    /** The array the entries are in; the queue's first entry is at {@link #firstOffset}. */
    MemorySegment entries() {
        return entries;
    }

    /** The byte offset of the first entry in {@link #entries}. */
    long firstOffset() {
        return Iovecs.offset(first);
    }
}
