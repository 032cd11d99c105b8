package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** memmem(3) through the bindings: offsets within the segment given, its bounds kept. */
@Tag("unit")
class NativeSearchTest {
    private static MemorySegment bytes(Arena arena, String s) {
        return arena.allocateFrom(JAVA_BYTE, s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void theFirstOccurrenceIsFoundAtItsOffsetFromTheSegmentsStart() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hay = bytes(arena, "xxLinux versionLinux version 6.12 Linux version ");
            MemorySegment needle = bytes(arena, "Linux version ");
            assertEquals(15, NativeSearch.indexOf(hay, needle));
            assertEquals(15 - 3, NativeSearch.indexOf(hay.asSlice(3), needle));
            assertEquals(34 - 16, NativeSearch.indexOf(hay.asSlice(16), needle), "the match at the very end");
            assertEquals(0, NativeSearch.indexOf(hay, bytes(arena, "")));
        }
    }

    @Test
    void aNeedleAbsentOrPastTheSegmentsEndIsNotFound() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment hay = bytes(arena, "abcdefghLinux version ");
            MemorySegment needle = bytes(arena, "Linux version ");
            assertEquals(-1, NativeSearch.indexOf(hay.asSlice(0, hay.byteSize() - 1), needle),
                    "the search stops at the segment's end, not at the memory's");
            assertEquals(-1, NativeSearch.indexOf(hay, bytes(arena, "Linux versions")));
            assertEquals(-1, NativeSearch.indexOf(hay.asSlice(0, 3), needle), "a needle longer than the haystack");
        }
    }

    @Test
    void heapSegmentsAreRefusedWithTheFix() {
        try (Arena arena = Arena.ofConfined()) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> NativeSearch.indexOf(MemorySegment.ofArray(new byte[8]), bytes(arena, "a")));
            assertTrue(e.getMessage().contains("native segments"), e.getMessage());
        }
    }
}
