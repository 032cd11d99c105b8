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
 * in order, after earlier ones left the front and the entries moved back to the array's start;
 * the queue refuses what it cannot hold.
 */
@Tag("unit")
class IovecQueueTest {
    @Test
    void aFrameLandsInTheBuffersQueuedNowAfterOthersLeftTheFront() {
        FrameFd[] p = FrameFd.socketPair();
        try (FrameFd a = p[0]; FrameFd b = p[1]; Arena arena = Arena.ofConfined()) {
            MemorySegment[] buf = new MemorySegment[5];
            for (int i = 0; i < buf.length; i++) buf[i] = arena.allocate(2 + i);
            IovecQueue q = new IovecQueue(2); // entries for 4 in its array
            q.add(buf[0]);
            q.add(buf[1]);
            byte[] frame = {1, 2, 3, 4, 5, 6, 7, 8, 9};
            assertTrue(a.write(List.of(arena.allocateFrom(JAVA_BYTE, frame))));
            assertEquals(5, b.read(q), "2 + 3 bytes queued: the frame is cut short");
            assertArrayEquals(new byte[] {1, 2}, buf[0].toArray(JAVA_BYTE));
            assertEquals(2, q.size(), "a read leaves the queue as it was");
            q.removeFirst(1);
            q.add(buf[2]);
            q.removeFirst(1);
            q.add(buf[3]); // the array's last entry
            q.removeFirst(1);
            q.add(buf[4]); // moves buf[3]'s entry to the array's start
            assertEquals(2, q.size());
            assertTrue(a.write(List.of(arena.allocateFrom(JAVA_BYTE, frame))));
            assertEquals(9, b.read(q));
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, buf[3].toArray(JAVA_BYTE));
            assertArrayEquals(new byte[] {6, 7, 8, 9}, buf[4].asSlice(0, 4).toArray(JAVA_BYTE));
            q.clear();
            assertEquals(0, q.size());
        }
    }

    @Test
    void refusesWhatItCannotHold() {
        try (Arena arena = Arena.ofConfined()) {
            IovecQueue q = IovecQueue.of(arena.allocate(1));
            IllegalStateException full = assertThrows(IllegalStateException.class, () -> q.add(arena.allocate(1)));
            assertEquals("the iovec queue already holds its 1 buffers", full.getMessage());
            assertThrows(IllegalArgumentException.class, () -> q.removeFirst(2));
            q.removeFirst(1);
            assertThrows(IllegalArgumentException.class, () -> q.add(MemorySegment.ofArray(new byte[4])), "a heap segment");
            assertThrows(IllegalArgumentException.class, () -> new IovecQueue(0));
            assertThrows(IllegalArgumentException.class, () -> new IovecQueue(FrameFd.MAX_BUFFERS + 1));
        }
    }
}
