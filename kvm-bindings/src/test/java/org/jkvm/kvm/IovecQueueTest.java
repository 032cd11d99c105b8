package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Buffers queued for reads through a socket pair: a frame lands in the buffers queued at the time,
 * in order, after earlier ones left the front and the entries moved back to the array's start,
 * and after the queue emptied; the queue refuses what it cannot hold and stays as it was.
 */
@Tag("unit")
class IovecQueueTest {
    private static final byte[] FRAME = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};

    @Test
    void aFrameLandsInTheBuffersQueuedNow() {
        FrameFd[] p = FrameFd.socketPair();
        try (FrameFd a = p[0]; FrameFd b = p[1]; Arena arena = Arena.ofConfined()) {
            MemorySegment[] buf = new MemorySegment[8];
            for (int i = 0; i < buf.length; i++) buf[i] = arena.allocate(2 + i);
            MemorySegment frame = arena.allocateFrom(JAVA_BYTE, FRAME);
            IovecQueue q = new IovecQueue(3); // entries for 6 in its array
            q.add(buf[0]);
            q.add(buf[1]);
            assertTrue(a.write(List.of(frame)));
            assertEquals(5, b.read(q), "2 + 3 bytes queued: the frame is cut short");
            assertArrayEquals(new byte[] {1, 2}, buf[0].toArray(JAVA_BYTE));
            assertArrayEquals(new byte[] {3, 4, 5}, buf[1].toArray(JAVA_BYTE));
            assertEquals(2, q.size(), "a read leaves the queue as it was");

            q.add(buf[2]);
            q.removeFirst(2);
            q.add(buf[3]);
            q.add(buf[4]);
            q.removeFirst(2);
            q.add(buf[5]);
            q.add(buf[6]); // the array's last entry
            q.removeFirst(1); // buf[5] and buf[6] at the array's end
            q.add(buf[7]); // moves both to its start
            assertEquals(3, q.size());
            assertTrue(a.write(List.of(frame)));
            assertEquals(20, b.read(q));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7}, buf[5].toArray(JAVA_BYTE));
            assertArrayEquals(new byte[] {8, 9, 10, 11, 12, 13, 14, 15}, buf[6].toArray(JAVA_BYTE));
            assertArrayEquals(new byte[] {16, 17, 18, 19, 20}, buf[7].asSlice(0, 5).toArray(JAVA_BYTE));

            q.removeFirst(3);
            assertEquals(0, q.size());
            q.add(buf[3]);
            assertTrue(a.write(List.of(frame)));
            assertEquals(5, b.read(q), "the emptied queue starts again with what is added");
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, buf[3].toArray(JAVA_BYTE));
            q.clear();
            assertEquals(0, q.size());
        }
    }

    @Test
    void refusesWhatItCannotHoldAndStaysAsItWas() {
        try (Arena arena = Arena.ofConfined()) {
            IovecQueue q = IovecQueue.of(arena.allocate(1));
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> q.add(arena.allocate(1)));
            assertEquals("the iovec queue is full: it holds at most 1 buffers", full.getMessage());
            assertThrows(IllegalArgumentException.class, () -> q.removeFirst(2));
            assertEquals(1, q.size());
            q.removeFirst(1);
            assertThrows(IllegalArgumentException.class, () -> q.add(MemorySegment.ofArray(new byte[4])), "a heap segment");
            assertEquals(0, q.size());
            assertThrows(IllegalArgumentException.class, () -> new IovecQueue(0));
            assertThrows(IllegalArgumentException.class, () -> new IovecQueue(FrameFd.MAX_BUFFERS + 1));
        }
    }
}
