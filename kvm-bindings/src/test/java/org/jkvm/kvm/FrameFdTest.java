package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Frames through a socket pair, the tap's stand-in: whole frames across buffers, -1 when none waits. */
@Tag("unit")
class FrameFdTest {
    @Test
    void framesKeepTheirBoundariesAcrossScatteredBuffers() {
        FrameFd[] p = FrameFd.socketPair();
        try (FrameFd a = p[0]; FrameFd b = p[1]; Arena arena = Arena.ofConfined()) {
            MemorySegment one = arena.allocateFrom(JAVA_BYTE, new byte[] {1, 2, 3});
            MemorySegment two = arena.allocateFrom(JAVA_BYTE, new byte[] {4, 5});
            assertTrue(a.write(List.of(one, two)));
            assertTrue(a.write(List.of(two)));
            MemorySegment x = arena.allocate(2), y = arena.allocate(8);
            assertEquals(5, b.read(IovecQueue.of(x, y)));
            assertArrayEquals(new byte[] {1, 2}, x.toArray(JAVA_BYTE));
            assertArrayEquals(new byte[] {3, 4, 5}, y.asSlice(0, 3).toArray(JAVA_BYTE));
            assertEquals(2, b.read(IovecQueue.of(y)));
            assertEquals(-1, b.read(IovecQueue.of(y)));
        }
    }

    @Test
    void awaitReadableReturnsForAFrameOrTheWakeEventfd() {
        FrameFd[] p = FrameFd.socketPair();
        try (FrameFd a = p[0]; FrameFd b = p[1]; EventFd wake = EventFd.create(); Arena arena = Arena.ofConfined()) {
            assertFalse(b.awaitReadable(wake, 10));
            wake.signal();
            assertTrue(b.awaitReadable(wake, 60_000), "woken by the eventfd");
            wake.take();
            assertFalse(b.awaitReadable(wake, 10));
            a.write(List.of(arena.allocate(1)));
            assertTrue(b.awaitReadable(wake, 5_000));
        }
    }
}
